// Upgrading a running system to point in time (issue #25, docs/operations.md "Upgrading to point in
// time"): a system holding data from before versions were kept (events without `published_at`, read
// models without releases or versions) keeps answering while the projector's `rebuild` replays the
// streams into new collections and switches the aliases; afterwards the same data is served, now
// with publication times (estimated for the old events: their ingest time, and the COT release
// calendar), and `as_of` works on it, including a Thanksgiving week's shifted COT release.
import { setTimeout as sleep } from 'node:timers/promises';
import { subjectFor, type DataEvent } from '@cds/contracts';
import { connectMessaging } from '@cds/messaging';
import { COLLECTIONS, activeCollection, type ReadModelAliasDoc } from '@cds/read-models';
import { createReadModelStore } from '@cds/store';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from './support/harness.ts';
import { READ_MODELS } from './support/read-model-hash.ts';
import { runRebuild, waitForProjections } from './support/projections.ts';

const CORN = '/api/v1/commodities/CORN/series?type=price&start_date=2024-01-01&end_date=2024-12-31';
const GOLD_COT = '/api/v1/commodities/GOLD/cot?format=legacy&start_date=2024-11-01&end_date=2024-12-31';
/** When the previous release's ingest published the old events (their only publication time). */
const OLD_INGEST = '2025-01-15T12:00:00.000Z';

let e2e: E2E;
let key: string;
let mongo: MongoClient;

const group = (long: number, short: number) => ({ long, short });
/** Events as the ingest published them before point in time: no `published_at` anywhere. */
function oldEvents(): DataEvent[] {
  const series: DataEvent = {
    id: 'upgrade-test:series:CORN:2024',
    type: 'series.points.recorded',
    version: 1,
    occurred_at: OLD_INGEST,
    source: 'upgrade-test',
    data: {
      commodity_id: 'CORN',
      series_type: 'price',
      frequency: 'monthly',
      unit: 'USD/bu',
      source: 'nass:CORN, GRAIN - PRICE RECEIVED, MEASURED IN $ / BU',
      period: '2024',
      points: [
        { date: '2024-09-30', value: 3.9 },
        { date: '2024-10-31', value: 4.05 },
        { date: '2024-11-30', value: 4.1 },
      ],
    },
  };
  const report = (date: string, oi: number) => ({
    report_date: date,
    open_interest: oi,
    commercial: group(100_000 + oi / 10, 200_000),
    non_commercial: { long: 250_000, short: 90_000, spreading: 40_000 },
    non_reportable: group(30_000, 25_000),
  });
  const cot: DataEvent = {
    id: 'upgrade-test:cot:GOLD:2024',
    type: 'cot.reports.recorded',
    version: 1,
    occurred_at: OLD_INGEST,
    source: 'upgrade-test',
    data: {
      commodity_id: 'GOLD',
      format: 'legacy',
      source: 'cftc:legacy:088691',
      // 2024-11-26 is Thanksgiving week: its release moved from Friday 29 to Monday 2 December
      reports: [report('2024-11-19', 500_000), report('2024-11-26', 510_000), report('2024-12-03', 520_000)],
    },
  };
  return [series, cot];
}

/** The previous release's documents: the same documents without versions, releases and first publication. */
async function downgradeReadModels(): Promise<void> {
  const db = mongo.db('cds');
  const store = createReadModelStore(db);
  const aliases = await db.collection<ReadModelAliasDoc>(COLLECTIONS.aliases).find({}).toArray();
  for (const name of READ_MODELS) {
    const physical = activeCollection(
      name,
      aliases.find((a) => a._id === name),
    );
    const ids = (
      await db
        .collection(physical)
        .find({}, { projection: { _id: 1 } })
        .toArray()
    ).map((d) => String(d._id));
    const collection = await store.active<
      Record<string, unknown> & { _id: string; _meta: { position: number; version: number; rev?: number } }
    >(name);
    const docs = await collection.load(ids);
    const writes = docs.map((doc) => {
      const old: Record<string, unknown> = { ...doc };
      delete old.releases;
      delete old.revised;
      for (const field of ['points', 'reports'] as const) {
        if (Array.isArray(old[field])) old[field] = (old[field] as { r?: number }[]).map(({ r: _r, ...rest }) => rest);
      }
      if (old.series !== undefined) {
        old.series = Object.fromEntries(
          Object.entries(old.series as Record<string, Record<string, unknown>>).map(([k, d]) => {
            const { first_published_at: _f, ...rest } = d;
            return [k, rest];
          }),
        );
      }
      return { doc: old as typeof doc, rev: doc._meta.rev };
    });
    const result = await collection.compareAndSet(writes);
    expect(result.conflicts, name).toBe(0);
  }
}

/** The values of an answer, without what the upgrade adds (publication fields) or varies (meta). */
function values(body: { data: Record<string, unknown>[] }): unknown[] {
  return body.data.map((item) => {
    const { published_at: _p, first_seen_at: _f, published_at_estimated: _e, ...rest } = item;
    return rest;
  });
}

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  // the catalog, as the ingest publishes it with any backfill (and today's events, with publication times)
  const run = await e2e.ingest([
    'backfill',
    '--source',
    'cftc-legacy',
    '--file',
    '/work/shared/fixtures/real/cftc_legacy_fut_annual_2025_excerpt.txt',
    '--quiet',
  ]);
  expect(run.code, run.stderr + run.stdout).toBe(0);
  const messaging = await connectMessaging({ servers: e2e.infra.identities.nats.ingest, name: 'upgrade-e2e' });
  try {
    for (const event of oldEvents()) {
      await messaging.js.publish(subjectFor(event), JSON.stringify(event), { msgID: event.id, timeout: 5_000 });
    }
  } finally {
    await messaging.close();
  }
  const probe = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'upgrade-e2e-probe' });
  try {
    await waitForProjections(probe, 120_000);
  } finally {
    await probe.close();
  }
  mongo = new MongoClient(e2e.infra.mongoUrl, { serverSelectionTimeoutMS: 5_000 });
  await mongo.connect();
  key = (await e2e.account('enterprise')).key;
  await downgradeReadModels();
}, 300_000);

afterAll(async () => {
  await mongo?.close();
  await e2e?.stop();
});

describe('upgrading a running system to point in time', () => {
  it('before: data served, as_of refused (a 400 naming as_of, never today’s data); during the rebuild: always served; after: as_of works', async () => {
    // the query caches answers; let what the downgrade replaced expire from the alias cache
    await sleep(1_500);
    const corn = await e2e.get(CORN, { key });
    expect(corn.status, corn.text).toBe(200);
    const cot = await e2e.get(GOLD_COT, { key });
    expect(cot.status, cot.text).toBe(200);
    const before = { corn: values(corn.json), cot: values(cot.json) };
    expect(before.corn).toHaveLength(3);
    expect(before.cot).toHaveLength(3);
    const refused = await e2e.get(`${CORN}&as_of=2025-06-01`, { key });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.error.param).toBe('as_of');

    // readers all along the rebuild: every answer a 200 with the same values
    let reading = true;
    const seen: { status: number; same: boolean }[] = [];
    const reader = (async () => {
      while (reading) {
        for (const [path, expected] of [
          [CORN, before.corn],
          [GOLD_COT, before.cot],
        ] as const) {
          const res = await e2e.get(path, { key });
          seen.push({
            status: res.status,
            same: res.status === 200 && JSON.stringify(values(res.json)) === JSON.stringify(expected),
          });
        }
        // two reads every 300 ms: well within the Enterprise plan's 1,000 a minute
        await sleep(300);
      }
    })();
    const started = Date.now();
    // The read models are disjoint collections: rebuilt side by side, as an operator upgrading may
    // (each rebuild mostly waits: the replay's idle time, the alias cache, the old collection's grace).
    const target = { natsUrl: e2e.infra.identities.nats.projector, mongoUrl: e2e.infra.mongoUrl, db: 'cds' };
    const runs = await Promise.all(
      READ_MODELS.map(async (projection) => ({ projection, ...(await runRebuild(projection, target)) })),
    );
    const rebuildMs = Date.now() - started;
    reading = false;
    await reader;
    for (const r of runs) expect(r.code, `${r.projection}: ${r.out}`).toBe(0);
    console.log(
      `upgrade: rebuilt ${READ_MODELS.join(', ')} in ${rebuildMs} ms while serving ${seen.length} reads ` +
        `(${seen.filter((s) => s.status === 200).length} answered 200)`,
    );
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.filter((s) => s.status !== 200)).toEqual([]);
    expect(seen.filter((s) => !s.same)).toEqual([]);

    // after the switch: publication times, estimated for the old events
    await sleep(1_500);
    // another URL than the readers': no cache in front of it holds a pre-upgrade answer
    const after = await e2e.get(`${CORN}&limit=100`, { key });
    expect(values(after.json)).toEqual(before.corn);
    for (const p of after.json.data) {
      expect(p).toMatchObject({ published_at: OLD_INGEST, first_seen_at: OLD_INGEST, published_at_estimated: true });
    }
    const early = await e2e.get(`${CORN}&as_of=2025-01-15T11:59:59Z`, { key });
    expect(early.status).toBe(400);
    expect(early.json.error.param).toBe('as_of');
    const then = await e2e.get(`${CORN}&as_of=2025-06-01`, { key });
    expect(then.status, then.text).toBe(200);
    expect(values(then.json)).toEqual(before.corn);
  });

  it('old COT events get the release calendar: the Thanksgiving week report exists from Monday 15:30 New York', async () => {
    const friday = await e2e.get(`${GOLD_COT}&as_of=2024-11-29T23:00:00Z`, { key });
    expect(friday.status, friday.text).toBe(200);
    expect(friday.json.data.map((r: { report_date: string }) => r.report_date)).toEqual(['2024-11-19']);
    const monday = await e2e.get(`${GOLD_COT}&as_of=2024-12-02T20:31:00Z`, { key });
    expect(monday.json.data[0]).toMatchObject({
      report_date: '2024-11-26',
      published_at: '2024-12-02T20:30:00.000Z',
      published_at_estimated: true,
    });
  });
});
