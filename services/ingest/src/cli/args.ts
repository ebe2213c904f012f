import { parseCommandLine, readCommand, UsageError } from '@cds/config';
import { SYNC_SOURCE_NAMES, type SyncSourceName } from '@cds/contracts';
import { DEMO_PARTS, INPUTS, inputNamed, SYNCED } from '../sources/registry.ts';
import type { FileFlags } from '../sources/types.ts';

/** The `--source` values of backfill and fetch: every input of every registered source. */
const SOURCE_NAMES = INPUTS.map((i) => i.name);
/** The inputs with a live fetch, for the usage text. */
const LIVE_NAMES = INPUTS.filter((i) => typeof i.live === 'function').map((i) => i.name);
/** What a flag only some inputs take is for, in the usage text. */
const flagUsers = (flag: keyof FileFlags) => INPUTS.filter((i) => i.file.takes?.includes(flag)).map((i) => i.name);
/** The flags of the file readers, each with the inputs that read it and what it is for (the usage text's options). */
const FLAG_LINES = (
  ['commodity', 'series', 'report', 'publishedAt'] as const satisfies readonly (keyof FileFlags)[]
).flatMap((flag) =>
  INPUTS.flatMap((i) => {
    const what = i.file.flags?.[flag];
    const shown = flag === 'publishedAt' ? '--published-at TIME' : `--${flag} ID`;
    return what === undefined ? [] : [`  ${shown.padEnd(22)}  ${i.name}: ${what}`];
  }),
);
/** The keys sync cannot run a source without, as `<source> (<variable>)`. */
const REQUIRED_KEYS = SYNCED.flatMap(({ name, source }) =>
  source.credentials.filter((c) => c.required).map((c) => `${name} (${c.env})`),
);

export const INGEST_USAGE = `Usage: npm run ingest -- <command> [options]

Commands:
  backfill --source <${SOURCE_NAMES.join('|')}> --file <path>
                          Parse a downloaded source file and publish its records
                          (the options below name the flags some sources' files need).
  backfill --snapshot <dir> [--editions-since YYYY-MM | --history-before YYYY-MM]
                          [--rates-since YYYY-MM | --rates-before YYYY-MM]
                          Load a snapshot of real data (data/snapshot: the one the repository ships;
                          docs/sources.md "The bundled snapshot"). --editions-since leaves out the
                          supply and demand releases of older editions; --history-before loads only
                          those (npm start loads them after the keys). --rates-since YYYY-MM leaves
                          out the exchange rates of older months; --rates-before YYYY-MM loads only
                          those.
  backfill --demo [--years N] [--seed LABEL] [--today YYYY-MM-DD] [--without ${DEMO_PARTS.join(',')}]
                          Generate deterministic demo data for the whole catalog (default 3 years),
                          marked source "demo"; --without leaves out what real data replaces: cot
                          the COT reports and open interest, each other part the series mapped to
                          the source of that name.
  fetch --source <${LIVE_NAMES.join('|')}> [--since YYYY-MM-DD]
                          Fetch from the live source and publish (also: backfill --source X --since D).
  sync [--source <${SYNC_SOURCE_NAMES.join('|')}|all>] [--since YYYY-MM-DD]
                          Ask each official source only for what is newer than what was published
                          (with an overlap that catches revisions) and publish it. Default: all.
                          --since re-asks from a date.
                          Keys it needs: ${REQUIRED_KEYS.join(', ')}.

Options:
${FLAG_LINES.join('\n')}
  --nats-url URL          NATS address (default: $NATS_URL, else .cds/local.json from npm start)
  --no-ledger             Skip the published-batch ledger (rely on the stream's duplicate window)
  --quiet                 No progress output
  -h, --help              This text

Prints a summary: records read, rejected (file:line: reason), events published, duplicates skipped.
Exit code 0 when the run completed (even with rejected rows), 1 on a fatal error, 2 on bad usage;
sync: 1 when a source failed (named on stderr; the other sources still ran).`;

// The command-line kit every CLI here shares lives in libs/config (cli.ts).
export { parseCommandLine, readCommand, UsageError };

export type IngestCommand =
  | { command: 'help' }
  | {
      command: 'backfill';
      source: SourceName;
      file: string;
      commodity?: string;
      series?: string;
      /** ams: the report the file answers for. */
      report?: string;
      /** Supply and demand: when the file was published (RFC 3339). */
      publishedAt?: string;
      common: CommonOptions;
    }
  | {
      command: 'demo';
      years: number;
      seed?: string;
      today?: string;
      /** Parts left out because real data replaces them. */
      without?: DemoPart[];
      common: CommonOptions;
    }
  | {
      command: 'snapshot';
      dir: string;
      /** Supply and demand editions (YYYY-MM): from `since`; or only those before `before`, nothing else. */
      editions?: SnapshotHalf;
      /** The exchange rates' points by month (YYYY-MM): from `since`; or only those before `before`, nothing else. */
      rates?: SnapshotHalf;
      common: CommonOptions;
    }
  | { command: 'fetch'; source: SourceName; since?: string; common: CommonOptions }
  | { command: 'sync'; sources: SyncSourceName[]; since?: string; common: CommonOptions };

export { SYNC_SOURCE_NAMES, type SyncSourceName };
/** A `--source` value of backfill or fetch (an input of a registered source). */
export type SourceName = string;
/** A part of the demo `--without` leaves out (a source's `demo.part`). */
export type DemoPart = string;

export interface CommonOptions {
  natsUrl?: string;
  ledger: boolean;
  quiet: boolean;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MONTH = /^\d{4}-(?:0[1-9]|1[0-2])$/;

function isSource(s: string): boolean {
  return inputNamed(s) !== undefined;
}

type SnapshotHalf = { since: string } | { before: string };

/**
 * One part of a snapshot load asked in halves (YYYY-MM): from `since`, or only those before `before`
 * (npm start loads the newer half before the keys, the older after them); undefined: all of it.
 */
function snapshotHalf(
  flags: readonly [since: string, before: string],
  since: string | undefined,
  before: string | undefined,
): SnapshotHalf | undefined {
  if (since !== undefined && before !== undefined)
    throw new UsageError(`--${flags[0]} and --${flags[1]} are two halves of one load: give one`);
  for (const [flag, month] of [
    [flags[0], since],
    [flags[1], before],
  ] as const)
    if (month !== undefined && !MONTH.test(month)) throw new UsageError(`--${flag} must be YYYY-MM, got ${month}`);
  return since !== undefined ? { since } : before !== undefined ? { before } : undefined;
}

/** `backfill --snapshot <dir>` with its halves: the supply and demand editions and the exchange rates. */
function snapshotCommand(
  dir: string,
  v: Partial<Record<'editions-since' | 'history-before' | 'rates-since' | 'rates-before', string>>,
  common: CommonOptions,
): IngestCommand {
  const editions = snapshotHalf(['editions-since', 'history-before'], v['editions-since'], v['history-before']);
  const rates = snapshotHalf(['rates-since', 'rates-before'], v['rates-since'], v['rates-before']);
  // the older rates alone: nothing else of the snapshot goes with them
  if (rates !== undefined && 'before' in rates && editions !== undefined)
    throw new UsageError(
      '--rates-before loads only the older exchange rates: it takes no --editions-since or --history-before',
    );
  return {
    command: 'snapshot',
    dir,
    ...(editions !== undefined ? { editions } : {}),
    ...(rates !== undefined ? { rates } : {}),
    common,
  };
}

/** Parses the ingest CLI's arguments (after `npm run ingest --`); throws UsageError. */
export function parseIngestArgs(argv: readonly string[]): IngestCommand {
  const parsed = parseCommandLine(
    argv,
    {
      source: { type: 'string' },
      file: { type: 'string' },
      demo: { type: 'boolean' },
      snapshot: { type: 'string' },
      'editions-since': { type: 'string' },
      'history-before': { type: 'string' },
      'rates-since': { type: 'string' },
      'rates-before': { type: 'string' },
      years: { type: 'string' },
      seed: { type: 'string' },
      today: { type: 'string' },
      without: { type: 'string' },
      since: { type: 'string' },
      commodity: { type: 'string' },
      series: { type: 'string' },
      report: { type: 'string' },
      'published-at': { type: 'string' },
      'nats-url': { type: 'string' },
      'no-ledger': { type: 'boolean' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    'missing command (backfill, fetch or sync)',
  );
  if (!('values' in parsed)) return { command: 'help' };
  const { command, values: v } = parsed;
  if (command !== 'backfill' && command !== 'fetch' && command !== 'sync')
    throw new UsageError(`unknown command ${command}`);
  const common: CommonOptions = {
    ...(v['nats-url'] !== undefined ? { natsUrl: v['nats-url'] } : {}),
    ledger: v['no-ledger'] !== true,
    quiet: v.quiet === true,
  };
  if (v.since !== undefined && !DATE.test(v.since)) throw new UsageError(`--since must be YYYY-MM-DD, got ${v.since}`);
  if (v.today !== undefined && !DATE.test(v.today)) throw new UsageError(`--today must be YYYY-MM-DD, got ${v.today}`);

  for (const flag of ['editions-since', 'history-before', 'rates-since', 'rates-before'] as const)
    if (v[flag] !== undefined && v.snapshot === undefined) throw new UsageError(`--${flag} goes with --snapshot`);

  if (command === 'sync') {
    for (const flag of [
      'file',
      'demo',
      'snapshot',
      'years',
      'seed',
      'today',
      'without',
      'commodity',
      'series',
      'report',
      'published-at',
    ] as const)
      if (v[flag] !== undefined) throw new UsageError(`sync takes no --${flag}`);
    const source = v.source ?? 'all';
    if (source !== 'all' && !(SYNC_SOURCE_NAMES as readonly string[]).includes(source))
      throw new UsageError(`unknown sync source ${source}: expected ${SYNC_SOURCE_NAMES.join(', ')} or all`);
    return {
      command: 'sync',
      sources: source === 'all' ? [...SYNC_SOURCE_NAMES] : [source as SyncSourceName],
      ...(v.since !== undefined ? { since: v.since } : {}),
      common,
    };
  }
  if (v.snapshot !== undefined) {
    if (command !== 'backfill') throw new UsageError('--snapshot goes with backfill');
    for (const flag of [
      'source',
      'file',
      'demo',
      'since',
      'years',
      'without',
      'commodity',
      'series',
      'published-at',
    ] as const)
      if (v[flag] !== undefined) throw new UsageError(`--snapshot takes no --${flag}`);
    return snapshotCommand(v.snapshot, v, common);
  }
  if (v.demo === true) {
    if (command !== 'backfill') throw new UsageError('--demo goes with backfill');
    if (v.source !== undefined || v.file !== undefined)
      throw new UsageError('--demo takes neither --source nor --file');
    const years = v.years === undefined ? 3 : Number(v.years);
    if (!Number.isInteger(years) || years < 1 || years > 50)
      throw new UsageError('--years must be a whole number from 1 to 50');
    const without = v.without === undefined ? undefined : v.without.split(',').map((p) => p.trim());
    for (const part of without ?? []) {
      if (!DEMO_PARTS.includes(part))
        throw new UsageError(`--without takes ${DEMO_PARTS.join(', ')} (comma-separated), got ${part || '(empty)'}`);
    }
    return {
      command: 'demo',
      years,
      ...(without !== undefined ? { without } : {}),
      ...(v.seed !== undefined ? { seed: v.seed } : {}),
      ...(v.today !== undefined ? { today: v.today } : {}),
      common,
    };
  }
  if (v.years !== undefined) throw new UsageError('--years goes with --demo');
  if (v.without !== undefined) throw new UsageError('--without goes with --demo');
  if (v.source === undefined) throw new UsageError('--source is required (or --demo)');
  if (!isSource(v.source))
    throw new UsageError(`unknown source ${v.source}: expected one of ${SOURCE_NAMES.join(', ')}`);
  if (command === 'fetch' || (v.file === undefined && v.since !== undefined)) {
    if (v.file !== undefined) throw new UsageError('fetch reads the live source: drop --file');
    return { command: 'fetch', source: v.source, ...(v.since !== undefined ? { since: v.since } : {}), common };
  }
  if (v.file === undefined) throw new UsageError('--file is required (or --since to fetch from the live source)');
  const file = inputNamed(v.source)!.file;
  for (const { flag, hint } of file.requires ?? [])
    if (v[flag === 'publishedAt' ? 'published-at' : flag] === undefined)
      throw new UsageError(`--${flag} is required for --source ${v.source}${hint !== undefined ? ` (${hint})` : ''}`);
  for (const flag of ['report'] as const)
    if (v[flag] !== undefined && !(file.takes ?? []).includes(flag))
      throw new UsageError(`--${flag} goes with --source ${flagUsers(flag).join(', ')}`);
  const publishedAt = v['published-at'];
  if (publishedAt !== undefined && !(file.takes ?? []).includes('publishedAt'))
    throw new UsageError(`--published-at goes with --source ${flagUsers('publishedAt').join(', ')}`);
  return {
    command: 'backfill',
    source: v.source,
    file: v.file,
    ...(v.commodity !== undefined ? { commodity: v.commodity } : {}),
    ...(v.series !== undefined ? { series: v.series } : {}),
    ...(v.report !== undefined ? { report: v.report } : {}),
    ...(publishedAt !== undefined ? { publishedAt } : {}),
    common,
  };
}
