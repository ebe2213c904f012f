// One partition scenario under load, recorded (history.ts) and checked (checker.ts): a fresh cluster
// on its hosts (hosts.ts), a demo history ingested, then a steady load with enterprise keys, a
// rate-limited account sending past its limit, an ingest run publishing through the partition, and a
// key revoked during it; after the heal, everything converges and the checker reads the history.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLANS } from '@cds/contracts';
import { REPO_ROOT } from '@cds/testkit';
import { keyStatuses } from '../support/harness.ts';
import { fallbackCount, startLoad, type LoadReport } from '../support/load.ts';
import {
  ingestCounts,
  openProbes,
  projectionsCaughtUp,
  rebuildReference,
  streamMessageIds,
  waitForProjections,
  type Probes,
} from '../support/projections.ts';
import { READ_MODELS, readModelFingerprint } from '../support/read-model-hash.ts';
import { check, type Verdict } from './checker.ts';
import type { Bounds, History, KeyProbe, RequestRecord } from './history.ts';
import { GATEWAYS, INGEST, startPartitionCluster, type PartitionCluster } from './hosts.ts';
import { nsOf } from './net.ts';
import type { Scenario } from './scenarios.ts';
import { timelineSvg } from './svg.ts';

export const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'partitions');

/** The documented bounds (docs/reliability.md "Partitions"). */
export const BOUNDS: Bounds = {
  revocationAfterHealMs: 30_000,
  revocationMs: 10_000,
  settleMs: 15_000,
  rateFactor: GATEWAYS.length + 1,
};

const LIMITED_PLAN = 'free';
/**
 * The demo history: the year to a date long past before the partition, the year to today during it,
 * so the run during the cut adds reports and points and revises none. (Revisions would be checked
 * too, but live COT buckets revised after their other report kind keep a consistency flag a rebuild
 * does not set: a finding of this suite, docs/reliability.md "Partitions", not of a partition.)
 */
const DEMO = ['backfill', '--demo', '--years', '1', '--seed', 'partitions'];
const BASE_TODAY = '2025-10-31';
const LOAD_PATHS = [
  '/api/v1/commodities?per_page=5',
  '/api/v1/commodities/GOLD',
  '/api/v1/commodities/GOLD/series?type=price&start_date=2025-06-01',
];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The last lines of an output, on one line. */
const lastLines = (out: string, n = 3) => out.trim().split('\n').slice(-n).join(' | ');

export interface ScenarioResult {
  history: History;
  verdicts: Verdict[];
  svg: string;
}

/** An ingest run on the ingest host, as the ingest user, its streams at 3 replicas. */
function ingest(c: PartitionCluster, args: string[], timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      'ip',
      [
        ...['netns', 'exec', nsOf(INGEST), process.execPath, '--disable-warning=ExperimentalWarning'],
        ...[join(REPO_ROOT, 'services/ingest/src/cli.ts'), ...args, '--nats-url', c.nats.ingest],
      ],
      { cwd: REPO_ROOT, env: { ...process.env, STREAM_REPLICAS: '3', CDS_LOCAL_ENV: '/nonexistent' } },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

async function admin<T>(c: PartitionCluster, method: 'POST', path: string, body?: unknown) {
  const res = await fetch(`${c.admin.url}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${c.adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** A new account of `plan` with one key, known on every gateway. */
async function account(c: PartitionCluster, plan: keyof typeof PLANS): Promise<{ keyId: string; key: string }> {
  const acc = await admin<{ account_id: string }>(c, 'POST', '/accounts', { name: `partitions ${plan}`, plan });
  if (acc.status !== 201) throw new Error(`create account: ${acc.status} ${JSON.stringify(acc.body)}`);
  const key = await admin<{ key_id: string; key: string }>(c, 'POST', `/accounts/${acc.body.account_id}/keys`, {});
  if (key.status !== 201) throw new Error(`create key: ${key.status} ${JSON.stringify(key.body)}`);
  await until('the new key known on every gateway', 15_000, async () =>
    (
      await keyStatuses(
        c.gateways.map((g) => g.url),
        key.body.key,
      )
    ).every((s) => s === 304),
  );
  return { keyId: key.body.key_id, key: key.body.key };
}

async function until(label: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (await probe().catch(() => false)) return Date.now() - start;
    await sleep(250);
  }
  throw new Error(`${label}: not within ${timeoutMs} ms`);
}

/** The most messages any projection has not applied yet; null when the stream does not answer in 1.5 s. */
async function lagOf(probes: Probes): Promise<number | null> {
  const ask = async () => {
    const names = ['catalog', 'series', 'cot', 'supply_demand'];
    const infos = await Promise.all(
      names.map((n) => probes.messaging.jsm.consumers.info('CDS_DATA', `projector-${n}`)),
    );
    return Math.max(...infos.map((i) => i.num_pending + i.num_ack_pending));
  };
  return Promise.race([ask().catch(() => null), sleep(1_500).then(() => null)]);
}

/** Records requests of a load as RequestRecords relative to `t0`. */
function records(report: LoadReport, t0: number, kind: RequestRecord['kind']): RequestRecord[] {
  return report.samples.map((s) => {
    const sent = report.startedAt + s.at;
    return { at: sent - t0, ms: s.ms, status: s.status, gateway: s.url, kind, minute: Math.floor(sent / 60_000) };
  });
}

/** Runs `scenario` on a fresh cluster; writes its history, SVG and verdicts under ARTIFACTS. */
export async function runScenario(scenario: Scenario, log: (line: string) => void = () => {}): Promise<ScenarioResult> {
  const c = await startPartitionCluster();
  let probes: Probes | undefined;
  try {
    probes = await openProbes(c.natsUrl, c.mongoUrl);
    const result = await underLoad(c, probes, scenario, log);
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, `${scenario.name}.json`), `${JSON.stringify(result.history)}\n`);
    writeFileSync(join(ARTIFACTS, `${scenario.name}.svg`), result.svg);
    return result;
  } catch (err) {
    throw new Error(`${scenario.name}: ${err instanceof Error ? err.message : String(err)}\n${c.tails()}`, {
      cause: err,
    });
  } finally {
    await probes?.close();
    await c.stop();
  }
}

async function underLoad(c: PartitionCluster, probes: Probes, scenario: Scenario, log: (l: string) => void) {
  const base = await ingest(c, [...DEMO, '--today', BASE_TODAY], 180_000);
  if (base.code !== 0) throw new Error(`the demo backfill failed (${base.code}):\n${base.out}`);
  await waitForProjections(probes.messaging, 120_000);
  const before = (await streamMessageIds(probes.messaging)).length;
  const [load1, load2, limited, victim] = await Promise.all([
    account(c, 'enterprise'),
    account(c, 'enterprise'),
    account(c, LIMITED_PLAN),
    account(c, 'enterprise'),
  ]);
  const urls = c.gateways.map((g) => g.url);
  for (const path of LOAD_PATHS) {
    const res = await fetch(`${urls[0]}${path}`, { headers: { authorization: `Bearer ${load1.key}` } });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status} before the partition: ${await res.text()}`);
  }
  const fallbacksBefore = await fallbackCount(urls);
  const t0 = Date.now();
  const at = () => Date.now() - t0;
  const steady = startLoad({
    urls,
    keys: [load1.key, load2.key],
    paths: LOAD_PATHS,
    ratePerSec: 8,
    durationMs: 600_000,
  });
  const overLimit = startLoad({
    urls,
    keys: [limited.key],
    paths: [LOAD_PATHS[0]!],
    ratePerSec: 2,
    durationMs: 600_000,
  });
  const lag: History['lag'] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const t = at();
      lag.push({ at: t, pending: await lagOf(probes) });
      await sleep(Math.max(0, 1_000 - (at() - t)));
    }
  })();
  await sleep(4_000);

  const from = at();
  const cut = await scenario.cut(c);
  log(`${scenario.name}: cut at ${from} ms: ${cut.cut}`);
  const during = ingest(c, DEMO, 420_000);
  const probesOfKey: KeyProbe[] = [];
  let probing = true;
  const keyProber = (async () => {
    while (probing) {
      const t = at();
      const statuses = await Promise.all(
        urls.map((u) =>
          keyStatuses([u], victim.key)
            .then((s) => s[0]!)
            .catch(() => 0),
        ),
      );
      statuses.forEach((status, gateway) => probesOfKey.push({ at: t, gateway, status }));
      await sleep(Math.max(0, 250 - (at() - t)));
    }
  })();
  await sleep(2_000);
  let answeredAt: number | null = null;
  // The admin API's answers until the 200, by status, and the last refusal's body.
  const revokeAnswers = new Map<number, number>();
  let lastRefusal = '';
  const revoking = (async () => {
    const deadline = Date.now() + scenario.holdMs + 90_000;
    while (Date.now() < deadline) {
      const r = await admin<unknown>(c, 'POST', `/keys/${victim.keyId}/revoke`).catch((err: unknown) => ({
        status: 0,
        body: String(err),
      }));
      revokeAnswers.set(r.status, (revokeAnswers.get(r.status) ?? 0) + 1);
      if (r.status === 200) {
        answeredAt = at();
        return;
      }
      lastRefusal = JSON.stringify(r.body).slice(0, 300);
      await sleep(500);
    }
  })();
  await sleep(Math.max(0, from + scenario.holdMs - at()));
  const atHeal = [
    `at the heal: meta leader ${(await c.metaLeader()) || 'none'}, the sentinels name ${(await c.sentinelPrimary()) || 'no single primary'}`,
  ];
  await c.net.healAll();
  const to = at();
  log(`${scenario.name}: healed at ${to} ms`);
  await revoking;
  let unhealed = '';
  await until('the NATS cluster whole again', 120_000, async () => {
    unhealed = await c.natsUnhealed(probes.messaging);
    return unhealed === '';
  }).catch((err: unknown) => {
    throw new Error(`${String(err)} (${unhealed})`, { cause: err });
  });
  const healedMs = at() - to;
  // A run that gave up (exit 1) is run again once the cluster is whole, as docs/reliability.md ("Failure modes") tells
  // an operator: its events carry the same ids, so what it had stored is skipped as duplicates.
  const ingestRuns = [await during];
  if (ingestRuns[0]!.code !== 0) {
    log(`${scenario.name}: the ingest during the cut exited ${ingestRuns[0]!.code}: ${lastLines(ingestRuns[0]!.out)}`);
    ingestRuns.push(await ingest(c, DEMO, 420_000));
  }
  const runs = [base, ...ingestRuns].map((r) => ({ code: r.code, ...ingestCounts(r.out), said: lastLines(r.out) }));
  const recovered = await until('every gateway refuses the revoked key', 120_000, async () =>
    (await keyStatuses(urls, victim.key)).every((s) => s === 401),
  )
    .then(() => at() - to)
    .catch(() => -1);
  await until('projections caught up', 180_000, async () => projectionsCaughtUp(probes.messaging));
  await sleep(3_000);
  probing = false;
  sampling = false;
  await Promise.all([keyProber, sampler]);
  const [steadyReport, limitedReport] = await Promise.all([steady.stop(), overLimit.stop()]);
  log(
    `${scenario.name}: converged ${at() - to} ms after the heal (whole ${healedMs} ms, every gateway refusing ${recovered} ms)`,
  );
  const ids = await streamMessageIds(probes.messaging);
  const added = ids.slice(before);
  const live = await readModelFingerprint(probes.db('cds'));
  // Up to four tries: the rebuild's own deadlines (5 s a JetStream request) are a clean run's, and
  // after a cut between servers their routes may flap a while (docs/reliability.md "Partitions").
  let rebuilds = 0;
  for (;;) {
    rebuilds += 1;
    try {
      await rebuildReference(c.nats.projector, c.mongoUrl, 'cds_reference');
      break;
    } catch (err) {
      if (rebuilds >= 4) throw err;
      log(`${scenario.name}: the reference rebuild failed (${String(err).split('\n')[0]}); again in 15 s`);
      await sleep(15_000);
      await probes.db('cds_reference').dropDatabase();
    }
  }
  const reference = await readModelFingerprint(probes.db('cds_reference'));
  const history: History = {
    scenario: scenario.name,
    title: scenario.title,
    cut: cut.cut,
    startedEpoch: t0,
    gateways: [...GATEWAYS],
    cutOffGateways: cut.cutOffGateways,
    bounds: BOUNDS,
    partition: { from, to },
    requests: [...records(steadyReport, t0, 'load'), ...records(limitedReport, t0, 'limited')].sort(
      (a, b) => a.at - b.at,
    ),
    lag,
    revocation: { answeredAt, probes: probesOfKey },
    limited: { perMinute: PLANS[LIMITED_PLAN].perMinute },
    // The base run's events were in the stream before the count started: only the run during the cut counts.
    ingest: {
      runs: runs.slice(1).map(({ code, published, duplicates }) => ({ code, published, duplicates })),
      added: added.length,
      distinct: new Set(added.filter((x) => x !== '')).size,
    },
    readModels: {
      live: live.hash,
      reference: reference.hash,
      points: live.seriesPoints,
      reports: live.cotReports,
      differences: READ_MODELS.flatMap((m) => {
        const [l, r] = [live.models[m], reference.models[m]];
        return l.hash === r.hash ? [] : [`${m}: ${l.documents} / ${r.documents} documents`];
      }),
    },
    notes: [
      ...cut.notes,
      ...atHeal,
      `the revoke answered ${[...revokeAnswers].map(([status, n]) => `${status}×${n}`).join(', ')}${lastRefusal === '' ? '' : ` (the last refusal: ${lastRefusal})`}`,
      `${(await fallbackCount(urls)) - fallbacksBefore} rate decisions by the gateways' local fallback`,
      ...(rebuilds > 1 ? [`the reference rebuild took ${rebuilds} tries`] : []),
      ...runs.slice(1).flatMap((r) => (r.code === 0 ? [] : [`an ingest run exited ${r.code}: ${r.said}`])),
      `NATS cluster whole ${healedMs} ms after the heal`,
      `base backfill ${runs[0]!.published} events`,
    ],
  };
  return { history, verdicts: check(history), svg: timelineSvg(history) };
}
