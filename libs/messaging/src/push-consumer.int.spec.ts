// Push consumers and the NATS users (libs/testkit identities.ts, the chart's files/nats-authorization.conf):
// the gateway and the notifier may create consumers on CDS_KEYS / CDS_CHANGES, and a push consumer's
// deliver_subject is published by the server on the account's behalf, whatever the creator may
// publish. Can they make the server copy key or change events into another stream? What nats-server
// (2.15, the testkit's) does, asserted here:
// - it accepts the push consumer, deliver_subject `cds.data.x` included (subject permissions see the
//   request's subject, never its deliver_subject: push and pull creates look alike);
// - it delivers only while the deliver subject has a subscriber of its own (the streams' capture of
//   their subjects and the JetStream API's subscriptions do not count, nor does a wildcard
//   subscription such as the query service's `cds.projected.>`);
// - no user may subscribe to any stream's subjects, so nothing is ever delivered into one: the
//   subscribe allow-lists are what closes the way, and the last test keeps them so.
// The control case (the system user, which no service holds, subscribed) shows the copy would land.
// What remains: the gateway, which may subscribe to cds.projected.>, can replay the events of the
// streams it reads to the query service's announcement subscription, under their own subjects.
import { CHANGES_STREAM, DATA_STREAM, KEYS_STREAM } from '@cds/contracts';
import { NATS_IDENTITIES, NATS_PERMISSIONS, startNats, type NatsHandle } from '@cds/testkit';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMessaging, connectNats, streamSpec, type Messaging } from './index.ts';

let nats: NatsHandle;
let system: Messaging;
const open: Messaging[] = [];

async function as(identity: keyof NatsHandle['identities']): Promise<Messaging> {
  const m = await connectMessaging({ servers: nats.identities[identity], name: `push-${identity}` });
  open.push(m);
  return m;
}

const messages = async (stream: string) => (await system.jsm.streams.info(stream)).state.messages;
/** What a push consumer has sent so far (its last delivered stream sequence). */
const delivered = async (stream: string, consumer: string) =>
  (await system.jsm.consumers.info(stream, consumer)).delivered.stream_seq;
/** Long enough for an instant-replay push consumer with interest to deliver 3 messages (it takes ~1 ms). */
const SETTLE_MS = 500;

const pushTo = (name: string, deliverSubject: string) => ({
  name,
  deliver_subject: deliverSubject,
  ack_policy: AckPolicy.None,
  deliver_policy: DeliverPolicy.All,
  inactive_threshold: 60_000_000_000, // 60 s in ns: alive for the whole file
});

beforeAll(async () => {
  nats = await startNats();
  system = await connectMessaging({ servers: nats.url, name: 'push-system' });
  for (const name of ['data', 'keys', 'changes'] as const) await system.ensureStream(streamSpec(name, { replicas: 1 }));
  for (let i = 0; i < 3; i += 1) {
    const event = { id: `evt_k${i}`, type: 'key.created', data: { key_id: `k${i}` } };
    await system.publish(`cds.keys.key.k${i}`, event, { msgID: `k${i}` });
  }
  await system.publish('cds.changes.series.GOLD', { id: 'chg_1' }, { msgID: 'chg_1' });
  await system.publish('cds.data.price.GOLD', { id: 'evt_d1' }, { msgID: 'd1' });
});

afterAll(async () => {
  await Promise.all([...open, system].map((m) => m?.close()));
  await nats?.stop();
});

describe('a push consumer delivering into another stream', () => {
  it('is accepted from the gateway (CDS_KEYS -> cds.data.x) and the notifier (its durable -> cds.data.y)', async () => {
    const gateway = await as('gateway');
    const notifier = await as('notifier');
    const toData = await gateway.jsm.consumers.add(KEYS_STREAM, pushTo('gw-to-data', 'cds.data.x'));
    expect(toData.config.deliver_subject).toBe('cds.data.x');
    const toChanges = await gateway.jsm.consumers.add(KEYS_STREAM, pushTo('gw-to-changes', 'cds.changes.x'));
    expect(toChanges.config.deliver_subject).toBe('cds.changes.x');
    const { name: _name, ...durable } = pushTo('notifier', 'cds.data.y');
    const own = await notifier.jsm.consumers.add(CHANGES_STREAM, { ...durable, durable_name: 'notifier' });
    expect(own.config.deliver_subject).toBe('cds.data.y');
  });

  it('delivers nothing: no subscriber, and the creators may not subscribe to the deliver subject', async () => {
    const dataBefore = await messages(DATA_STREAM);
    const changesBefore = await messages(CHANGES_STREAM);
    // The gateway may subscribe to cds.projected.> and its inbox only: the server refuses the rest.
    const gateway = await as('gateway');
    const sub = gateway.nc.subscribe('cds.data.x');
    await expect(sub.closed).resolves.toMatchObject({
      message: expect.stringMatching(/Permissions Violation for Subscription to "cds\.data\.x"/),
    });
    // The query service's wildcard subscription is not interest in a literal deliver subject.
    const query = await connectNats({ servers: nats.identities.query, name: 'push-query' });
    const heard: string[] = [];
    query.subscribe('cds.projected.>', { callback: (_e, m) => void heard.push(m.subject) });
    await query.flush();
    await gateway.jsm.consumers.add(KEYS_STREAM, pushTo('gw-to-projected', 'cds.projected.x'));
    await sleep(SETTLE_MS);
    await query.close();
    expect(heard).toEqual([]);
    expect(await delivered(KEYS_STREAM, 'gw-to-data')).toBe(0);
    expect(await delivered(KEYS_STREAM, 'gw-to-changes')).toBe(0);
    expect(await delivered(KEYS_STREAM, 'gw-to-projected')).toBe(0);
    expect(await delivered(CHANGES_STREAM, 'notifier')).toBe(0);
    expect(await messages(DATA_STREAM)).toBe(dataBefore);
    expect(await messages(CHANGES_STREAM)).toBe(changesBefore);
  });

  it('into the JetStream API, does nothing: no purge or delete runs on the server own behalf', async () => {
    const gateway = await as('gateway');
    const before = await messages(DATA_STREAM);
    await gateway.jsm.consumers.add(KEYS_STREAM, pushTo('gw-to-purge', `$JS.API.STREAM.PURGE.${DATA_STREAM}`));
    await gateway.jsm.consumers.add(KEYS_STREAM, pushTo('gw-to-delete', `$JS.API.STREAM.DELETE.${DATA_STREAM}`));
    await sleep(SETTLE_MS);
    expect(await delivered(KEYS_STREAM, 'gw-to-purge')).toBe(0);
    expect(await delivered(KEYS_STREAM, 'gw-to-delete')).toBe(0);
    expect(await messages(DATA_STREAM)).toBe(before);
  });

  it('reaches the cache announcements when the gateway subscribes to the deliver subject itself', async () => {
    // cds.projected.> is the one subject family a creator may subscribe to (the gateway, for its
    // cache): the stored events then reach the query service's announcement subscription, carrying
    // their own subjects (cds.keys.key.<id>), which libs/response-cache invalidation.ts reads as the
    // "commodity" <id>; a replayed change (cds.changes.<topic>.<commodity>) would drop that
    // commodity's cached answers, as the projector's announcement does. Only stored events replay.
    const gateway = await as('gateway');
    const query = await connectNats({ servers: nats.identities.query, name: 'push-query-2' });
    const heard: string[] = [];
    query.subscribe('cds.projected.>', { callback: (_e, m) => void heard.push(m.subject) });
    await query.flush();
    const own = gateway.nc.subscribe('cds.projected.series.GOLD');
    await gateway.nc.flush();
    await gateway.jsm.consumers.add(KEYS_STREAM, pushTo('gw-to-announcements', 'cds.projected.series.GOLD'));
    for (let i = 0; i < 50 && heard.length < 3; i += 1) await sleep(20);
    own.unsubscribe();
    await query.close();
    expect(heard).toEqual(['cds.keys.key.k0', 'cds.keys.key.k1', 'cds.keys.key.k2']);
  });

  it('would land with a subscriber (the control: the system user, which no service holds)', async () => {
    const before = await messages(DATA_STREAM);
    const got: string[] = [];
    const sub = system.nc.subscribe('cds.data.x', { callback: (_e, m) => void got.push(m.subject) });
    await system.nc.flush();
    for (let i = 0; i < 50 && got.length < 3; i += 1) await sleep(20);
    sub.unsubscribe();
    expect(got).toEqual(['cds.keys.key.k0', 'cds.keys.key.k1', 'cds.keys.key.k2']);
    // The copies were captured by CDS_DATA, under their original subjects (the message a push
    // consumer sends carries its stream subject): what the subscribe allow-lists prevent.
    for (let i = 0; i < 50 && (await messages(DATA_STREAM)) < before + 3; i += 1) await sleep(20);
    expect(await messages(DATA_STREAM)).toBe(before + 3);
    const { state } = await system.jsm.streams.info(DATA_STREAM, { subjects_filter: 'cds.keys.>' });
    expect(state.subjects).toEqual({ 'cds.keys.key.k0': 1, 'cds.keys.key.k1': 1, 'cds.keys.key.k2': 1 });
  });
});

/** Whether two NATS subject patterns (`*` one token, `>` the rest) can match a common subject. */
function overlaps(a: string, b: string): boolean {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    if (x[i] === '>' || y[i] === '>') return x[i] !== undefined && y[i] !== undefined;
    if (x[i] === undefined || y[i] === undefined) return false;
    if (x[i] !== '*' && y[i] !== '*' && x[i] !== y[i]) return false;
  }
  return true;
}

it('no NATS user may subscribe to any stream subject, the JetStream API or a KV bucket', () => {
  expect(overlaps('cds.data.>', 'cds.data.x')).toBe(true);
  expect(overlaps('cds.*.x', 'cds.data.>')).toBe(true);
  expect(overlaps('cds.projected.>', 'cds.data.>')).toBe(false);
  expect(overlaps('_INBOX_gateway.>', '_INBOX_gateway')).toBe(false);
  const streamSubjects = [
    ...(['data', 'keys', 'changes', 'deadletter'] as const).flatMap((s) => streamSpec(s, { replicas: 1 }).subjects),
    '$KV.>',
    '$JS.>',
  ];
  const reachable = NATS_IDENTITIES.flatMap((identity) =>
    NATS_PERMISSIONS[identity].subscribe.flatMap((allowed) =>
      streamSubjects.filter((s) => overlaps(allowed, s)).map((s) => `${identity}: ${allowed} ~ ${s}`),
    ),
  );
  expect(reachable).toEqual([]);
});
