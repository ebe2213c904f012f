import { urlCredentials } from '@cds/config';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsCluster, type NatsClusterHandle } from './cluster.ts';
import { waitUntil } from './wait.ts';

describe('NATS JetStream cluster', () => {
  let cluster: NatsClusterHandle;
  let nc: NatsConnection;

  beforeAll(async () => {
    cluster = await startNatsCluster();
    const servers = cluster.url.split(',');
    const { user, password } = urlCredentials(servers[0]!);
    nc = await connect({
      servers: servers.map((s) => urlCredentials(s).address),
      ...(user !== undefined ? { user, pass: password ?? '' } : {}),
      timeout: 5_000,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 200,
      name: 'cluster-int-spec',
    });
  }, 60_000);

  afterAll(async () => {
    await nc?.close().catch(() => undefined);
    await cluster?.stop();
  });

  it('forms with three servers and a meta leader, and gives each component the server list', async () => {
    expect(cluster.members.map((m) => m.serverName)).toEqual(['cds-n1', 'cds-n2', 'cds-n3']);
    expect(cluster.url.split(',')).toHaveLength(3);
    expect(cluster.identities.gateway.split(',')).toHaveLength(3);
    expect(cluster.members.map((m) => m.serverName)).toContain(await cluster.waitForMetaLeader());
  });

  it('keeps every acknowledged publish of a 3-replica stream when its leader is killed', async () => {
    // A new cluster's JetStream API may miss one request on a busy machine: tried again within 20 s.
    const jsm = await waitUntil('the JetStream API', () => jetstreamManager(nc, { timeout: 2_000 }), 20_000);
    const info = await jsm.streams.add({
      name: 'CDS_CLUSTER_SPEC',
      subjects: ['cds.cluster-spec.>'],
      num_replicas: 3,
      duplicate_window: 120_000_000_000,
    });
    expect(info.config.num_replicas).toBe(3);
    const js = jetstream(nc, { timeout: 2_000 });

    // Retries with the same message id until acknowledged (what ingest does): the duplicate window
    // makes a retry of a write that did land a no-op, so the count below is exact.
    const acked = new Map<string, number>();
    const publish = async (js: JetStreamClient, i: number): Promise<void> => {
      const id = `m-${i}`;
      const deadline = Date.now() + 20_000;
      for (;;) {
        try {
          const ack = await js.publish(`cds.cluster-spec.${i % 7}`, `${i}`, { msgID: id });
          acked.set(id, ack.seq);
          return;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await sleep(100);
        }
      }
    };

    for (let i = 0; i < 50; i++) await publish(js, i);
    const leader = await cluster.streamLeader('CDS_CLUSTER_SPEC');
    const publishing = (async () => {
      for (let i = 50; i < 200; i++) await publish(js, i);
    })();
    await sleep(50);
    await cluster.killServer(leader);
    await publishing;

    const next = await cluster.streamLeader('CDS_CLUSTER_SPEC', 20_000);
    expect(next).not.toBe(leader);
    expect(acked.size).toBe(200);
    const seqs = new Set(acked.values());
    expect(seqs.size).toBe(200);
    const after = await jsm.streams.info('CDS_CLUSTER_SPEC');
    expect(after.state.messages).toBe(200);
    for (const seq of [...seqs].slice(0, 200)) {
      const msg = await jsm.streams.getMessage('CDS_CLUSTER_SPEC', { seq });
      expect(acked.get(msg!.header?.get('Nats-Msg-Id') ?? '')).toBe(seq);
    }

    // The killed server rejoins and catches up.
    await cluster.startServer(leader);
    await cluster.waitForMetaLeader(20_000);
  }, 90_000);
});
