import { getTestInfra, uniqueName } from '@cds/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLACES } from './mongodb-adapter.ts';
import { createWebhookStores } from './stores.ts';
import { registerWebhookContract } from './testing/port.contract.ts';

// The MongoDB adapter, forced, on the run's MongoDB API server. Without mongod on the machine that
// is FerretDB, which speaks the API: the contract checks the adapter there for correctness. The
// one thing FerretDB cannot give it is an update whose filter holds atomically with the write, so
// the races (two claimants, creates past the count) run on MongoDB only.
const onFerretDB = getTestInfra().mongoFlavor === 'ferretdb';

registerWebhookContract('mongodb', (db, opts) => createWebhookStores(db, { ...opts, adapter: 'mongodb' }), {
  atomicUpdates: !onFerretDB,
  claimsPerLease: 0,
});

describe('MongoDB adapter: how it holds', () => {
  let client: MongoClient;
  beforeAll(async () => {
    client = await new MongoClient(getTestInfra().mongoUrl).connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('keeps leases in the deliveries and places in one document per account, and no claims', async () => {
    const db = client.db(uniqueName('wh_mongo_holds'));
    const store = await createWebhookStores(db, {
      adapter: 'mongodb',
      retry: { baseMs: 1_000, maxMs: 60_000 },
      retryForMs: 86_400_000,
      disableAfterMs: 3 * 86_400_000,
      owner: 'holds',
    });
    expect(store.adapter).toBe('mongodb');
    const input = { url: 'https://hooks.example.com/cds', commodities: null, types: null, enabled: true };
    const a = await store.createEndpoint('acc_h', 'h@example.com', input);
    const b = await store.createEndpoint('acc_h', 'h@example.com', input);
    if (a === 'limit_reached' || b === 'limit_reached') throw new Error('limit');
    expect(await db.collection(PLACES).findOne({ _id: 'acc_h' as never })).toEqual({
      _id: 'acc_h',
      endpoints: [a.endpoint.id, b.endpoint.id],
    });
    await store.enqueue([a.endpoint], {
      id: `evt_${'1'.padStart(32, '0')}`,
      type: 'series.updated',
      data: {
        commodity: 'GOLD',
        topic: 'price',
        series_type: 'price',
        first_date: '2026-11-02',
        newest_date: '2026-11-02',
        landed_at: new Date().toISOString(),
        url: 'https://api.example.com/api/v1/commodities/GOLD/series?type=price',
      },
    });
    const [claim] = await store.claimDue(1);
    expect(claim).toMatchObject({ lease: 1, delivery: { status: 'delivering', attempts: 1 } });
    expect(await db.collection('deliveries').findOne({ _id: claim!.delivery.id as never })).toMatchObject({
      lease: 1,
      lease_owner: 'holds',
      lease_until: claim!.leaseUntil,
    });
    expect(await db.collection('claims').countDocuments()).toBe(0);
    expect(await store.deleteEndpoint('acc_h', a.endpoint.id)).toBe(true);
    expect(await db.collection(PLACES).findOne({ _id: 'acc_h' as never })).toEqual({
      _id: 'acc_h',
      endpoints: [b.endpoint.id],
    });
    await store.deleteAccount('acc_h');
    expect(await db.collection(PLACES).countDocuments()).toBe(0);
  });
});
