// Replicas on one machine: three gateways, two query services, and two projector processes whose
// projections compete on the same durable consumers. Rate windows stay exact across gateways, a
// revocation reaches every gateway while they serve the key, and the read models written by
// competing projectors equal a clean single-reader rebuild of the same stream.
//
// Tunables (CI-safe defaults): CDS_E2E_DEMO_YEARS (demo data on top of the real fixtures; 0 = none),
// CDS_E2E_LOAD_RATE (requests/s of the steady load), CDS_E2E_LOAD_MS (its least duration; it also
// lasts until 1.5 s after every gateway refuses the revoked key).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, eventually, startE2E, type ApiResponse, type E2E } from './support/harness.ts';
import { describeLoad, fallbackCount, startLoad } from './support/load.ts';
import {
  REAL_FILES,
  dataStreamState,
  ingestCounts,
  openProbes,
  rebuildReference,
  waitForProjections,
  type Probes,
} from './support/projections.ts';
import { readModelFingerprint } from './support/read-model-hash.ts';

const DEMO_YEARS = Number(process.env.CDS_E2E_DEMO_YEARS ?? 0);
const LOAD_RATE = Number(process.env.CDS_E2E_LOAD_RATE ?? 30);
const LOAD_MS = Number(process.env.CDS_E2E_LOAD_MS ?? 4_000);
/** Requests in flight at once in the rate-window test. */
const CONCURRENCY = Number(process.env.CDS_E2E_CONCURRENCY ?? 48);

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
async function inParallel<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

let e2e: E2E;
let probes: Probes;
let published = 0;
let recordsPublished = 0;
let projectionMs = 0;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  e2e = await startE2E({ gateways: 3, queries: 2, projectors: 2 });
  probes = await openProbes(e2e.infra.natsUrl, e2e.infra.mongoUrl);
  const runs = REAL_FILES.map(([source, file]) => ['backfill', '--source', source, '--file', join(FIXTURES, file)]);
  if (DEMO_YEARS > 0) runs.push(['backfill', '--demo', '--years', String(DEMO_YEARS)]);
  const start = Date.now();
  for (const args of runs) {
    const run = await e2e.ingest(args);
    expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    const counts = ingestCounts(run.stdout + run.stderr);
    published += counts.published;
    recordsPublished += counts.records;
  }
  projectionMs = await waitForProjections(probes.messaging, 240_000);
  figures.ingestAndProjectMs = Date.now() - start;
  figures.eventsPublished = published;
}, 420_000);

afterAll(async () => {
  console.info('replicas figures', JSON.stringify({ ...figures, projectionMs }, null, 1));
  await probes?.close();
  await e2e?.stop();
}, 60_000);

describe('three gateways, two query services, two projectors per projection', () => {
  it('keeps every account window exact across the gateways under concurrent load', async () => {
    const pro = await e2e.account('professional');
    const biz = await e2e.account('business');
    // Stay inside one UTC minute window (Redis's clock and ours agree to well under a second).
    const second = new Date().getUTCSeconds();
    if (second > 35) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const fallbacksBefore = await fallbackCount(e2e.system.gateways.map((g) => g.url));
    // Requests of both accounts interleaved, spread over the three gateways, CONCURRENCY in flight.
    const plan = [
      ...Array.from({ length: 160 }, (_, i) => ({ acc: 'pro' as const, i })),
      ...Array.from({ length: 620 }, (_, i) => ({ acc: 'biz' as const, i })),
    ].sort((a, b) => a.i - b.i);
    const results = await inParallel(plan, CONCURRENCY, ({ acc, i }) =>
      e2e.get(i % 2 === 0 ? '/api/v1/commodities?per_page=1' : '/api/v1/commodities/GOLD', {
        key: acc === 'pro' ? pro.key : biz.key,
        replica: i % 3,
      }),
    );
    const proRes = results.filter((_, j) => plan[j]!.acc === 'pro');
    const bizRes = results.filter((_, j) => plan[j]!.acc === 'biz');
    // The windows were decided by Redis throughout (no replica fell back to its local limiter).
    expect(await fallbackCount(e2e.system.gateways.map((g) => g.url))).toBe(fallbacksBefore);
    const check = (results: ApiResponse[], limit: number) => {
      const ok = results.filter((r) => r.status === 200);
      const limited = results.filter((r) => r.status === 429);
      expect(ok).toHaveLength(limit);
      expect(limited).toHaveLength(results.length - limit);
      for (const r of limited) expect(r.json.error.code).toBe('rate_limited');
      // Every admitted request saw a distinct remaining count: one shared window, no double counting.
      const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
      expect(remaining).toEqual(Array.from({ length: limit }, (_, i) => i));
    };
    check(proRes, 100);
    check(bizRes, 500);
    // Each gateway admitted some of each account: the windows really were shared.
    const admitted = (acc: 'pro' | 'biz') =>
      [0, 1, 2].map(
        (g) => results.filter((r, j) => plan[j]!.acc === acc && plan[j]!.i % 3 === g && r.status === 200).length,
      );
    figures.admittedPerGateway = { professional: admitted('pro'), business: admitted('biz') };
    for (const n of [...admitted('pro'), ...admitted('biz')]) expect(n).toBeGreaterThan(0);
  });

  it('revokes a key on every gateway while they are serving it', async () => {
    const acc = await e2e.account('enterprise');
    const urls = [0, 1, 2].map((i) => e2e.gatewayUrl(i));
    for (const replica of [0, 1, 2]) {
      await eventually(
        `key on gateway ${replica}`,
        async () => (await e2e.get('/api/v1/commodities', { key: acc.key, replica })).status === 200,
        5_000,
      );
    }
    // The load runs until it has served the key before the revocation and the 401s after it on
    // every gateway (at least LOAD_MS); `durationMs` is only a safety cap.
    const load = startLoad({
      urls,
      keys: [acc.key],
      paths: ['/api/v1/commodities?per_page=1', '/api/v1/commodities/GOLD'],
      ratePerSec: LOAD_RATE,
      durationMs: LOAD_MS + 30_000,
    });
    let waits: number[];
    let revokedAt: number;
    let adminMs: number;
    try {
      await new Promise((r) => setTimeout(r, Math.min(1_500, LOAD_MS / 3)));
      const requested = Date.now();
      const revoked = await e2e.admin('POST', `/keys/${acc.keyId}/revoke`);
      // The revocation is in effect once the admin API answered: the bound runs from there.
      revokedAt = Date.now();
      adminMs = revokedAt - requested;
      expect(revoked.status).toBe(200);
      waits = await Promise.all(
        [0, 1, 2].map((replica) =>
          eventually(
            `revocation on gateway ${replica}`,
            async () => (await e2e.get('/api/v1/commodities', { key: acc.key, replica })).status === 401,
            5_000,
          ),
        ),
      );
      // Keep serving the revoked key past the 1 s bound, and for LOAD_MS in all.
      const startedAt = load.snapshot().startedAt;
      await new Promise((r) => setTimeout(r, Math.max(1_500, startedAt + LOAD_MS - Date.now())));
    } finally {
      await load.stop();
    }
    const report = await load.done;
    const revokedRel = revokedAt - report.startedAt;
    expect(report.contractViolations).toEqual([]);
    expect(report.failures).toBe(0);
    expect(Object.keys(report.byStatus).sort()).toEqual(['200', '401']);
    // DECISIONS: a revoked key gets 401 from every replica within one second at worst.
    const lateOk = report.samples.filter((s) => s.status === 200 && s.at > revokedRel + 1_000);
    expect(lateOk).toEqual([]);
    expect(Math.max(...waits)).toBeLessThan(1_000);
    figures.revocation = { adminMs, pollMsPerGateway: waits, load: describeLoad(report) };
  }, 60_000);

  it('builds the read models with competing projectors exactly as a clean rebuild does', async () => {
    // Both projector processes run every projection, and between them they handled every event.
    const handled: number[] = [];
    for (const p of e2e.system.projectors) {
      const ready = (await (await fetch(`${p.url}/readyz`)).json()) as { projections: string[] };
      expect(ready.projections.sort()).toEqual(['catalog', 'cot', 'series', 'supply_demand']);
      const metrics = await (await fetch(`${p.url}/metrics`)).text();
      const events = [...metrics.matchAll(/^cds_projector_events_total\{[^}]*\} (\d+)$/gm)];
      handled.push(events.reduce((sum, m) => sum + Number(m[1]), 0));
    }
    figures.eventsHandledPerProjector = handled;
    const stream = await dataStreamState(probes.messaging);
    expect(stream.messages).toBe(published);

    const live = await readModelFingerprint(probes.db('cds'));
    const start = Date.now();
    await rebuildReference(e2e.infra.identities.nats.projector, e2e.infra.mongoUrl, 'cds_reference');
    figures.referenceRebuildMs = Date.now() - start;
    const reference = await readModelFingerprint(probes.db('cds_reference'));
    expect(live.models.catalog.documents).toBeGreaterThan(0);
    expect(live.seriesPoints).toBeGreaterThan(0);
    expect(live.cotReports).toBeGreaterThan(0);
    expect({ ...live, models: undefined }).toEqual({ ...reference, models: undefined });
    for (const name of ['catalog', 'series', 'cot'] as const) {
      expect(live.models[name].hash, name).toBe(reference.models[name].hash);
      expect(live.models[name].documents, name).toBe(reference.models[name].documents);
    }
    // Nothing was lost or stored twice on the way: every record the ingest published is stored once.
    expect(live.seriesPoints + live.cotReports).toBe(recordsPublished);
    figures.readModels = {
      hash: live.hash.slice(0, 16),
      documents: Object.fromEntries(Object.entries(live.models).map(([k, v]) => [k, v.documents])),
      seriesPoints: live.seriesPoints,
      cotReports: live.cotReports,
    };
  }, 240_000);

  it('answers the same from both query replicas', async () => {
    const acc = await e2e.account('enterprise');
    const paths = [
      '/api/v1/commodities?per_page=100',
      '/api/v1/commodities/GOLD',
      '/api/v1/commodities/GOLD/cot?start_date=2025-01-01',
      '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01&end_date=2022-12-31&frequency=weekly',
    ];
    for (const path of paths) {
      // Gateway 0 forwards to query 1 of 2, gateway 1 to query 2.
      const [a, b] = await Promise.all([0, 1].map((replica) => e2e.get(path, { key: acc.key, replica })));
      expect(a!.status, path).toBe(200);
      expect(b!.status, path).toBe(200);
      expect(a!.json.data, path).toEqual(b!.json.data);
    }
  });
});
