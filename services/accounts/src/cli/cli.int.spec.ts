import { findFreePort, startCliSandbox, type CliSandbox, type NatsHandle } from '@cds/testkit';
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The accounts service and its CLI run as child processes, as the chart and `npm run admin` run
// them, against a private NATS server (the keys stream has fixed subjects).
const here = dirname(fileURLToPath(import.meta.url));
const adminCli = join(here, '..', 'cli.ts');
const adminMain = join(here, '..', 'main.ts');

let sandbox: CliSandbox;
let nats: NatsHandle;
const run = (script: string, args: string[], env: Record<string, string>) => sandbox.run(script, args, env);

beforeAll(async () => {
  sandbox = await startCliSandbox('accounts-cli-');
  ({ nats } = sandbox);
});

afterAll(async () => {
  await sandbox?.stop();
});

describe('admin API process and admin CLI', () => {
  let server: ChildProcess | undefined;
  let adminUrl: string;
  const token = 'cli-int-spec-admin-token-0123';

  beforeAll(async () => {
    const port = await findFreePort();
    adminUrl = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', adminMain], {
      env: {
        PATH: process.env.PATH ?? '',
        NATS_URL: nats.identities.admin,
        PORT: String(port),
        ADMIN_TOKEN: token,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ok = await fetch(`${adminUrl}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline || server.exitCode !== null) throw new Error('admin API did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
  });

  it('creates an account and a key, lists, revokes, changes the plan; errors exit 1 with the reason', async () => {
    const env = { ADMIN_URL: adminUrl, ADMIN_TOKEN: token };
    const created = await run(adminCli, ['create-account', '--name', 'Acme', '--plan', 'free'], env);
    expect(created.code).toBe(0);
    const accountId = /account (acc_[0-9a-f]+) created/.exec(created.stdout)?.[1];
    expect(accountId).toBeDefined();

    const key = await run(adminCli, ['create-key', '--account', accountId!, '--label', 'ci'], env);
    expect(key.code).toBe(0);
    expect(key.stdout).toMatch(/API key \(shown once, store it now\): cds_[0-9A-Za-z]{36}\n/);
    const keyId = /key (key_[0-9a-f]+) created/.exec(key.stdout)?.[1];

    const list = await run(adminCli, ['list-keys', '--account', accountId!], env);
    expect(list.stdout).toContain(`${keyId}  active`);

    expect((await run(adminCli, ['revoke-key', '--key', keyId!], env)).stdout).toContain(`key ${keyId} revoked`);
    const again = await run(adminCli, ['revoke-key', '--key', keyId!], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/error: 400 invalid_parameter \(key_id\): .*already revoked/);

    const plan = await run(adminCli, ['set-plan', '--account', accountId!, '--plan', 'business'], env);
    expect(plan.stdout).toContain(`account ${accountId}: plan free -> business`);
    const badPlan = await run(adminCli, ['set-plan', '--account', accountId!, '--plan', 'gold'], env);
    expect(badPlan.stderr).toMatch(/error: 400 invalid_parameter \(plan\)/);

    const unknown = await run(adminCli, ['list-keys', '--account', 'acc_00000000000000000000'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/error: 404 not_found \(account_id\)/);

    const wrongToken = await run(adminCli, ['list-keys', '--account', accountId!], {
      ADMIN_URL: adminUrl,
      ADMIN_TOKEN: 'wrong',
    });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/error: 401 unauthorized/);
  });
});
