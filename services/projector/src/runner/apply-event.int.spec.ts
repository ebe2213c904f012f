import type { DataEvent } from '@cds/contracts';
import type { CotBucketDoc, SeriesBucketDoc } from '@cds/read-models';
import { getTestInfra, uniqueName } from '@cds/testkit';
import {
  claimsCollectionName,
  createReadModelStore,
  unpackSeriesBucket,
  type FerretDbOptions,
  type ReadModelDoc,
} from '@cds/store';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogProjection, cotProjection, seriesProjection, type CatalogState } from '../projections/index.ts';
import { commodityUpserted, cotRecorded, foldEvents, seriesRecorded } from '../testing/events.ts';
import { readCotBuckets, readSeriesBucket } from '../testing/stored.ts';
import { applyEvent, applyEventOnce, applyEvents, createDocCache } from './apply-event.ts';

let client: MongoClient;

beforeAll(async () => {
  client = await new MongoClient(getTestInfra().mongoUrl).connect();
});
afterAll(async () => {
  await client?.close();
});

/** The read model `name` in its default collection of `db`, as one writer (`owner`) sees it through the port. */
async function writer<D extends ReadModelDoc>(
  db: Db,
  name: 'catalog' | 'series' | 'cot',
  owner = 'spec',
  ferretdb?: FerretDbOptions,
) {
  const store = createReadModelStore(db, { owner, ...(ferretdb === undefined ? {} : { ferretdb }) });
  return { coll: await store.collection<D>(name, name), adapter: await store.adapter() };
}

function stripRev<D extends { _meta: { rev?: number } }>(doc: D): D {
  const { rev: _rev, ...meta } = doc._meta;
  return { ...doc, _meta: meta };
}

describe('applyEvent on the MongoDB API (FerretDB in tests)', () => {
  it('applies, then ignores the same event (redelivery) with no write', async () => {
    const db = client.db(uniqueName('apply_idem'));
    const { coll, adapter } = await writer<SeriesBucketDoc>(db, 'series');
    const raw = db.collection('series');
    const e = seriesRecorded('IDEM_OATS', [
      ['2022-03-01', 1],
      ['2022-03-02', 2],
    ]);
    expect(await applyEvent(coll, seriesProjection, e, 5)).toEqual({ outcome: 'applied', written: 1, conflicts: 0 });
    const stored = await raw.findOne({ _id: 'IDEM_OATS:price:2022' as never });
    expect(await applyEvent(coll, seriesProjection, e, 5)).toEqual({ outcome: 'ignored', written: 0, conflicts: 0 });
    expect(await raw.findOne({ _id: 'IDEM_OATS:price:2022' as never })).toEqual(stored);
    expect(stored!._meta).toMatchObject({ position: 5, rev: 1 });
    // The FerretDB adapter stores it packed (see PackedSeriesBucketDoc): one string, not an array of objects.
    expect(adapter).toBe('ferretdb');
    expect(typeof stored!.points_json).toBe('string');
    expect(unpackSeriesBucket(stored as never).points).toEqual([
      { d: '2022-03-01', v: 1, r: 0 },
      { d: '2022-03-02', v: 2, r: 0 },
    ]);
    expect(stored).not.toHaveProperty('points');
  });

  it('writes a cot batch of 1000 weekly reports into yearly buckets in one bulk upsert and replays it as a no-op', async () => {
    const db = client.db(uniqueName('apply_cot'));
    const { coll } = await writer<CotBucketDoc>(db, 'cot');
    const reports: [string, number][] = Array.from({ length: 1000 }, (_, i) => [
      new Date(Date.UTC(2000, 0, 4 + 7 * i)).toISOString().slice(0, 10),
      i,
    ]);
    const e = cotRecorded('BULK_SOY', reports);
    const years = new Set(reports.map(([d]) => d.slice(0, 4))).size;
    expect(await applyEvent(coll, cotProjection, e, 9)).toMatchObject({ outcome: 'applied', written: years });
    const buckets = await readCotBuckets(db, 'cot', { commodity_id: 'BULK_SOY' });
    expect(buckets).toHaveLength(years);
    expect(buckets.reduce((n, b) => n + b.count, 0)).toBe(1000);
    expect(buckets.every((b) => b.reports.every((r) => r.report_date.startsWith(String(b.year))))).toBe(true);
    expect(await applyEvent(coll, cotProjection, e, 9)).toMatchObject({ outcome: 'ignored', written: 0 });
  });

  it('replaces 300 documents in one batch, then answers the next query (no update command big enough to starve the server)', async () => {
    // FerretDB 1.24 holds a pooled connection per statement of an update command until the command
    // ends (100 in its pool): one bulk replace of 300 documents used to stall the server for good.
    const db = client.db(uniqueName('apply_wide'));
    const { coll } = await writer<SeriesBucketDoc>(db, 'series', 'wide');
    const opts = {};
    const commodities = Array.from({ length: 30 }, (_, i) => `WIDE_C${i}`);
    const batch = (day: string, first: number) =>
      commodities.flatMap((c, i) =>
        Array.from({ length: 10 }, (_, y) => ({
          event: seriesRecorded(c, [[`${2010 + y}-${day}`, i + y]]),
          position: first + i * 10 + y,
        })),
      );
    expect(await applyEvents(coll, seriesProjection, batch('01-04', 1), opts)).toMatchObject({ written: 300 });
    const second = await applyEvents(coll, seriesProjection, batch('01-05', 301), opts);
    expect(second).toMatchObject({ outcome: 'applied', written: 300, conflicts: 0 });
    expect(second.changedBy.size).toBe(300);
    const doc = await readSeriesBucket(db, 'series', 'WIDE_C29:price:2019');
    expect(doc!.points.map((p) => p.d)).toEqual(['2019-01-04', '2019-01-05']);
    expect(doc!._meta.rev).toBe(2);
  }, 60_000);

  it('a writer with a stale cached document (another writer moved it on) reads it afresh and loses nothing', async () => {
    const db = client.db(uniqueName('apply_cache'));
    const collA = (await writer<SeriesBucketDoc>(db, 'series', 'cached-a')).coll;
    const collB = (await writer<SeriesBucketDoc>(db, 'series', 'plain-b')).coll;
    const cache = createDocCache<SeriesBucketDoc>();
    const a = { cache };
    const id = 'CACHE_OATS:price:2021';
    await applyEvent(collA, seriesProjection, seriesRecorded('CACHE_OATS', [['2021-02-01', 1]]), 1, a);
    expect(cache.get(id)!._meta.rev).toBe(1);
    await applyEvent(collB, seriesProjection, seriesRecorded('CACHE_OATS', [['2021-02-02', 2]]), 2);
    // A folds onto its cached revision 1: the write is refused, the entry dropped, and the retry reads revision 2.
    const third = await applyEvent(collA, seriesProjection, seriesRecorded('CACHE_OATS', [['2021-02-03', 3]]), 3, a);
    expect(third).toMatchObject({ outcome: 'applied', written: 1, conflicts: 1 });
    const stored = await readSeriesBucket(db, 'series', id);
    expect(stored!.points.map((p) => p.d)).toEqual(['2021-02-01', '2021-02-02', '2021-02-03']);
    expect(stored!._meta.rev).toBe(3);
    expect(cache.get(id)).toEqual(stored);
  });

  it('detects a concurrent write as a conflict (compare-and-set on _meta.rev) and folds again', async () => {
    const db = client.db(uniqueName('apply_cas'));
    const { coll } = await writer<CatalogState>(db, 'catalog', 'writer-a');
    const collB = (await writer<CatalogState>(db, 'catalog', 'writer-b')).coll;
    await applyEvent(coll, catalogProjection, commodityUpserted('CAS_RICE', 'Rice'), 1);
    // Another writer bumps the document between our read and write: simulate by racing two applies.
    const a = seriesRecorded('CAS_RICE', [['2020-01-01', 1]], { type: 'price' });
    const b = seriesRecorded('CAS_RICE', [['2021-05-01', 1]], { type: 'volume', period: '2021' });
    // Each racer is its own writer (own claims owner where the server needs claims).
    const [ra, rb] = await Promise.all([
      applyEventOnce(coll, catalogProjection, a, 2),
      applyEventOnce(collB, catalogProjection, b, 3),
    ]);
    // Both read rev 1; exactly one compare-and-set wins unless the two did not overlap.
    const outcomes = [ra.outcome, rb.outcome].sort();
    expect(['applied,applied', 'applied,conflict']).toContain(outcomes.join(','));
    for (const [r, e, p] of [
      [ra, a, 2],
      [rb, b, 3],
    ] as const) {
      if (r.outcome === 'conflict') expect((await applyEvent(coll, catalogProjection, e, p)).outcome).toBe('applied');
    }
    const doc = await db.collection<CatalogState>('catalog').findOne({ _id: 'CAS_RICE' });
    expect(Object.keys(doc!.series).sort()).toEqual(['price', 'volume']);
  });

  it('a write from a stale read is a conflict, and a claim left by a dead writer is taken over after its lease', async () => {
    const db = client.db(uniqueName('apply_stale'));
    let now = 1_000_000;
    const { coll } = await writer<SeriesBucketDoc>(db, 'series', 'live', { leaseMs: 10_000, now: () => now });
    const raw = db.collection<SeriesBucketDoc>('series');
    await applyEvent(coll, seriesProjection, seriesRecorded('STALE_OATS', [['2022-01-03', 1]]), 1);
    const id = 'STALE_OATS:price:2022';
    // A dead writer's claim on revision 1: the first attempt cannot write, a later one takes over.
    const claims = db.collection<{ _id: string; owner: string; at: number }>(claimsCollectionName('series'));
    await claims.insertOne({ _id: `${id}#1`, owner: 'dead', at: now - 1_000 });
    const e2 = seriesRecorded('STALE_OATS', [['2022-01-04', 2]]);
    expect((await applyEventOnce(coll, seriesProjection, e2, 2)).outcome).toBe('conflict');
    now += 20_000;
    expect((await applyEventOnce(coll, seriesProjection, e2, 2)).outcome).toBe('conflict');
    expect(await applyEvent(coll, seriesProjection, e2, 2)).toMatchObject({ outcome: 'applied' });
    expect(await claims.countDocuments({})).toBe(0);
    // Someone bumps the revision behind our back: a compare-and-set on the old revision matches nothing.
    await raw.updateOne({ _id: id }, { $set: { '_meta.rev': 99 } });
    const raced = await raw.bulkWrite([
      {
        replaceOne: {
          filter: { _id: id, '_meta.rev': 2 },
          replacement: { ...(await raw.findOne({ _id: id }))!, count: -1 },
        },
      },
    ]);
    expect(raced.matchedCount).toBe(0);
    expect((await readSeriesBucket(db, 'series', id))!.points.map((p) => p.d)).toEqual(['2022-01-03', '2022-01-04']);
  });

  it('two racing replicas applying the same events in different orders converge to the in-order result', async () => {
    const db = client.db(uniqueName('apply_race'));
    const catalog = db.collection<CatalogState>('catalog');
    const events: [DataEvent, number][] = [];
    let pos = 1;
    events.push([commodityUpserted('RACE_COPPER', 'Copper v1'), pos++]);
    for (let i = 0; i < 30; i++) {
      // Overlapping dates: later events restate some dates of earlier ones.
      const pts: [string, number][] = [0, 1, 2].map((k) => [
        new Date(Date.UTC(2019, 0, 1 + i * 2 + k)).toISOString().slice(0, 10),
        i * 10 + k,
      ]);
      // Each restatement ingested (so published, without published_at) after the one before:
      // versions are ordered by publication time (versions.ts), not by stream position.
      const occurredAt = new Date(Date.UTC(2024, 5, 1, 0, i)).toISOString();
      events.push([seriesRecorded('RACE_COPPER', pts, { occurredAt }), pos++]);
    }
    events.push([commodityUpserted('RACE_COPPER', 'Copper v2'), pos]);
    // Replica 1 takes the even positions, replica 2 the odd ones, each in reverse order: the worst
    // interleaving of a shared durable consumer with redeliveries.
    const replica = (parity: number) => async () => {
      const series = (await writer<SeriesBucketDoc>(db, 'series', `replica-${parity}`)).coll;
      const catalogs = (await writer<CatalogState>(db, 'catalog', `replica-${parity}`)).coll;
      for (const [e, p] of [...events].reverse()) {
        if (p % 2 !== parity) continue;
        await applyEvent(series, seriesProjection, e, p);
        await applyEvent(catalogs, catalogProjection, e, p);
      }
    };
    await Promise.all([replica(0)(), replica(1)()]);
    const expectedSeries = foldEvents(seriesProjection, events);
    const expectedCatalog = foldEvents(catalogProjection, events);
    const bucket = await readSeriesBucket(db, 'series', 'RACE_COPPER:price:2019');
    expect(stripRev(bucket!)).toEqual(expectedSeries.get('RACE_COPPER:price:2019'));
    expect(stripRev((await catalog.findOne({ _id: 'RACE_COPPER' }))!)).toEqual(expectedCatalog.get('RACE_COPPER'));
    expect(bucket!.count).toBe(61);
  });
});
