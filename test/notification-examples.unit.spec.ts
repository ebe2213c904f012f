// The webhook verification code of docs/notifications.md, run as users would run it: the Node file
// with node, the Python file with python3, each against deliveries signed here with node:crypto per
// the scheme (HMAC-SHA256 keyed with the whole `whsec_` secret over "<t>.<raw body>", 5-minute window).
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { signDelivery } from '@cds/webhooks';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const examples = path.join(repoRoot, 'docs/examples');

const secret = `whsec_${randomBytes(32).toString('base64url')}`;
const body = JSON.stringify({
  id: `evt_${randomBytes(16).toString('hex')}`,
  type: 'series.updated',
  data: {
    commodity: 'CRUDE_OIL_WTI',
    topic: 'stocks',
    series_type: 'stocks',
    first_date: '2026-11-20',
    newest_date: '2026-11-20',
    landed_at: '2026-11-25T15:31:02.114Z',
    url: 'https://api.example.com/api/v1/commodities/CRUDE_OIL_WTI/series?type=stocks&start_date=2026-11-20&end_date=2026-11-20',
  },
});

function sign(key: string, payload: string | Buffer, t: number): string {
  const v1 = createHmac('sha256', Buffer.from(key, 'utf8')).update(`${t}.`).update(payload).digest('hex');
  return `t=${t},v1=${v1}`;
}

const now = () => Math.floor(Date.now() / 1000);

interface Verifier {
  name: string;
  file: string;
  run(header: string | undefined, payload: string | Buffer, key?: string): { status: number; out: string };
}

function runner(name: string, command: string, file: string): Verifier {
  return {
    name,
    file,
    run(header, payload, key = secret) {
      const r = spawnSync(command, [file, ...(header === undefined ? [] : [header])], {
        input: payload,
        env: { ...process.env, CDS_WEBHOOK_SECRET: key },
        encoding: 'utf8',
        timeout: 20_000,
      });
      if (r.error) throw r.error;
      expect(r.stderr, `${name} wrote to stderr`).toBe('');
      return { status: r.status ?? -1, out: r.stdout.trim() };
    },
  };
}

const verifiers = [
  runner('Node', process.execPath, path.join(examples, 'verify-webhook.mjs')),
  runner('Python', 'python3', path.join(examples, 'verify_webhook.py')),
];

it('signs here exactly as the notifier does (libs/webhooks signDelivery)', () => {
  const t = now();
  expect(sign(secret, body, t)).toBe(signDelivery(secret, body, t));
});

describe.each(verifiers)('the $name example', (v) => {
  it('accepts a delivery signed now with the endpoint secret', () => {
    expect(v.run(sign(secret, body, now()), body)).toEqual({ status: 0, out: 'ok' });
  });

  it('accepts a timestamp within the 5-minute window on either side, and the raw bytes of a non-ASCII body', () => {
    expect(v.run(sign(secret, body, now() - 240), body)).toEqual({ status: 0, out: 'ok' });
    expect(v.run(sign(secret, body, now() + 240), body)).toEqual({ status: 0, out: 'ok' });
    const utf8 = Buffer.from(body.replace('stocks', 'stocks – Cushing, Oklahoma'), 'utf8');
    expect(v.run(sign(secret, utf8, now()), utf8)).toEqual({ status: 0, out: 'ok' });
  });

  it('accepts a header with several v1 signatures when one matches', () => {
    const t = now();
    const header = `t=${t},v1=${'0'.repeat(64)},${sign(secret, body, t).split(',')[1]}`;
    expect(v.run(header, body)).toEqual({ status: 0, out: 'ok' });
  });

  it('refuses a tampered body', () => {
    const header = sign(secret, body, now());
    expect(v.run(header, body.replace('2026-11-20', '2026-11-21'))).toEqual({ status: 1, out: 'mismatch' });
    expect(v.run(header, `${body} `)).toEqual({ status: 1, out: 'mismatch' });
  });

  it('refuses a signature made with another secret', () => {
    const other = `whsec_${randomBytes(32).toString('base64url')}`;
    expect(v.run(sign(other, body, now()), body)).toEqual({ status: 1, out: 'mismatch' });
    // The key is the whole string, prefix included: the decoded bytes alone are the wrong key.
    const bare = Buffer.from(secret.slice('whsec_'.length), 'base64url').toString('latin1');
    expect(v.run(sign(bare, body, now()), body)).toEqual({ status: 1, out: 'mismatch' });
  });

  it('refuses a stale or future timestamp even with a correct signature (a replay)', () => {
    expect(v.run(sign(secret, body, now() - 301 - 5), body)).toEqual({ status: 1, out: 'stale' });
    expect(v.run(sign(secret, body, now() - 3600), body)).toEqual({ status: 1, out: 'stale' });
    expect(v.run(sign(secret, body, now() + 400), body)).toEqual({ status: 1, out: 'stale' });
  });

  it('refuses a missing or malformed header', () => {
    const t = now();
    const v1 = sign(secret, body, t).split(',')[1]!;
    expect(v.run(undefined, body)).toEqual({ status: 1, out: 'malformed' });
    expect(v.run('', body)).toEqual({ status: 1, out: 'malformed' });
    expect(v.run(v1, body)).toEqual({ status: 1, out: 'malformed' });
    expect(v.run(`t=${t}`, body)).toEqual({ status: 1, out: 'malformed' });
    expect(v.run(`t=${t},v1=${v1.slice(3, 40)}`, body)).toEqual({ status: 1, out: 'malformed' });
    expect(v.run(`t=soon,${v1}`, body)).toEqual({ status: 1, out: 'malformed' });
  });

  it('is quoted in docs/notifications.md as it is', () => {
    const doc = readFileSync(path.join(repoRoot, 'docs/notifications.md'), 'utf8');
    const source = readFileSync(v.file, 'utf8');
    const fn =
      v.name === 'Node'
        ? /export function verifyCdsSignature[\s\S]*?\n}\n/
        : /def verify_cds_signature[\s\S]*?"mismatch"\n/;
    const quoted = fn.exec(source)?.[0];
    expect(quoted, `the function in ${v.file}`).toBeDefined();
    expect(doc).toContain(quoted!.trim());
  });
});
