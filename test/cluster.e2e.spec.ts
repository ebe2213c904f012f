// The whole system on clustered infrastructure (issue #27): a 3-server NATS JetStream cluster with
// every stream and KV bucket at 3 replicas, Redis with Sentinel (a primary, a replica, three
// sentinels), the MongoDB API server, 3 gateways and 2 projectors, under a steady load of enterprise
// keys (well within their 1,000 requests a minute). Faults: the server leading CDS_DATA killed during
// a backfill, the server leading CDS_KEYS killed before a revocation, the Redis primary failed over,
// and a short soak of sentinel and NATS server restarts. Each scenario prints its figures (one line,
// `cluster: ...`); docs/reliability.md "Clustered infrastructure" has them.
//
// Part of `npm test`; `npm run test:cluster` runs it alone. Two faults its early runs showed were in
// the Redis client (libs/redis/src/client.ts, sentinel.int.spec.ts): a reconnect that asked a
// sentinel with no deadline, and ioredis's failover detector ending the client for good when a
// +switch-master arrived during a reconnect (the gateways then stayed on their local limits).
import { join } from 'node:path';
import { DATA_STREAM, KEYS_STREAM, PLANS } from '@cds/contracts';
import { type NatsClusterHandle, type RedisSentinelHandle } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, eventually, keyStatuses, startE2E, type E2E, type PlanName } from './support/harness.ts';
import { spawnIngest, stoppedMidPublish } from './support/ingest-child.ts';
import { describeLoad, fallbackCount, startLoad, type LoadReport, type RunningLoad } from './support/load.ts';
import {
  REAL_FILES,
  dataStreamState,
  ingestCounts,
  openProbes,
  rebuildReference,
  streamMessageIds,
  waitForProjections,
  type Probes,
} from './support/projections.ts';
import { readModelFingerprint } from './support/read-model-hash.ts';

/** Requests per second of the steady load, over the three gateways and the load keys. */
const LOAD_RATE = 8;
/**
 * Bound on the revocation time after the CDS_KEYS leader died: revoke answered → last gateway's 401.
 * On one server it is milliseconds (docs/reliability.md "Revocation time"). Here a gateway whose key
 * follower's consumer went with the dead server gets the event only once its watchdog recreates the
 * consumer (services/gateway/src/keys/key-stream.ts: 1.5 s without progress with the stream ahead,
 * checked every 375 ms), and creating a consumer needs the JetStream meta leader: when the dead server
 * led the meta group too, the revoke (which needs only the stream's new leader) can be answered
 * before the meta election ends. Measured 2 ms to 5.25 s on the 2-core machine; 10 s leaves room for
 * a loaded CI runner.
 */
const REVOCATION_BOUND_MS = 10_000;
/** The plan of the account whose minute window is measured across the Redis failover (10 a minute). */
const LIMITED_PLAN = 'free';
const GATEWAYS = 3;

let e2e: E2E;
let probes: Probes;
let nats: NatsClusterHandle;
let redis: RedisSentinelHandle;
let loadKeys: string[] = [];

const loadPaths = [
  '/api/v1/commodities?per_page=5',
  '/api/v1/commodities/GOLD',
  '/api/v1/commodities/GOLD/cot?start_date=2025-01-01',
  ...Array.from(
    { length: 60 },
    (_, i) =>
      `/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01&end_date=2022-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + Math.floor(i / 12)).padStart(2, '0')}`,
  ),
];

/** The steady load over every gateway; stopped by the scenario (the duration is only a backstop). */
function load(): RunningLoad {
  return startLoad({
    urls: e2e.system.gateways.map((g) => g.url),
    keys: loadKeys,
    paths: loadPaths,
    ratePerSec: LOAD_RATE,
    durationMs: 240_000,
  });
}

/** No contract violation, no failed connection, only `allowed` statuses, some 200s. */
function expectClean(report: LoadReport, allowed: string[]): void {
  expect(report.contractViolations, describeLoad(report)).toEqual([]);
  expect(report.failures, describeLoad(report)).toBe(0);
  for (const status of Object.keys(report.byStatus)) expect(allowed, describeLoad(report)).toContain(status);
  expect(report.byStatus['200'] ?? 0).toBeGreaterThan(0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const gatewayUrls = () => e2e.system.gateways.map((g) => g.url);

/** Resolves with `promise`, or fails after `ms` naming `label`. */
async function within<T>(label: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${label}: not within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Every stream of the cluster (events, KV buckets) has a leader and two current replicas, and
 * every server agrees on the meta leader: the cluster has healed after a restart.
 */
async function clusterHealed(timeoutMs = 30_000): Promise<number> {
  await nats.waitForMetaLeader(timeoutMs);
  return eventually(
    'every stream led, with two current replicas',
    async () => {
      try {
        const streams = await probes.messaging.jsm.streams.list().next();
        if (streams.length === 0) return false;
        return streams.every(
          (s) =>
            (s.cluster?.leader ?? '') !== '' &&
            (s.cluster?.replicas ?? []).length === 2 &&
            (s.cluster?.replicas ?? []).every((r) => r.current && !r.offline),
        );
      } catch {
        return false;
      }
    },
    timeoutMs,
  );
}

/** The index of the server leading `stream`, when it is not `not`. */
async function newLeader(stream: string, not: number, timeoutMs: number): Promise<number> {
  let leader = not;
  await eventually(
    `a new leader of ${stream}`,
    async () => {
      leader = await nats.streamLeader(stream, 2_000).catch(() => not);
      return leader !== not;
    },
    timeoutMs,
  );
  return leader;
}

/**
 * Polls every gateway with a revoked `key` (not counted: If-None-Match: *) until each answers 401;
 * the milliseconds from `since` to each gateway's first 401. A gateway that refused is not asked
 * again: every 401 counts against the client address's failed authentications (FAILED_AUTH_MAX,
 * 30 a minute), past which it would answer 429.
 */
async function refusedEverywhere(key: string, since: number, timeoutMs: number): Promise<number[]> {
  const deadline = since + timeoutMs;
  // One loop per gateway, 20 ms apart: the figure is each gateway's own first 401.
  return Promise.all(
    e2e.system.gateways.map(async (g, i) => {
      for (;;) {
        const res = await fetch(`${g.url}/api/v1/commodities`, {
          headers: { authorization: `Bearer ${key}`, 'if-none-match': '*' },
          signal: AbortSignal.timeout(5_000),
        });
        await res.arrayBuffer();
        if (res.status === 401) return Date.now() - since;
        expect(res.status, `gateway ${i} before the revocation reached it`).toBe(304);
        if (Date.now() > deadline) throw new Error(`gateway ${i} still accepts the revoked key after ${timeoutMs} ms`);
        await sleep(20);
      }
    }),
  );
}

/**
 * A new account with one key, once every gateway knows the key (a 304 to If-None-Match: *, which
 * does not count); with the time that took. Like the harness's `account`, with a longer deadline:
 * after a server loss a key follower may wait for its watchdog (3 s) to recreate its consumer.
 */
async function newAccount(plan: PlanName): Promise<{ accountId: string; keyId: string; key: string; knownMs: number }> {
  const acc = await e2e.admin<{ account_id: string }>('POST', '/accounts', { name: `cluster ${plan}`, plan });
  expect(acc.status, JSON.stringify(acc.body)).toBe(201);
  const key = await e2e.admin<{ key_id: string; key: string }>('POST', `/accounts/${acc.body.account_id}/keys`, {});
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  const createdAt = Date.now();
  await eventually(
    `the key of a new ${plan} account known on every gateway`,
    async () => (await keyStatuses(gatewayUrls(), key.body.key)).every((s) => s === 304),
    15_000,
  );
  return { accountId: acc.body.account_id, keyId: key.body.key_id, key: key.body.key, knownMs: Date.now() - createdAt };
}

/**
 * Revokes a key through the admin API, asking again while it answers 503 (it may, while CDS_KEYS
 * elects a leader or its key log catches up); how many 503s it took.
 */
async function revoke(keyId: string, timeoutMs: number): Promise<number> {
  let unavailable = 0;
  await eventually(
    `key ${keyId} revoked`,
    async () => {
      const { status } = await e2e.admin('POST', `/keys/${keyId}/revoke`).catch(() => ({ status: 0 }));
      expect([0, 200, 503], `the revoke answered ${status}`).toContain(status);
      if (status !== 200) unavailable += 1;
      return status === 200;
    },
    timeoutMs,
  );
  return unavailable;
}

/** Every gateway answers a read with a load key. */
async function everyGatewayServes(timeoutMs = 15_000): Promise<number> {
  return eventually(
    'every gateway serves',
    async () => {
      const statuses = await Promise.all(
        e2e.system.gateways.map((_, replica) =>
          e2e
            .get('/api/v1/commodities?per_page=1', { key: loadKeys[0]!, replica })
            .then((r) => r.status)
            .catch(() => 0),
        ),
      );
      return statuses.every((s) => s === 200);
    },
    timeoutMs,
  );
}

beforeAll(async () => {
  e2e = await startE2E({
    gateways: GATEWAYS,
    queries: 1,
    projectors: 2,
    natsCluster: true,
    redisSentinel: true,
    // The suite polls revoked and not-yet-known keys from one address: past FAILED_AUTH_MAX (30 a
    // minute) the gateways would answer those 429 instead of 401. At debug the gateways log each
    // Redis connection error (a few lines a failover), which a failed failover check prints.
    // The projectors' ack wait at 10 s (ACK_WAIT_MS, 30 s by default): what a pull had delivered when
    // the stream's leader died is redelivered once it runs out, which the recovery waited for.
    serviceEnv: {
      gateway: { FAILED_AUTH_MAX: '100000', LOG_LEVEL: 'debug' },
      projector: { ACK_WAIT_MS: '10000' },
    },
  });
  nats = e2e.infra.natsCluster!;
  redis = e2e.infra.redisSentinel!;
  probes = await openProbes(e2e.infra.natsUrl, e2e.infra.mongoUrl);
  for (const [source, file] of REAL_FILES) {
    const run = await e2e.ingest(['backfill', '--source', source, '--file', join(FIXTURES, file)]);
    expect(run.code, `${file}: ${run.stderr}`).toBe(0);
  }
  loadKeys = await Promise.all([e2e.account('enterprise'), e2e.account('enterprise'), e2e.account('enterprise')]).then(
    (accounts) => accounts.map((a) => a.key),
  );
  await waitForProjections(probes.messaging, 90_000);
  // Every stream at 3 replicas: the services' and the CLI's settings reached the cluster.
  const streams = await probes.messaging.jsm.streams.list().next();
  expect(streams.map((s) => `${s.config.name}:${s.config.num_replicas}`).sort()).toEqual(
    streams.map((s) => `${s.config.name}:3`).sort(),
  );
  expect(streams.map((s) => s.config.name)).toEqual(expect.arrayContaining([DATA_STREAM, KEYS_STREAM]));
}, 180_000);

afterAll(async () => {
  await probes?.close();
  await e2e?.stop();
}, 60_000);

describe('the system on a NATS cluster and Redis with Sentinel', () => {
  it('CDS_DATA leader killed during a backfill: every event projected exactly once', async () => {
    const base = (await dataStreamState(probes.messaging)).messages;
    const run = load();
    // It stops itself mid-publish (16 in flight, the rest to send); the leader dies under it.
    // As the ingest user, its streams at 3 replicas.
    const ingest = spawnIngest(['backfill', '--demo', '--years', '1', '--seed', 'cluster'], {
      natsUrl: e2e.infra.identities.nats.ingest,
      stopAfter: 40,
      env: { STREAM_REPLICAS: '3' },
    });
    await stoppedMidPublish(ingest);
    const leader = await nats.streamLeader(DATA_STREAM);
    const killedAt = Date.now();
    await nats.killServer(leader);
    ingest.child.kill('SIGCONT');
    const next = await newLeader(DATA_STREAM, leader, 20_000);
    const electedMs = Date.now() - killedAt;
    const done = await within('the ingest after the leader died', 120_000, ingest.result).catch((err: unknown) => {
      ingest.child.kill('SIGKILL');
      throw err;
    });
    const ingestMs = Date.now() - killedAt;
    expect(done.code, done.out).toBe(0);
    const c = ingestCounts(done.out);
    await nats.startServer(leader);
    const healedMs = await clusterHealed();
    const caughtUpMs = await waitForProjections(probes.messaging, 120_000);
    const recoverMs = Date.now() - killedAt;
    const report = await run.stop();
    const ids = await streamMessageIds(probes.messaging);
    const distinct = new Set(ids.filter((id) => id !== '')).size;
    const added = ids.length - base;
    const live = await readModelFingerprint(probes.db('cds'));
    const rebuildMs = await rebuildReference(e2e.infra.identities.nats.projector, e2e.infra.mongoUrl, 'cds_reference');
    const reference = await readModelFingerprint(probes.db('cds_reference'));
    console.log(
      `cluster: CDS_DATA leader (${nats.members[leader]!.serverName}) killed during backfill: ${added} events ` +
        `(${c.published} published, ${c.duplicates} duplicates), ${ids.length} in the stream with ${distinct} ` +
        `distinct ids; ` +
        `read models ${live.hash === reference.hash ? 'hash-identical' : 'DIFFERENT'} to a clean rebuild ` +
        `(${live.seriesPoints} points, ${live.cotReports} reports; rebuild ${rebuildMs} ms); new leader ` +
        `${nats.members[next]!.serverName} after ${electedMs} ms, ingest exit 0 after ${ingestMs} ms, ` +
        `cluster healed ${healedMs} ms after the restart, ${recoverMs} ms to recover (projections caught up, ` +
        `wait ${caughtUpMs} ms); load ${describeLoad(report)}`,
    );
    expectClean(report, ['200']);
    // Each event id once; nothing lost (the ingest exited 0: every event acknowledged). A publish
    // stored but not acknowledged before the leader died is retried and counted as a duplicate.
    expect(distinct).toBe(ids.length);
    expect(added).toBeGreaterThanOrEqual(c.published);
    expect(added).toBeLessThanOrEqual(c.published + c.duplicates);
    for (const name of ['catalog', 'series', 'cot'] as const) {
      expect(live.models[name].documents, name).toBe(reference.models[name].documents);
      expect(live.models[name].hash, name).toBe(reference.models[name].hash);
    }
    expect(live.hash).toBe(reference.hash);
  }, 300_000);

  it('CDS_KEYS leader killed, then a key revoked: every gateway answers 401 within the bound', async () => {
    const victim = await newAccount('enterprise');
    const run = load();
    await sleep(500);
    const leader = await nats.streamLeader(KEYS_STREAM);
    const killedAt = Date.now();
    await nats.killServer(leader);
    const unavailable = await revoke(victim.keyId, 30_000);
    const revokedAt = Date.now();
    const firstRefusal = await refusedEverywhere(victim.key, revokedAt, 30_000);
    const lastMs = Math.max(...firstRefusal);
    await nats.startServer(leader);
    const healedMs = await clusterHealed();
    const report = await run.stop();
    expectClean(report, ['200']);
    console.log(
      `cluster: CDS_KEYS leader (${nats.members[leader]!.serverName}) killed, key revoked ${revokedAt - killedAt} ms ` +
        `after the kill (${unavailable} answers 503 before): every gateway answered 401 within ${lastMs} ms of the revoke's answer ` +
        `(per gateway ${firstRefusal.join(', ')} ms; bound ${REVOCATION_BOUND_MS} ms); the key was known on ` +
        `every gateway ${victim.knownMs} ms after its creation; cluster healed ` +
        `${healedMs} ms after the restart; load ${describeLoad(report)}`,
    );
    expect(lastMs).toBeLessThan(REVOCATION_BOUND_MS);
  }, 120_000);

  it('Redis primary failed over under load: no 500, over-admission within the stated bound', async () => {
    const limit = PLANS[LIMITED_PLAN].perMinute;
    const urls = e2e.system.gateways.map((g) => g.url);
    // The measured window must hold the whole failover: start with at least 40 s left in the minute.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 40_000) await sleep(left + 200);
    // Two accounts of the plan: one refused by Redis before the kill (every gateway keeps that
    // refusal), one that starts sending only once the primary is dead (decided by the fallback).
    const limited = await newAccount(LIMITED_PLAN);
    const unrefused = await newAccount(LIMITED_PLAN);
    const minute = Math.floor(Date.now() / 60_000);
    const fallbacksBefore = await fallbackCount(urls);
    const run = load();
    // Each account's own loop: 10 requests a second over the gateways, its window spent in a second.
    const loop = (key: string) =>
      startLoad({ urls, keys: [key], paths: ['/api/v1/commodities?per_page=1'], ratePerSec: 10, durationMs: 120_000 });
    const limitedRun = loop(limited.key);
    // Refused on every gateway, and every admitted answer back: under load a 200 can still be on its
    // way when the last gateway's 429 arrives, and the count below is of the answers received.
    await eventually(
      'the limited account refused by Redis on every gateway, its limit admitted',
      () => {
        const snap = limitedRun.snapshot();
        return Promise.resolve(
          urls.every((_, i) => snap.samples.some((x) => x.url === i && x.status === 429)) &&
            (snap.byStatus['200'] ?? 0) >= limit,
        );
      },
      10_000,
    );
    const beforeKill = limitedRun.snapshot().byStatus['200'] ?? 0;
    // A write is on the replica within milliseconds; give the last one time to get there.
    await sleep(300);
    const killedAt = Date.now();
    const oldPrimary = await redis.killPrimary();
    const unrefusedRun = loop(unrefused.key);
    const newPrimary = await redis.waitForFailover(oldPrimary, 30_000);
    const failoverMs = Date.now() - killedAt;
    // Back on Redis: the fallback count stops growing while requests flow.
    let last = -1;
    const backMs = await eventually(
      'rate limiting back on Redis',
      async () => {
        const n = await fallbackCount(urls);
        const stable = n === last;
        last = n;
        if (!stable) await sleep(1_000);
        return stable;
      },
      30_000,
    ).catch(async (err: unknown) => {
      // What each gateway's Redis client went through, for the diagnosis.
      const sentinelsName = await redis.primaryPort().catch((e: unknown) => String(e));
      const tails = e2e.system.gateways.map((g) => `--- ${g.name}\n${g.tail(12)}`).join('\n');
      throw new Error(`${String(err)}; the sentinels name :${sentinelsName}\n${tails}`, { cause: err });
    });
    await sleep(1_000);
    const limitedReport = await limitedRun.stop();
    const unrefusedReport = await unrefusedRun.stop();
    const report = await run.stop();
    const fallbacks = (await fallbackCount(urls)) - fallbacksBefore;
    expectClean(report, ['200']);
    const admittedInMinute = (r: LoadReport) => {
      expect(r.contractViolations).toEqual([]);
      expect(r.failures).toBe(0);
      expect(Object.keys(r.byStatus).sort()).toEqual(['200', '429']);
      const inMinute = r.samples.filter((x) => Math.floor((r.startedAt + x.at + x.ms) / 60_000) === minute);
      expect(inMinute.length, 'the failover stayed inside one minute window').toBe(r.samples.length);
      return inMinute.filter((x) => x.status === 200).length;
    };
    const admitted = admittedInMinute(limitedReport);
    const admittedUnrefused = admittedInMinute(unrefusedReport);
    // The windows are back in one Redis: a fresh account of the plan gets exactly its limit across the gateways.
    const fresh = await newAccount(LIMITED_PLAN);
    const exact: number[] = [];
    for (let i = 0; i < limit + 3; i += 1) {
      exact.push((await e2e.get('/api/v1/commodities?per_page=1', { key: fresh.key, replica: i % GATEWAYS })).status);
    }
    console.log(
      `cluster: Redis primary :${oldPrimary} killed under load, sentinels promoted :${newPrimary} after ` +
        `${failoverMs} ms, back on Redis ${backMs} ms later (${fallbacks} fallback decisions); ${LIMITED_PLAN} ` +
        `accounts (limit ${limit}/min) in the minute window across the failover: refused by Redis before the kill ` +
        `${admitted} admitted (${beforeKill} before the kill; the gateways kept the refusal), sending only from the kill ` +
        `${admittedUnrefused} admitted, over-admission ${admittedUnrefused - limit} (bound ${GATEWAYS * limit}: ` +
        `${GATEWAYS} replicas × limit); load ${describeLoad(report)}; refused ${describeLoad(limitedReport)}; ` +
        `from the kill ${describeLoad(unrefusedReport)}`,
    );
    expect(beforeKill).toBe(limit);
    expect(admitted).toBe(limit);
    expect(admittedUnrefused).toBeGreaterThanOrEqual(limit);
    expect(admittedUnrefused - limit).toBeLessThanOrEqual(GATEWAYS * limit);
    expect(exact.filter((x) => x === 200).length).toBe(limit);
    expect(exact.filter((x) => x !== 200 && x !== 429)).toEqual([]);
  }, 180_000);

  it('short soak: sentinels and NATS servers restarted one at a time under load, serving after each', async () => {
    const run = load();
    const rounds: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      const t0 = Date.now();
      await redis.restartSentinel(round % 3);
      const server = (round + 1) % 3;
      // Alternately a graceful stop and a crash.
      if (round % 2 === 0) await nats.stopServer(server);
      else await nats.killServer(server);
      await sleep(1_000);
      await nats.startServer(server);
      const healedMs = await clusterHealed();
      const servesMs = await everyGatewayServes();
      rounds.push(
        `sentinel ${round % 3} + ${nats.members[server]!.serverName} ${round % 2 === 0 ? 'stopped' : 'killed'}: healed ${healedMs} ms, serving ${servesMs} ms (round ${Date.now() - t0} ms)`,
      );
    }
    // Key events still reach every gateway after the restarts.
    const acc = await newAccount('enterprise');
    await revoke(acc.keyId, 15_000);
    const revokedMs = Math.max(...(await refusedEverywhere(acc.key, Date.now(), 10_000)));
    const report = await run.stop();
    console.log(
      `cluster: soak of 3 rounds (a sentinel restarted, a NATS server stopped or killed and started): ${rounds.join('; ')}; ` +
        `then a new key known on every gateway after ${acc.knownMs} ms and its revocation after ${revokedMs} ms; ` +
        `load ${describeLoad(report)}`,
    );
    expectClean(report, ['200']);
  }, 180_000);
});
