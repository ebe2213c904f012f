// The system the load and soak specs drive: one gateway (-> one query service -> the MongoDB API
// server) holding real CFTC and EIA rows, enterprise keys to rotate over, the endpoints both
// specs call, and each process's resident memory read from /proc.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FIXTURES, eventually, startE2E, type E2E } from './harness.ts';

const API = '/api/v1';
/** What both specs call: four answers and two errors (errors cost something too). */
export const ENDPOINTS: Record<string, string> = {
  list: `${API}/commodities?per_page=25`,
  detail: `${API}/commodities/GOLD`,
  series: `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01&end_date=2022-12-31`,
  cot: `${API}/commodities/GOLD/cot?start_date=2025-01-01`,
  // A 400 from the gateway alone (slug shape), a 404 from the query service.
  invalid: `${API}/commodities/gold/series?type=price`,
  unknown: `${API}/commodities/UNOBTAINIUM`,
};

/** Starts the system, loads the CFTC legacy and EIA excerpts and makes `accounts` enterprise keys. */
export async function startReadLoadSystem(accounts: number): Promise<{ e2e: E2E; keys: string[] }> {
  const e2e = await startE2E({ gateways: 1 });
  const keys: string[] = [];
  for (const [source, file] of [
    ['cftc-legacy', 'cftc_legacy_fut_annual_2025_excerpt.txt'],
    ['eia', 'eia_rwtc_wti_spot_daily_2022_excerpt.csv'],
  ] as const) {
    const run = await e2e.ingest(['backfill', '--source', source, '--file', join(FIXTURES, file)]);
    expect(run.code, `${file}: ${run.stderr}`).toBe(0);
  }
  for (let i = 0; i < accounts; i += 8) {
    const batch = await Promise.all(Array.from({ length: Math.min(8, accounts - i) }, () => e2e.account('enterprise')));
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
  return { e2e, keys };
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
export function memorySample(e2e: E2E): Record<string, number> {
  const out: Record<string, number> = {};
  for (const svc of e2e.system.all()) out[svc.name] = rssMb(svc.child.pid);
  out['(nats-server)'] = rssMb(e2e.infra.servers.nats?.pid);
  out['(redis-server)'] = rssMb(e2e.infra.servers.redis?.pid);
  out['(mongo api)'] = rssMb(e2e.infra.servers.mongo?.pid);
  return out;
}

/** A table row: the first cell left-aligned, the others right-aligned, to the given widths. */
export const row = (cells: (string | number)[], widths: number[]) =>
  cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join('  ');

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
