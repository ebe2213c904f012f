// Load end to end (issue 7, item 4): a bounded load test on 127.0.0.1 at rising concurrency through
// the real gateway -> query -> FerretDB, printing throughput, p50/p99 latency and error counts per
// endpoint. The soak at a steady rate is test/soak.e2e.spec.ts (it runs beside the other e2e files).
//
//   LOAD_CONCURRENCY=1,4,16,64  connection counts, each for LOAD_STEP_SECONDS (default 2) per endpoint
//   LOAD_ACCOUNTS=120           enterprise accounts the keys rotate over (1,000 requests/min each)
//
// No timing assertions (the machine is shared): the figures are printed; the assertions are no 5xx,
// no dropped connection and every error in the contract shape.
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { E2E } from './support/harness.ts';
import { contractShapeViolation } from './support/load.ts';
import { ENDPOINTS, percentile, row, startReadLoadSystem } from './support/read-load.ts';

const LEVELS = (process.env.LOAD_CONCURRENCY ?? '1,4,16,64').split(',').map(Number);
const STEP_SECONDS = Number(process.env.LOAD_STEP_SECONDS ?? 2);
const ACCOUNTS = Number(process.env.LOAD_ACCOUNTS ?? 120);

let e2e: E2E;
let keys: string[] = [];
let keyTurn = 0;
const nextKey = () => keys[keyTurn++ % keys.length]!;

interface Tally {
  latencies: number[];
  ok: number;
  limited: number;
  clientErrors: number;
  serverErrors: number;
  networkErrors: number;
  /** Error answers that were not in the contract's shape (with a sample). */
  malformed: string[];
}
const tally = (): Tally => ({
  latencies: [],
  ok: 0,
  limited: 0,
  clientErrors: 0,
  serverErrors: 0,
  networkErrors: 0,
  malformed: [],
});

async function once(pool: Pool, path: string, t: Tally): Promise<void> {
  const start = performance.now();
  try {
    const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${nextKey()}` } });
    const body = await res.body.text();
    t.latencies.push(performance.now() - start);
    if (res.statusCode < 300) t.ok += 1;
    else {
      if (res.statusCode === 429) t.limited += 1;
      else if (res.statusCode >= 500) t.serverErrors += 1;
      else t.clientErrors += 1;
      const id = res.headers['x-request-id'];
      const problem = contractShapeViolation(res.statusCode, body, typeof id === 'string' ? id : null);
      if (problem !== undefined && t.malformed.length < 5) t.malformed.push(`${path}: ${problem}`);
    }
  } catch (err) {
    t.networkErrors += 1;
    if (t.malformed.length < 5) t.malformed.push(`${path}: ${(err as Error).message}`);
  }
}

/** `connections` closed-loop clients on `path` for `seconds`. */
async function step(path: string, connections: number, seconds: number) {
  const pool = new Pool(e2e.gatewayUrl(), { connections, pipelining: 1 });
  const t = tally();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) await once(pool, path, t);
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  const sorted = [...t.latencies].sort((a, b) => a - b);
  return { t, rps: sorted.length / elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

beforeAll(async () => {
  ({ e2e, keys } = await startReadLoadSystem(ACCOUNTS));
}, 300_000);

afterAll(async () => {
  await e2e?.stop();
}, 60_000);

describe('load', () => {
  it(
    'serves every endpoint at rising concurrency without a 5xx or a dropped connection',
    async () => {
      const widths = [8, 5, 8, 8, 8, 8, 7, 6, 6, 6, 6];
      const lines = [
        row(['endpoint', 'conc', 'requests', 'req/s', 'p50 ms', 'p99 ms', '2xx', '4xx', '429', '5xx', 'net'], widths),
      ];
      const problems: string[] = [];
      for (const [name, path] of Object.entries(ENDPOINTS)) {
        for (const connections of LEVELS) {
          const { t, rps, p50, p99 } = await step(path, connections, STEP_SECONDS);
          lines.push(
            row(
              [
                name,
                connections,
                t.latencies.length + t.networkErrors,
                rps.toFixed(0),
                p50.toFixed(1),
                p99.toFixed(1),
                t.ok,
                t.clientErrors,
                t.limited,
                t.serverErrors,
                t.networkErrors,
              ],
              widths,
            ),
          );
          expect(t.latencies.length, `${name} x${connections}: requests answered`).toBeGreaterThan(0);
          if (t.serverErrors > 0 || t.networkErrors > 0)
            problems.push(`${name} x${connections}: ${t.malformed.join('; ')}`);
          problems.push(...t.malformed);
          if (name === 'invalid' || name === 'unknown') expect(t.ok, `${name} never answers 2xx`).toBe(0);
          else expect(t.clientErrors, `${name} x${connections}: 4xx other than 429`).toBe(0);
        }
      }
      console.log(
        `\nload through one gateway (${STEP_SECONDS} s per step, ${keys.length} enterprise keys)\n${lines.join('\n')}\n`,
      );
      expect(problems).toEqual([]);
    },
    LEVELS.length * Object.keys(ENDPOINTS).length * (STEP_SECONDS + 5) * 1000 + 60_000,
  );
});
