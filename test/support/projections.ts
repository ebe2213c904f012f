// Probes of the event side for the replica and fault suites: the data stream's state, the
// projectors' durable consumers (caught up or not), and a clean reference of the read models
// rebuilt from the stream into a database of its own by the projector's `rebuild` command.
import { spawn } from 'node:child_process';
import { join, relative } from 'node:path';
import { DATA_STREAM } from '@cds/contracts';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { REPO_ROOT } from '@cds/testkit';
import { MongoClient, type Db } from 'mongodb';
import type { ReadModelName } from '@cds/read-models';
import { FIXTURES } from './harness.ts';
import { READ_MODELS } from './read-model-hash.ts';

/** A real excerpt the ingest keeps with its own specs (services/ingest/test/fixtures), as a path from FIXTURES. */
const ingestFixture = (file: string): string =>
  relative(FIXTURES, join(REPO_ROOT, 'services', 'ingest', 'test', 'fixtures', file));

/** The real source excerpts the suites ingest: [source, file in FIXTURES (`join(FIXTURES, file)`)]. */
export const REAL_FILES: [string, string][] = [
  ['cftc-legacy', 'cftc_legacy_fut_annual_2025_excerpt.txt'],
  ['cftc-disaggregated', 'cftc_disagg_fut_f_year_2021_excerpt.txt'],
  // the legacy futures-and-options combined reports and the CIT supplement (their own COT datasets)
  ['cftc-legacy-combined', ingestFixture('cftc_legacy_combined_2026_excerpt.txt')],
  ['cftc-cit', ingestFixture('cftc_cit_2024_excerpt.txt')],
  ['eia', 'eia_rwtc_wti_spot_daily_2022_excerpt.csv'],
  ['eia', 'eia_wcestus1_crude_stocks_weekly_2024_excerpt.csv'],
  ['nass', 'nass_quickstats_corn_yield_states_2025_excerpt.csv'],
];

export interface Probes {
  messaging: Messaging;
  mongo: MongoClient;
  db(name?: string): Db;
  close(): Promise<void>;
}

/** Opens a NATS and a MongoDB client for probing (not used by any service). */
export async function openProbes(natsUrl: string, mongoUrl: string): Promise<Probes> {
  const messaging = await connectMessaging({ servers: natsUrl, name: 'e2e-probe' });
  const mongo = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5_000 });
  await mongo.connect();
  return {
    messaging,
    mongo,
    db: (name = 'cds') => mongo.db(name),
    async close() {
      await messaging.close().catch(() => undefined);
      await mongo.close().catch(() => undefined);
    },
  };
}

/** Messages stored in the data stream and its last sequence. */
export async function dataStreamState(messaging: Messaging): Promise<{ messages: number; lastSeq: number }> {
  const info = await messaging.jsm.streams.info(DATA_STREAM);
  return { messages: info.state.messages, lastSeq: info.state.last_seq };
}

/** The `Nats-Msg-Id` of every message in the data stream, in sequence order ('' when it has none). */
export async function streamMessageIds(messaging: Messaging): Promise<string[]> {
  const { lastSeq } = await dataStreamState(messaging);
  const ids: string[] = [];
  for (let seq = 1; seq <= lastSeq; seq += 1) {
    const m = await messaging.jsm.streams.getMessage(DATA_STREAM, { seq });
    ids.push(m?.header?.get('Nats-Msg-Id') ?? '');
  }
  return ids;
}

/** True when every projection's durable consumer has nothing pending and nothing unacknowledged. */
export async function projectionsCaughtUp(messaging: Messaging): Promise<boolean> {
  for (const name of READ_MODELS) {
    const info = await messaging.jsm.consumers.info(DATA_STREAM, `projector-${name}`).catch(() => undefined);
    if (info === undefined || info.num_pending > 0 || info.num_ack_pending > 0) return false;
  }
  return true;
}

/** Waits until every projection caught up with the stream; returns how long it took (ms). */
export async function waitForProjections(messaging: Messaging, timeoutMs: number): Promise<number> {
  const start = Date.now();
  // Two consecutive caught-up probes, so a message stored between them is not missed.
  let streak = 0;
  while (Date.now() - start < timeoutMs) {
    streak = (await projectionsCaughtUp(messaging).catch(() => false)) ? streak + 1 : 0;
    if (streak >= 2) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 250));
  }
  const states = await Promise.all(
    READ_MODELS.map(async (name) => {
      const info = await messaging.jsm.consumers.info(DATA_STREAM, `projector-${name}`).catch(() => undefined);
      return `${name}: pending ${info?.num_pending} unacked ${info?.num_ack_pending} ack floor ${info?.ack_floor.stream_seq}`;
    }),
  );
  throw new Error(`projections did not catch up within ${timeoutMs} ms (${states.join('; ')})`);
}

/** A node script of this repository, killed (SIGKILL) if it has not exited within `timeoutMs`. */
function runNode(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/**
 * The projector's `rebuild` of one read model, run as in a projector pod: `natsUrl` is the
 * projector's NATS user (`infra.identities.nats.projector`), `db` the database whose read model is
 * replayed into a new collection and switched to (the previous one kept with `keepPrevious`).
 */
export function runRebuild(
  projection: ReadModelName,
  target: { natsUrl: string; mongoUrl: string; db: string },
  opts: { keepPrevious?: boolean } = {},
): Promise<{ code: number | null; out: string }> {
  return runNode(
    [
      'services/projector/src/cli.ts',
      'rebuild',
      '--projection',
      projection,
      ...(opts.keepPrevious === true ? ['--keep-previous'] : []),
    ],
    { NATS_URL: target.natsUrl, MONGODB_URL: target.mongoUrl, MONGODB_DB: target.db },
  );
}

/**
 * The clean reference: replays the whole data stream into the fresh database `db` with the
 * projector's own `rebuild` command (an ordered consumer per projection from sequence 1, no
 * faults, no competing replicas). Returns the milliseconds it took.
 */
export async function rebuildReference(natsUrl: string, mongoUrl: string, db: string): Promise<number> {
  const start = Date.now();
  // The three projections read disjoint collections: rebuild them side by side.
  const runs = await Promise.all(
    READ_MODELS.map((projection) =>
      runRebuild(projection, { natsUrl, mongoUrl, db }, { keepPrevious: true }).then((run) => ({ projection, ...run })),
    ),
  );
  for (const run of runs) {
    if (run.code !== 0) throw new Error(`rebuild ${run.projection} into ${db} failed (${run.code}):\n${run.out}`);
  }
  return Date.now() - start;
}

/** Parses the ingest CLI summary: events published and duplicates skipped. */
export function ingestCounts(stdout: string): { published: number; duplicates: number; records: number } {
  const num = (re: RegExp) => Number((re.exec(stdout)?.[1] ?? 'NaN').replace(/,/g, ''));
  return {
    published: num(/events published:\s+([\d,]+)/),
    duplicates: num(/duplicates skipped:\s+([\d,]+)/),
    records: num(/with ([\d,]+) records/),
  };
}
