import { COLLECTIONS, type CotBucketDoc, type SeriesBucketDoc } from '@cds/read-models';
import { getTestInfra, uniqueName } from '@cds/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEXES } from './mongodb-adapter.ts';
import { registerPortContract } from './testing/port.contract.ts';
import { isFerretDB } from '../ferretdb.ts';
import { createReadModelStore } from './store.ts';

// The MongoDB adapter, forced, on the run's MongoDB API server. Without mongod on the machine that
// is FerretDB, which speaks the API: the contract checks the adapter's queries there for
// correctness (slowly: FerretDB 1.x pushes none of their filters down). The one thing FerretDB
// cannot give it is an atomic conditional replace, so the two-writer race runs on MongoDB only.
const onFerretDB = await (async () => {
  const client = await new MongoClient(getTestInfra().mongoUrl).connect();
  try {
    return await isFerretDB(client.db('admin'));
  } finally {
    await client.close();
  }
})();

registerPortContract('mongodb', (db, opts) => createReadModelStore(db, { ...opts, adapter: 'mongodb' }), {
  atomicReplace: !onFerretDB,
});

describe('MongoDB adapter: how it holds and asks', () => {
  let client: MongoClient;
  beforeAll(async () => {
    client = await new MongoClient(getTestInfra().mongoUrl).connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('drops the COT index it supersedes: a collection made before scopes takes a combined bucket beside a futures-only one', async () => {
    const db = client.db(uniqueName('mongo_adapter_upgrade'));
    // as the adapter indexed the cot collection before scopes
    await db
      .collection(COLLECTIONS.cot)
      .createIndex({ commodity_id: 1, format: 1, year: 1 }, { name: 'commodity_format_year', unique: true });
    const store = createReadModelStore(db, { adapter: 'mongodb', owner: 'native' });
    const cot = await store.collection<CotBucketDoc>('cot', COLLECTIONS.cot);
    const names = (await db.collection(COLLECTIONS.cot).listIndexes().toArray()).map((i) => i.name as string);
    expect(names).toContain('commodity_format_scope_year');
    expect(names).not.toContain('commodity_format_year');
    const bucket = (id: string, scope?: 'futures_and_options'): CotBucketDoc => ({
      _id: id,
      commodity_id: 'UPGRADE',
      format: 'legacy',
      ...(scope === undefined ? {} : { scope }),
      year: 2026,
      first_date: '2026-01-06',
      last_date: '2026-01-06',
      count: 1,
      reports: [{ report_date: '2026-01-06', open_interest: 1, groups: {} }],
      _meta: { position: 1, version: 1, rev: 1 },
    });
    await cot.compareAndSet([{ doc: bucket('UPGRADE:legacy:2026'), rev: null }]);
    await cot.compareAndSet([{ doc: bucket('UPGRADE:legacy_combined:2026', 'futures_and_options'), rev: null }]);
    expect(await db.collection(COLLECTIONS.cot).countDocuments({ commodity_id: 'UPGRADE' })).toBe(2);
  });

  it('keeps native arrays and creates the indexes its queries use', async () => {
    const db = client.db(uniqueName('mongo_adapter'));
    const store = createReadModelStore(db, { adapter: 'mongodb', owner: 'native' });
    const series = await store.collection<SeriesBucketDoc>('series', COLLECTIONS.series);
    const doc: SeriesBucketDoc = {
      _id: 'NATIVE:price:2024',
      commodity_id: 'NATIVE',
      type: 'price',
      year: 2024,
      frequency: 'daily',
      first_date: '2024-01-02',
      last_date: '2024-01-03',
      count: 2,
      points: [
        { d: '2024-01-02', v: 1 },
        { d: '2024-01-03', v: 2 },
      ],
      _meta: { position: 1, version: 1, rev: 1, parts: { '2024-01-02': 1, '2024-01-03': 1 } },
    };
    await series.compareAndSet([{ doc, rev: null }]);
    expect(await db.collection(COLLECTIONS.series).findOne({ _id: doc._id as never })).toEqual(doc);
    const names = (await db.collection(COLLECTIONS.series).listIndexes().toArray()).map((i) => i.name as string);
    expect(names).toEqual(expect.arrayContaining(INDEXES.series.map((i) => i.name)));
    for (const index of Object.values(INDEXES).flat()) expect(index.usedBy).not.toBe('');
  });
});
