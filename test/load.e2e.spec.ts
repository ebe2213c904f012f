// Load end to end (issue 7, item 4): a bounded load test on 127.0.0.1 at rising concurrency through
// the real gateway -> query -> FerretDB, printing throughput, p50/p99 latency and error counts per
// endpoint; then a soak at a moderate steady rate printing each process's memory at start and end.
//
//   LOAD_CONCURRENCY=1,4,16,64  connection counts, each for LOAD_STEP_SECONDS (default 2) per endpoint
//   LOAD_ACCOUNTS=120           enterprise accounts the keys rotate over (1,000 requests/min each)
//   SOAK_SECONDS=300            soak length (CI runs the default); SOAK_RPS=40 its steady rate
//   SOAK_WARMUP_SECONDS         first part of the soak before the start sample (default min(30, 20%))
//
// No timing assertions (the machine is shared): the figures are printed; the assertions are no 5xx,
// no dropped connection, every error in the contract shape, and memory that stays flat.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODE_LIST } from '@cds/contracts';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, eventually, startE2E, type E2E } from './support/harness.ts';

const LEVELS = (process.env.LOAD_CONCURRENCY ?? '1,4,16,64').split(',').map(Number);
const STEP_SECONDS = Number(process.env.LOAD_STEP_SECONDS ?? 2);
const ACCOUNTS = Number(process.env.LOAD_ACCOUNTS ?? 120);
const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const SOAK_RPS = Number(process.env.SOAK_RPS ?? 40);
const SOAK_WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? Math.min(30, SOAK_SECONDS * 0.2));
/** Growth allowed between the soak's start and end samples: the larger of these. */
const SOAK_MAX_GROWTH_MB = Number(process.env.SOAK_MAX_GROWTH_MB ?? 60);
const SOAK_MAX_GROWTH_RATIO = Number(process.env.SOAK_MAX_GROWTH_RATIO ?? 0.3);

const API = '/api/v1';
const ENDPOINTS: Record<string, string> = {
  list: `${API}/commodities?per_page=25`,
  detail: `${API}/commodities/GOLD`,
  series: `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01&end_date=2022-12-31`,
  cot: `${API}/commodities/GOLD/cot?start_date=2025-01-01`,
  // Errors cost something too: a 400 from the gateway alone (slug shape), a 404 from the query service.
  invalid: `${API}/commodities/gold/series?type=price`,
  unknown: `${API}/commodities/UNOBTAINIUM`,
};

let e2e: E2E;
const keys: string[] = [];
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

function errorShapeProblem(status: number, body: string, requestId: string | undefined): string | undefined {
  try {
    const json = JSON.parse(body) as { error?: Record<string, unknown> };
    const e = json.error;
    if (e === undefined || Object.keys(json).length !== 1) return 'no error object';
    if (!ERROR_CODE_LIST.includes(e.code as never)) return `code ${String(e.code)}`;
    if (typeof e.message !== 'string' || typeof e.doc_url !== 'string') return 'message/doc_url';
    if (e.request_id !== requestId) return 'request_id differs from X-Request-Id';
    return undefined;
  } catch {
    return `status ${status}: not JSON`;
  }
}

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
      const problem = errorShapeProblem(res.statusCode, body, typeof id === 'string' ? id : undefined);
      if (problem !== undefined && t.malformed.length < 5) t.malformed.push(`${path}: ${problem}`);
    }
  } catch (err) {
    t.networkErrors += 1;
    if (t.malformed.length < 5) t.malformed.push(`${path}: ${(err as Error).message}`);
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
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

function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? Number.NaN : Number(m[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** RSS in MB of every application process and (for information) of the servers under it. */
function memorySample(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const svc of e2e.system.all()) out[svc.name] = rssMb(svc.child.pid);
  out['(nats-server)'] = rssMb(e2e.infra.servers.nats?.pid);
  out['(redis-server)'] = rssMb(e2e.infra.servers.redis?.pid);
  out['(mongo api)'] = rssMb(e2e.infra.servers.mongo?.pid);
  return out;
}

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  for (const [source, file] of [
    ['cftc-legacy', 'cftc_legacy_fut_annual_2025_excerpt.txt'],
    ['eia', 'eia_rwtc_wti_spot_daily_2022_excerpt.csv'],
  ] as const) {
    const run = await e2e.ingest(['backfill', '--source', source, '--file', join(FIXTURES, file)]);
    expect(run.code, `${file}: ${run.stderr}`).toBe(0);
  }
  for (let i = 0; i < ACCOUNTS; i += 8) {
    const batch = await Promise.all(Array.from({ length: Math.min(8, ACCOUNTS - i) }, () => e2e.account('enterprise')));
    keys.push(...batch.map((a) => a.key));
  }
  await eventually(
    'projections and keys',
    async () => {
      const statuses = await Promise.all(
        [ENDPOINTS.cot!, ENDPOINTS.series!].map(async (path) => {
          const res = await e2e.get(path, { key: keys.at(-1)!, validate: false });
          return res.status === 200 && res.json.data.length > 0;
        }),
      );
      return statuses.every(Boolean);
    },
    180_000,
  );
}, 300_000);

afterAll(async () => {
  await e2e?.stop();
}, 60_000);

const row = (cells: (string | number)[], widths: number[]) =>
  cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join('  ');

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

  it(
    `keeps every process's memory flat over a ${SOAK_SECONDS} s soak at ${SOAK_RPS} requests/s`,
    async () => {
      const pool = new Pool(e2e.gatewayUrl(), { connections: 16 });
      const paths = Object.values(ENDPOINTS);
      const t = tally();
      const initial = memorySample();
      const samples: { at: number; mem: Record<string, number> }[] = [];
      const start = performance.now();
      const end = start + SOAK_SECONDS * 1000;
      let warm: Record<string, number> | undefined;
      let nextSample = start + SOAK_WARMUP_SECONDS * 1000;
      const inFlight = new Set<Promise<void>>();
      let sent = 0;
      // Open loop: requests leave on schedule (every 50 ms a share of the rate), whatever the latency.
      while (performance.now() < end) {
        const due = Math.floor(((performance.now() - start) / 1000) * SOAK_RPS);
        while (sent < due) {
          const p = once(pool, paths[sent % paths.length]!, t).finally(() => inFlight.delete(p));
          inFlight.add(p);
          sent += 1;
        }
        if (performance.now() >= nextSample) {
          const mem = memorySample();
          if (warm === undefined) warm = mem;
          samples.push({ at: (performance.now() - start) / 1000, mem });
          nextSample += Math.max(10, SOAK_SECONDS / 10) * 1000;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      await Promise.all(inFlight);
      await pool.close();
      const final = memorySample();
      samples.push({ at: (performance.now() - start) / 1000, mem: final });
      const startMem = warm ?? initial;

      const sorted = [...t.latencies].sort((a, b) => a - b);
      const names = Object.keys(final);
      const lines = [
        row(
          ['process', 'before MB', `start MB (t=${SOAK_WARMUP_SECONDS.toFixed(0)} s)`, 'end MB', 'growth MB'],
          [16, 10, 18, 8, 10],
        ),
        ...names.map((n) =>
          row(
            [
              n,
              initial[n]!.toFixed(1),
              startMem[n]!.toFixed(1),
              final[n]!.toFixed(1),
              (final[n]! - startMem[n]!).toFixed(1),
            ],
            [16, 10, 18, 8, 10],
          ),
        ),
      ];
      const trace = names
        .filter((n) => !n.startsWith('('))
        .map((n) => `${n.padEnd(16)} ${samples.map((s) => s.mem[n]!.toFixed(0)).join(' ')}`);
      console.log(
        `\nsoak: ${SOAK_SECONDS} s at ${SOAK_RPS} req/s over ${paths.length} endpoints: ${t.latencies.length} answered ` +
          `(${t.ok} 2xx, ${t.clientErrors} 4xx, ${t.limited} 429, ${t.serverErrors} 5xx, ${t.networkErrors} network errors), ` +
          `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms\n${lines.join('\n')}\n` +
          `RSS MB at t = ${samples.map((s) => s.at.toFixed(0)).join(', ')} s\n${trace.join('\n')}\n`,
      );

      expect(t.serverErrors).toBe(0);
      expect(t.networkErrors).toBe(0);
      expect(t.malformed).toEqual([]);
      expect(t.latencies.length).toBeGreaterThanOrEqual(Math.floor(SOAK_SECONDS * SOAK_RPS * 0.9));
      for (const svc of e2e.system.all()) {
        expect(svc.exited(), `${svc.name} still running`).toBe(false);
        const growth = final[svc.name]! - startMem[svc.name]!;
        const bound = Math.max(SOAK_MAX_GROWTH_MB, startMem[svc.name]! * SOAK_MAX_GROWTH_RATIO);
        expect(
          growth,
          `${svc.name}: RSS ${startMem[svc.name]!.toFixed(1)} -> ${final[svc.name]!.toFixed(1)} MB`,
        ).toBeLessThan(bound);
      }
    },
    SOAK_SECONDS * 1000 + 120_000,
  );
});
