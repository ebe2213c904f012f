// Least privilege between services (issue #22, security review #2), NATS side: each component
// connects as its own user (libs/testkit identities.ts), and a user may publish only what its
// component publishes. A private server, started by the testkit with those users, so the refusals
// below are the server's, as in a cluster with the chart's files/nats-authorization.conf.
import { CHANGES_STREAM, KEYS_STREAM } from '@cds/contracts';
import { startNats, type NatsHandle } from '@cds/testkit';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMessaging, connectNats, streamSpec, type Messaging } from './index.ts';

let nats: NatsHandle;
let system: Messaging;
const open: Messaging[] = [];

async function as(identity: keyof NatsHandle['identities']): Promise<Messaging> {
  const m = await connectMessaging({ servers: nats.identities[identity], name: `permissions-${identity}` });
  open.push(m);
  return m;
}

const keysInStream = async () => (await system.jsm.streams.info(KEYS_STREAM)).state.messages;
const keyCreated = (keyId: string) => ({ id: `evt_${keyId}`, type: 'key.created', data: { key_id: keyId } });
const PERMISSION_VIOLATION = /Permissions Violation for Publish to "cds\.keys\.key\./;

beforeAll(async () => {
  nats = await startNats();
  // The system user (tests, `npm start`): every permission, so it sets the streams up.
  system = await connectMessaging({ servers: nats.url, name: 'permissions-system' });
  for (const name of ['data', 'keys', 'changes'] as const) await system.ensureStream(streamSpec(name, { replicas: 1 }));
});

afterAll(async () => {
  await Promise.all([...open, system].map((m) => m?.close()));
  await nats?.stop();
});

describe('who may mint a key (publish on cds.keys.>)', () => {
  it('the gateway, the internet-facing one, may not: a permissions violation, nothing stored', async () => {
    const gateway = await as('gateway');
    const before = await keysInStream();
    await expect(gateway.publish('cds.keys.key.k_gw', keyCreated('k_gw'), { msgID: 'k_gw' })).rejects.toThrow(
      PERMISSION_VIOLATION,
    );
    // A core publish is refused by the server as well (nats.js reports it asynchronously).
    gateway.nc.publish('cds.keys.key.k_gw_core', JSON.stringify(keyCreated('k_gw_core')));
    await gateway.nc.flush();
    expect(await keysInStream()).toBe(before);
  });

  it('the projector, the notifier and the data publisher may not either', async () => {
    for (const identity of ['projector', 'notifier', 'ingest'] as const) {
      const m = await as(identity);
      await expect(
        m.publish(`cds.keys.key.k_${identity}`, keyCreated(`k_${identity}`), { msgID: `k_${identity}` }),
        identity,
      ).rejects.toThrow(PERMISSION_VIOLATION);
    }
    expect(await keysInStream()).toBe(0);
  });

  it('the query service publishes nothing at all (it only hears cds.projected.*)', async () => {
    const nc = await connectNats({ servers: nats.identities.query, name: 'permissions-query' });
    try {
      const refused = (async () => {
        for await (const s of nc.status()) if (s.type === 'error') return s.error.message;
        return '';
      })();
      nc.publish('cds.keys.key.k_query', JSON.stringify(keyCreated('k_query')));
      expect(await refused).toMatch(/Permissions Violation for Publish to "cds\.keys\.key\.k_query"/);
      expect(await keysInStream()).toBe(0);
    } finally {
      await nc.close();
    }
  });

  it('the admin API may: its key event is stored', async () => {
    const admin = await as('admin');
    const ack = await admin.publish('cds.keys.key.k_admin', keyCreated('k_admin'), { msgID: 'k_admin' });
    expect(ack).toMatchObject({ stream: KEYS_STREAM, duplicate: false });
    expect(await keysInStream()).toBe(1);
  });
});

describe('the other ways in are closed too', () => {
  it('the gateway may not publish data events, nor change, purge or delete the key stream', async () => {
    const gateway = await as('gateway');
    await expect(gateway.publish('cds.data.price.GOLD', { id: 'evt_x' }, { msgID: 'x' })).rejects.toThrow(
      /Permissions Violation for Publish to "cds\.data\.price\.GOLD"/,
    );
    // An update could add a source stream (messages the gateway controls) to CDS_KEYS.
    const info = await system.jsm.streams.info(KEYS_STREAM);
    await expect(gateway.jsm.streams.update(KEYS_STREAM, { ...info.config, max_msgs: 1 })).rejects.toThrow(
      /Permissions Violation for Publish to "\$JS\.API\.STREAM\.UPDATE\.CDS_KEYS"/,
    );
    await expect(gateway.jsm.streams.purge(KEYS_STREAM)).rejects.toThrow(/Permissions Violation/);
    await expect(gateway.jsm.streams.delete(KEYS_STREAM)).rejects.toThrow(/Permissions Violation/);
    expect(await keysInStream()).toBe(1);
  });

  it('the data publisher may not align the key stream (only CDS_DATA is its own)', async () => {
    const ingest = await as('ingest');
    await expect(ingest.ensureStream(streamSpec('keys', { replicas: 1, duplicateWindowMs: 60_000 }))).rejects.toThrow(
      /Permissions Violation for Publish to "\$JS\.API\.STREAM\.INFO\.CDS_KEYS"/,
    );
    // The raw API request (the client's update asks for the stream info first, refused above).
    const { config } = await system.jsm.streams.info(KEYS_STREAM);
    const update = JSON.stringify({ ...config, max_msgs: 1 });
    await expect(ingest.nc.request(`$JS.API.STREAM.UPDATE.${KEYS_STREAM}`, update, { timeout: 2_000 })).rejects.toThrow(
      /Permissions Violation for Publish to "\$JS\.API\.STREAM\.UPDATE\.CDS_KEYS"/,
    );
    expect((await ingest.ensureStream(streamSpec('data', { replicas: 1 }))).action).toBe('unchanged');
  });

  it("the gateway may not delete, pull from or redefine the notifier's durable consumer", async () => {
    await system.ensureConsumer({ stream: CHANGES_STREAM, durable: 'notifier', ackWaitMs: 30_000 });
    const gateway = await as('gateway');
    await expect(gateway.jsm.consumers.delete(CHANGES_STREAM, 'notifier')).rejects.toThrow(
      /Permissions Violation for Publish to "\$JS\.API\.CONSUMER\.DELETE\.CDS_CHANGES\.notifier"/,
    );
    await expect(
      gateway.nc.request(`$JS.API.CONSUMER.MSG.NEXT.${CHANGES_STREAM}.notifier`, '{"batch":1}', { timeout: 2_000 }),
    ).rejects.toThrow(/Permissions Violation/);
    expect((await system.jsm.consumers.info(CHANGES_STREAM, 'notifier')).name).toBe('notifier');
  });

  it("the gateway may not read another user's replies (each user has its own inbox prefix)", async () => {
    const gateway = await as('gateway');
    const sub = gateway.nc.subscribe('_INBOX_admin.>');
    await expect(sub.closed).resolves.toMatchObject({ message: expect.stringMatching(/Permissions Violation/) });
  });

  it('a wrong password is refused at connect', async () => {
    const url = new URL(nats.identities.gateway);
    url.password = 'wrong';
    await expect(connectMessaging({ servers: url.toString(), name: 'permissions-wrong' })).rejects.toThrow(
      /Authorization Violation/,
    );
  });

  it('the server logged each refusal with its user (what the e2e harness checks is empty)', async () => {
    await sleep(100);
    const lines = nats.violations();
    // nats-server 2.10+: `... - "$G/user:gateway" - Publish Violation - Subject "..."`.
    expect(lines.some((l) => /"\$G\/user:gateway" - Publish Violation - Subject "cds\.keys\.key\.k_gw"/.test(l))).toBe(
      true,
    );
    expect(lines.some((l) => /"\$G\/user:query" - Publish Violation - Subject "cds\.keys\.key\.k_query"/.test(l))).toBe(
      true,
    );
    expect(lines.some((l) => /\/user:admin"/.test(l))).toBe(false);
  });
});
