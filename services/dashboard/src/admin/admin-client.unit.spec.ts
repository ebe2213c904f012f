import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminRejectedError, AdminUnavailableError, createAdminClient } from './admin-client.ts';

// The admin API's answers are parsed with its contract (libs/contracts/src/admin.ts): a server that
// answers another shape is an unavailable admin API (a 503 page), never data the dashboard trusts.
let server: Server;
let url: string;
const answers = new Map<string, { status: number; body: string }>();
/** The body of the last request to each `METHOD url`. */
const received = new Map<string, string>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    // Answered once the body is read, so a spec sees it recorded when the call resolves.
    req.on('end', () => {
      received.set(`${req.method} ${req.url}`, body);
      const answer = answers.get(`${req.method} ${req.url}`) ?? {
        status: 404,
        body: '{"error":{"code":"not_found","message":"no"}}',
      };
      if (answer.status === 0) return; // never answers: the client's deadline must end the call
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const key = {
  key_id: 'key_abcdefgh12',
  account_id: 'acc_abcdefgh12',
  status: 'active',
  created_at: '2026-11-24T00:00:00Z',
};

describe('the admin API client', () => {
  it('returns an answer of the contract shape', async () => {
    answers.set('GET /admin/v1/accounts/acc_abcdefgh12/keys', { status: 200, body: JSON.stringify({ keys: [key] }) });
    const admin = createAdminClient({ url, token: 't', timeoutMs: 2_000 });
    await expect(admin.listKeys('acc_abcdefgh12')).resolves.toEqual([key]);
  });

  it.each([
    ['a key without its id', { keys: [{ ...key, key_id: undefined }] }],
    ['an unknown status', { keys: [{ ...key, status: 'paused' }] }],
    ['no list at all', { items: [] }],
  ])('refuses %s as an unavailable admin API', async (_what, body) => {
    answers.set('GET /admin/v1/accounts/acc_abcdefgh12/keys', { status: 200, body: JSON.stringify(body) });
    const admin = createAdminClient({ url, token: 't', timeoutMs: 2_000 });
    await expect(admin.listKeys('acc_abcdefgh12')).rejects.toThrow(AdminUnavailableError);
  });

  it('creates an account under a given id and takes the existing one (200) as well as a new one (201)', async () => {
    const account = { account_id: 'acc_613c4b749c60afa7926c', name: 'usr_x', plan: 'free', created_at: '2026-11-27' };
    const admin = createAdminClient({ url, token: 't', timeoutMs: 2_000 });
    for (const status of [201, 200]) {
      answers.set('POST /admin/v1/accounts', { status, body: JSON.stringify(account) });
      await expect(admin.createAccount('usr_x', 'free', account.account_id)).resolves.toEqual(account);
      expect(JSON.parse(received.get('POST /admin/v1/accounts')!)).toEqual({
        name: 'usr_x',
        plan: 'free',
        account_id: account.account_id,
      });
    }
    await admin.createAccount('usr_x', 'free');
    expect(JSON.parse(received.get('POST /admin/v1/accounts')!)).toEqual({ name: 'usr_x', plan: 'free' });
  });

  it('refuses a created key whose plain key is missing', async () => {
    answers.set('POST /admin/v1/accounts/acc_abcdefgh12/keys', { status: 201, body: JSON.stringify(key) });
    const admin = createAdminClient({ url, token: 't', timeoutMs: 2_000 });
    await expect(admin.createKey('acc_abcdefgh12', 'ci')).rejects.toThrow(/unexpected shape/);
  });

  it('closes an account with a POST and takes only an answer with its closure time and keys', async () => {
    const closed = {
      account_id: 'acc_abcdefgh12',
      name: 'usr_x',
      plan: 'free',
      created_at: '2026-11-24T00:00:00Z',
      closed_at: '2026-11-27T00:00:00Z',
      keys: [{ ...key, status: 'revoked', revoked_at: '2026-11-27T00:00:00Z' }],
    };
    answers.set('POST /admin/v1/accounts/acc_abcdefgh12/close', { status: 200, body: JSON.stringify(closed) });
    const admin = createAdminClient({ url, token: 't', timeoutMs: 2_000 });
    await expect(admin.closeAccount('acc_abcdefgh12')).resolves.toEqual(closed);
    const { closed_at: _missing, ...open } = closed;
    answers.set('POST /admin/v1/accounts/acc_abcdefgh12/close', { status: 200, body: JSON.stringify(open) });
    await expect(admin.closeAccount('acc_abcdefgh12')).rejects.toThrow(AdminUnavailableError);
    answers.set('POST /admin/v1/accounts/acc_silent1234/close', { status: 0, body: '' });
    const impatient = createAdminClient({ url, token: 't', timeoutMs: 300 });
    await expect(impatient.closeAccount('acc_silent1234')).rejects.toThrow(AdminUnavailableError);
  });

  it('passes a 4xx on as a rejection with its code, and ends a call that never answers at its deadline (well inside the test timeout)', async () => {
    const admin = createAdminClient({ url, token: 't', timeoutMs: 300 });
    await expect(admin.revokeKey('key_unknown123')).rejects.toThrow(AdminRejectedError);
    answers.set('GET /admin/v1/accounts/acc_silent1234', { status: 0, body: '' });
    await expect(admin.getAccount('acc_silent1234')).rejects.toThrow(AdminUnavailableError);
  });
});
