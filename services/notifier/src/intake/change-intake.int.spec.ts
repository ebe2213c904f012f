// The intake against a NATS server of its own (CDS_CHANGES has a fixed name) and the test database:
// each change enqueues one delivery per matching endpoint before it is acked, a change seen again
// enqueues nothing more, a failing enqueue is retried in place (nothing lost), poison is skipped.
import { changesSubject, type ChangeRecord, type Plan } from '@cds/contracts';
import { connectMessaging, type Messaging, type RunningConsumer } from '@cds/messaging';
import { connectStore, type Store } from '@cds/store';
import { createLogger } from '@cds/telemetry';
import { getTestInfra, startNats, uniqueName, waitUntil, type NatsHandle } from '@cds/testkit';
import { createWebhookStores, type WebhookQueue, type WebhookStores } from '@cds/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotifierMetrics } from '../metrics.ts';
import { startChangeIntake } from './change-intake.ts';

let nats: NatsHandle;
let messaging: Messaging;
let mongo: Store;
let store: WebhookStores;
let intake: RunningConsumer | undefined;
const logger = createLogger({ name: 'intake-int', level: 'silent' });
const metrics = createNotifierMetrics();
let wakes = 0;
/** Account plans as the key stream would give them (acc_j and unknown accounts: free). */
const plans = new Map<string, Plan>([
  ['acc_i', 'professional'],
  ['acc_f', 'free'],
]);
/** Enqueue calls that fail before reaching the store (a database outage). */
let failNextEnqueues = 0;

const until = (label: string, probe: () => Promise<boolean>, timeoutMs = 15_000) =>
  waitUntil(
    label,
    async () => {
      if (!(await probe())) throw new Error(`${label}: not yet`);
    },
    timeoutMs,
  );

let n = 0;
function change(commodity: string, topic: 'price' | 'cot_legacy'): ChangeRecord {
  n += 1;
  return {
    id: `evt_${n.toString(16).padStart(32, '0')}`,
    type: topic === 'price' ? 'series.updated' : 'cot.updated',
    commodity,
    topic,
    ...(topic === 'price' ? { series_type: 'price' as const } : { format: 'legacy' as const }),
    first_date: '2026-10-27',
    newest_date: '2026-10-30',
    landed_at: '2026-11-02T12:00:00.000Z',
    path: `/api/v1/commodities/${commodity}/series?type=price&start_date=2026-10-27&end_date=2026-10-30`,
  };
}

const publish = (record: unknown, subject: string, msgID: string) =>
  messaging.publish(subject, record, { msgID, expectStream: 'CDS_CHANGES' });

beforeAll(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'intake-int' });
  mongo = await connectStore({ url: getTestInfra().mongoUrl, appName: 'intake-int' });
  store = await createWebhookStores(mongo.db(uniqueName('intake')), {
    retry: { baseMs: 1_000, maxMs: 60_000 },
    retryForMs: 86_400_000,
    disableAfterMs: 3 * 86_400_000,
  });
  const queue: Pick<WebhookQueue, 'matchingEndpoints' | 'enqueue'> = {
    matchingEndpoints: (c) => store.matchingEndpoints(c),
    enqueue: (endpoints, notification) => {
      if (failNextEnqueues > 0) {
        failNextEnqueues -= 1;
        return Promise.reject(new Error('database unavailable (injected)'));
      }
      return store.enqueue(endpoints, notification);
    },
  };
  intake = await startChangeIntake({
    messaging,
    queue,
    logger,
    metrics,
    publicOrigin: 'https://api.example.com',
    planOf: (accountId) => plans.get(accountId),
    replicas: 1,
    onEnqueued: () => (wakes += 1),
    ackWaitMs: 5_000,
  });
}, 60_000);

afterAll(async () => {
  await intake?.stop();
  await messaging?.close();
  await mongo?.close();
  await nats?.stop();
});

describe('change intake', () => {
  it('tells an endpoint only of topics its account plan may read', async () => {
    const endpoint = async (accountId: string) => {
      const r = await store.createEndpoint(accountId, 'p@example.com', {
        url: 'https://hooks.example.com/p',
        commodities: ['SILVER'],
        types: null,
        enabled: true,
      });
      if (r === 'limit_reached') throw new Error('limit');
      return r.endpoint.id;
    };
    const free = await endpoint('acc_f');
    const unknown = await endpoint('acc_unknown');
    const professional = await endpoint('acc_i');
    const cotChange = change('SILVER', 'cot_legacy');
    await publish(cotChange, changesSubject('cot_legacy', 'SILVER'), cotChange.id);
    const priceChange = change('SILVER', 'price');
    await publish(priceChange, changesSubject('price', 'SILVER'), priceChange.id);
    const events = async (accountId: string, id: string) =>
      (await store.listDeliveries(accountId, id)).map((d) => d.event_id).sort();
    // The price change comes after the COT one: once all three have it, the COT one was decided.
    await until('price change enqueued for all three', async () =>
      (await Promise.all([events('acc_f', free), events('acc_unknown', unknown), events('acc_i', professional)])).every(
        (ids) => ids.includes(priceChange.id),
      ),
    );
    expect(await events('acc_f', free)).toEqual([priceChange.id]);
    expect(await events('acc_unknown', unknown)).toEqual([priceChange.id]);
    expect(await events('acc_i', professional)).toEqual([cotChange.id, priceChange.id].sort());
  });

  it('enqueues one delivery per matching endpoint, with the public URL; a change seen again adds nothing', async () => {
    const make = async (commodities: string[] | null, types: ('price' | 'cot_legacy')[] | null) => {
      const r = await store.createEndpoint('acc_i', 'i@example.com', {
        url: 'https://hooks.example.com/x',
        commodities,
        types,
        enabled: true,
      });
      if (r === 'limit_reached') throw new Error('limit');
      return r.endpoint.id;
    };
    const gold = await make(['GOLD'], null);
    const cot = await make(null, ['cot_legacy']);
    const record = change('GOLD', 'price');
    const wakesBefore = wakes;
    await publish(record, changesSubject('price', 'GOLD'), record.id);
    await until('GOLD delivery enqueued', async () => (await store.listDeliveries('acc_i', gold)).length === 1);
    const [delivery] = await store.listDeliveries('acc_i', gold);
    expect(delivery).toMatchObject({ id: `${gold}:${record.id}`, event_id: record.id, status: 'pending' });
    expect(delivery!.notification.data.url).toBe(`https://api.example.com${record.path}`);
    expect(await store.listDeliveries('acc_i', cot)).toEqual([]);
    expect(wakes).toBeGreaterThan(wakesBefore);
    // The same change delivered again (another message id, as after a redelivery): nothing new.
    await publish(record, changesSubject('price', 'GOLD'), `${record.id}-again`);
    const marker = change('GOLD', 'cot_legacy');
    await publish(marker, changesSubject('cot_legacy', 'GOLD'), marker.id);
    await until('marker enqueued', async () => (await store.listDeliveries('acc_i', cot)).length === 1);
    expect(await store.listDeliveries('acc_i', gold)).toHaveLength(2);
    expect((await store.listDeliveries('acc_i', gold)).filter((d) => d.event_id === record.id)).toHaveLength(1);
  });

  it('retries a change whose enqueue failed (nothing is acked before it lands) and skips poison', async () => {
    const r = await store.createEndpoint('acc_j', 'j@example.com', {
      url: 'https://hooks.example.com/y',
      commodities: ['CORN'],
      types: null,
      enabled: true,
    });
    if (r === 'limit_reached') throw new Error('limit');
    await publish({ id: 'evt_nope', commodity: 'CORN' }, changesSubject('price', 'CORN'), 'poison-1');
    failNextEnqueues = 2;
    const record = change('CORN', 'price');
    await publish(record, changesSubject('price', 'CORN'), record.id);
    await until('CORN delivery enqueued after the failures', async () =>
      (await store.listDeliveries('acc_j', r.endpoint.id)).some((d) => d.event_id === record.id),
    );
    expect(failNextEnqueues).toBe(0);
    const text = await metrics.render();
    expect(text).toMatch(/cds_notifier_changes_total\{[^}]*result="poison"[^}]*\} 1/);
    expect(text).toMatch(/cds_notifier_pending_messages(\{[^}]*\})? 0/);
    // Everything was acked: nothing pending for the consumer.
    await until('consumer caught up', async () => {
      const info = await messaging.jsm.consumers.info('CDS_CHANGES', 'notifier');
      return info.num_pending === 0 && info.num_ack_pending === 0;
    });
  });
});
