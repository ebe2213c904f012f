import { getTestInfra, uniqueName } from '@cds/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIMS } from './ferretdb-adapter.ts';
import { createWebhookStores } from './stores.ts';
import { registerWebhookContract } from './testing/port.contract.ts';

// The FerretDB adapter on the run's MongoDB API server (FerretDB on machines without mongod; on
// MongoDB it is correct too). Its claim documents make every race exclusive on either.
registerWebhookContract('ferretdb', (db, opts) => createWebhookStores(db, { ...opts, adapter: 'ferretdb' }), {
  atomicUpdates: true,
  claimsPerLease: 1,
});

describe('FerretDB adapter: how it holds', () => {
  let client: MongoClient;
  beforeAll(async () => {
    client = await new MongoClient(getTestInfra().mongoUrl).connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('takes an endpoint place, a lease and a disabling by inserting a claim with a unique `_id`', async () => {
    let now = Date.parse('2026-11-02T12:00:00Z');
    const db = client.db(uniqueName('wh_ferret_claims'));
    const store = await createWebhookStores(db, {
      adapter: 'ferretdb',
      clock: () => now,
      retry: { baseMs: 1_000, maxMs: 60_000 },
      retryForMs: 10 * 86_400_000,
      disableAfterMs: 1_000,
      owner: 'claims',
    });
    expect(store.adapter).toBe('ferretdb');
    const created = await store.createEndpoint('acc_c', 'c@example.com', {
      url: 'https://hooks.example.com/cds',
      commodities: null,
      types: null,
      enabled: true,
    });
    if (created === 'limit_reached') throw new Error('limit');
    const id = created.endpoint.id;
    const notification = (n: number) => ({
      id: `evt_${String(n).padStart(32, '0')}`,
      type: 'series.updated' as const,
      data: {
        commodity: 'GOLD',
        topic: 'price' as const,
        series_type: 'price' as const,
        first_date: '2026-11-02',
        newest_date: '2026-11-02',
        landed_at: new Date(now).toISOString(),
        url: 'https://api.example.com/api/v1/commodities/GOLD/series?type=price',
      },
    });
    const failure = () => ({
      at: new Date(now),
      outcome: 'http_error' as const,
      status_code: 500,
      error: 'HTTP 500',
      duration_ms: 1,
    });
    // Two attempts of one delivery, the second past disableAfterMs into the failing run.
    await store.enqueue([created.endpoint], notification(1));
    for (const attempt of [1, 2]) {
      const [claim] = await store.claimDue(1);
      expect(claim?.lease).toBe(attempt);
      const recorded = await store.recordAttempt(claim!, failure());
      if (recorded === 'lease_lost') throw new Error('lease lost');
      expect(recorded.endpointDisabled).toBe(attempt === 2);
      now += 2_000;
    }
    const ids = (await db.collection(CLAIMS).find({}).toArray()).map((c) => c._id as unknown as string).sort();
    const delivery = `${id}:${notification(1).id}`;
    expect(ids).toEqual(
      [
        `acc_c#endpoint-place-0`,
        `${delivery}#1`,
        `${delivery}#2`,
        `disable:${id}:${Date.parse('2026-11-02T12:00:00Z')}`,
      ].sort(),
    );
    // Deleting the endpoint frees its place with its claims.
    expect(await store.deleteEndpoint('acc_c', id)).toBe(true);
    expect(await db.collection(CLAIMS).countDocuments()).toBe(0);
  });
});
