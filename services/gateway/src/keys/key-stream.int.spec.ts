import { KEYS_STREAM, subjectFor, type KeyEvent } from '@cds/contracts';
import { connectMessaging, streamSpec, type Messaging } from '@cds/messaging';
import { createLogger } from '@cds/telemetry';
import { startNats, waitUntil, type NatsHandle } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followKeyStream } from './key-stream.ts';
import { KeyTable, hashKey } from './key-table.ts';

// The key stream has a fixed name, so this file runs its own NATS server.
let nats: NatsHandle;
let messaging: Messaging;
let gateway: Messaging;
const logger = createLogger({ name: 't', level: 'silent' });
let n = 0;
const publish = (type: KeyEvent['type'], data: Record<string, unknown>) => {
  const event = {
    id: `${type}:${(n += 1)}`,
    type,
    version: 1,
    occurred_at: new Date().toISOString(),
    source: 'test',
    data,
  } as KeyEvent;
  return messaging.publish(subjectFor(event), event, { msgID: event.id });
};
const key = (i: number) => i.toString(16).padStart(40, '0');

beforeAll(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'key-stream-spec' });
  // The followers read as the gateway's NATS user (libs/testkit identities.ts): its permissions suffice.
  gateway = await connectMessaging({ servers: nats.identities.gateway, name: 'key-stream-spec-gateway' });
  // The keys stream as the system defines it: compacted to one message per subject.
  await messaging.ensureStream(streamSpec('keys', { replicas: 1, duplicateWindowMs: 60_000 }));
});
afterAll(async () => {
  await gateway.close();
  await messaging.close();
  await nats.stop();
});

describe('followKeyStream', () => {
  it('replays the stream before it is ready, then applies new events live', async () => {
    await publish('account.created', { account_id: 'acc_00000001', name: 'A', plan: 'free' });
    for (let i = 1; i <= 50; i += 1) {
      await publish('key.created', {
        key_id: `key_${String(i).padStart(8, '0')}`,
        account_id: 'acc_00000001',
        key_hash: hashKey(key(i)),
        plan: 'free',
      });
    }
    await publish('key.revoked', { key_id: 'key_00000007', account_id: 'acc_00000001', key_hash: hashKey(key(7)) });
    messaging.nc.publish('cds.keys.key.garbage', 'not json');
    await messaging.nc.flush();

    const table = new KeyTable();
    const follower = await followKeyStream({ nc: gateway.nc, table, logger });
    await follower.caughtUp;
    expect(follower.isCaughtUp()).toBe(true);
    expect(table.activeKeys).toBe(49);
    expect(table.lookup(key(7))).toBeUndefined();
    expect(table.lookup(key(8))).toMatchObject({ accountId: 'acc_00000001', plan: 'free' });

    await publish('key.revoked', { key_id: 'key_00000008', account_id: 'acc_00000001', key_hash: hashKey(key(8)) });
    await publish('account.plan_changed', { account_id: 'acc_00000001', plan: 'enterprise', previous_plan: 'free' });
    await waitUntil(
      'revocation and plan change applied',
      () => {
        if (table.lookup(key(8)) !== undefined || table.lookup(key(9))?.plan !== 'enterprise')
          throw new Error('not yet');
        return Promise.resolve();
      },
      5_000,
    );
    await follower.stop();
  });

  it('holds only active keys after create/revoke churn; a replay of the compacted stream gives the same table', async () => {
    await messaging.jsm.streams.purge(KEYS_STREAM);
    const account = 'acc_0000000c';
    await publish('account.created', { account_id: account, name: 'Churn', plan: 'free' });
    const table = new KeyTable();
    const live = await followKeyStream({ nc: gateway.nc, table, logger });
    await live.caughtUp;
    // 300 keys created, 280 of them revoked again: a create-revoke loop.
    const churn = (i: number) => ({
      key_id: `key_c${String(i).padStart(7, '0')}`,
      account_id: account,
      key_hash: hashKey(key(1_000 + i)),
    });
    let last = 0;
    for (let i = 0; i < 300; i += 1) {
      last = (await publish('key.created', { ...churn(i), plan: 'free' })).seq;
      if (i >= 20) last = (await publish('key.revoked', churn(i))).seq;
    }
    await waitUntil(
      'live table applied the churn',
      () =>
        table.activeKeys === 20 && live.position() >= last ? Promise.resolve() : Promise.reject(new Error('not yet')),
      10_000,
    );
    expect(table.accounts).toBe(1);
    // The stream kept one message per subject: the account and each key (its creation or its revocation).
    const info = await messaging.jsm.streams.info(KEYS_STREAM);
    expect(info.state.messages).toBe(1 + 300);
    const replayed = new KeyTable();
    const late = await followKeyStream({ nc: gateway.nc, table: replayed, logger });
    await late.caughtUp;
    expect([replayed.activeKeys, replayed.accounts]).toEqual([20, 1]);
    for (const i of [0, 19]) expect(replayed.lookup(key(1_000 + i))).toMatchObject({ accountId: account });
    for (const i of [20, 299]) expect(replayed.lookup(key(1_000 + i))).toBeUndefined();
    await Promise.all([live.stop(), late.stop()]);
  });

  it("refuses a closed account's keys from its account.closed on; the account leaves with its last revocation, live and replayed", async () => {
    await messaging.jsm.streams.purge(KEYS_STREAM);
    const account = 'acc_0000000d';
    await publish('account.created', { account_id: account, name: 'Closing', plan: 'business' });
    const keyOf = (i: number) => ({
      key_id: `key_d${String(i).padStart(7, '0')}`,
      account_id: account,
      key_hash: hashKey(key(2_000 + i)),
    });
    for (const i of [1, 2]) await publish('key.created', { ...keyOf(i), plan: 'business' });
    const table = new KeyTable();
    const live = await followKeyStream({ nc: gateway.nc, table, logger });
    await live.caughtUp;
    expect(table.lookup(key(2_001))).toMatchObject({ accountId: account, plan: 'business' });
    // As the admin API closes an account: the closure, then a revocation per active key.
    const at = new Date().toISOString();
    const closure = await publish('account.closed', {
      account_id: account,
      name: 'Closing',
      plan: 'business',
      created_at: at,
      closed_at: at,
    });
    await waitUntil(
      'closure applied',
      () => (live.position() >= closure.seq ? Promise.resolve() : Promise.reject(new Error('not yet'))),
      5_000,
    );
    // Refused at once, before the revocations come.
    for (const i of [1, 2]) expect(table.lookup(key(2_000 + i))).toBeUndefined();
    expect([table.activeKeys, table.accounts]).toEqual([2, 1]);
    let last = 0;
    for (const i of [1, 2]) last = (await publish('key.revoked', keyOf(i))).seq;
    await waitUntil(
      'closure and revocations applied',
      () => (live.position() >= last ? Promise.resolve() : Promise.reject(new Error('not yet'))),
      5_000,
    );
    expect([table.activeKeys, table.accounts]).toEqual([0, 0]);
    for (const i of [1, 2]) expect(table.lookup(key(2_000 + i))).toBeUndefined();
    // A replay meets the closure in place of the account's creation (one message per subject).
    const replayed = new KeyTable();
    const late = await followKeyStream({ nc: gateway.nc, table: replayed, logger });
    await late.caughtUp;
    expect(late.isCaughtUp()).toBe(true);
    expect([replayed.activeKeys, replayed.accounts]).toEqual([0, 0]);
    await Promise.all([live.stop(), late.stop()]);
  });

  it('is ready at once on an empty stream', async () => {
    const other = await connectMessaging({ servers: nats.url, name: 'empty' });
    await other.jsm.streams.purge(KEYS_STREAM);
    const follower = await followKeyStream({ nc: other.nc, table: new KeyTable(), logger });
    expect(follower.isCaughtUp()).toBe(true);
    await follower.stop();
    await other.close();
  });
});
