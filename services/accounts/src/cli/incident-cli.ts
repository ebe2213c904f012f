import { DATASET_IDS, datasetById, INCIDENT_STATES, type Incident } from '@cds/contracts';
import {
  LOCAL_ENV_PATH,
  parseCommandLine,
  positiveIntVar,
  readCommand,
  readLocalEnv,
  resolveAddresses,
  urlCredentials,
  UsageError,
} from '@cds/config';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { jetstream } from '@nats-io/jetstream';
import type { CliIo } from './admin-cli.ts';
import { openIncidentStore, type IncidentOpening, type IncidentState, type IncidentStore } from './incidents.ts';

type OpenState = Exclude<IncidentState, 'resolved'>;
const OPEN_STATES = INCIDENT_STATES.filter((s): s is OpenState => s !== 'resolved');

export const INCIDENT_USAGE = `Usage: npm run admin -- incident <command> [options]

Incidents are what the status page (GET /api/v1/datasets and its Atom feed) tells users about an
outage, in an operator's words (docs/operations.md "Incidents").

Commands:
  open     --title TEXT --message TEXT [--datasets ID,ID] [--state ${OPEN_STATES.join('|')}]
           prints the new incident's id (inc_...); no --datasets: the whole service
  update   INC_ID --message TEXT [--state ${OPEN_STATES.join('|')}]
  resolve  INC_ID --message TEXT
  list     [--all]   the open incidents (--all: the resolved ones too), newest first

Options:
  --nats-url URL   NATS as the admin's user (default: $NATS_URL, else .cds/local.json from npm start)
  --json           print the incident (list: the incidents) as JSON
  -h, --help       this text

Datasets: ${DATASET_IDS.join(', ')}.
The bucket is created with $STREAM_REPLICAS replicas (default 1) when it does not exist yet.`;

interface Common {
  json: boolean;
  natsUrl?: string;
}

export type IncidentCommand =
  | { command: 'help' }
  | ({ command: 'open'; opening: IncidentOpening } & Common)
  | ({ command: 'update'; id: string; state?: OpenState; message: string } & Common)
  | ({ command: 'resolve'; id: string; message: string } & Common)
  | ({ command: 'list'; all: boolean } & Common);

const OPTIONS = {
  title: { type: 'string' },
  message: { type: 'string' },
  datasets: { type: 'string' },
  state: { type: 'string' },
  all: { type: 'boolean' },
  'nats-url': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The flags each command takes besides --nats-url, --json and --help. */
const FLAGS: Record<string, readonly string[]> = {
  open: ['title', 'message', 'datasets', 'state'],
  update: ['message', 'state'],
  resolve: ['message'],
  list: ['all'],
};

function text(value: string | undefined, flag: string, max: number): string {
  if (value === undefined) throw new UsageError(`--${flag} is required`);
  const trimmed = value.trim();
  if (trimmed === '') throw new UsageError(`--${flag} is empty`);
  if (trimmed.length > max) throw new UsageError(`--${flag} is longer than ${max} characters`);
  return trimmed;
}

function openState(value: string | undefined): OpenState | undefined {
  if (value === undefined) return undefined;
  const state = OPEN_STATES.find((s) => s === value);
  if (state === undefined) {
    const hint = value === 'resolved' ? ' (use: incident resolve INC_ID --message TEXT)' : '';
    throw new UsageError(`--state must be one of ${OPEN_STATES.join(', ')}, not ${value}${hint}`);
  }
  return state;
}

function datasetList(value: string | undefined): string[] {
  const ids = [...new Set((value ?? '').split(',').map((d) => d.trim()))].filter((d) => d !== '');
  const unknown = ids.filter((d) => datasetById(d) === undefined);
  if (unknown.length > 0) {
    throw new UsageError(`unknown dataset ${unknown.join(', ')}: the datasets are ${DATASET_IDS.join(', ')}`);
  }
  return ids;
}

/** Parses `incident <command> [INC_ID] [options]` (the arguments after `incident`). */
export function parseIncidentArgs(argv: readonly string[]): IncidentCommand {
  const [first, second, ...rest] = argv;
  // update and resolve name the incident right after the command
  const withId = (first === 'update' || first === 'resolve') && second !== undefined && !second.startsWith('-');
  const parsed = parseCommandLine(
    withId ? [first, ...rest] : argv,
    OPTIONS,
    'missing incident command (open, update, resolve or list)',
  );
  if (!('values' in parsed)) return { command: 'help' };
  const { command, values: v } = parsed;
  const flags = FLAGS[command];
  if (flags === undefined) throw new UsageError(`unknown incident command ${command}`);
  const extra = Object.keys(v).find((f) => !['nats-url', 'json', 'help', ...flags].includes(f));
  if (extra !== undefined) throw new UsageError(`incident ${command} takes no --${extra}`);
  const common: Common = { json: v.json === true, ...(v['nats-url'] !== undefined ? { natsUrl: v['nats-url'] } : {}) };
  const id = () => {
    if (!withId) throw new UsageError(`incident ${command} needs the incident's id (inc_...) after ${command}`);
    return second;
  };
  switch (command) {
    case 'open':
      return {
        command,
        opening: {
          title: text(v.title, 'title', 200),
          message: text(v.message, 'message', 2_000),
          datasets: datasetList(v.datasets),
          state: openState(v.state) ?? 'investigating',
        },
        ...common,
      };
    case 'update': {
      const state = openState(v.state);
      return { command, id: id(), message: text(v.message, 'message', 2_000), ...(state ? { state } : {}), ...common };
    }
    case 'resolve':
      return { command, id: id(), message: text(v.message, 'message', 2_000), ...common };
    default:
      return { command: 'list', all: v.all === true, ...common };
  }
}

/** One incident as `list` prints it: its line, then its latest update. */
export function formatIncident(i: Incident): string {
  const datasets = i.datasets.length === 0 ? 'the whole service' : i.datasets.join(', ');
  const last = i.updates.at(-1)!;
  const resolved = i.resolved_at !== undefined ? `  resolved ${i.resolved_at}` : '';
  return [
    `${i.id}  ${i.state}  started ${i.started_at}${resolved}  ${datasets}  ${i.title}`,
    `  ${last.at} ${last.state}: ${last.message}`,
  ].join('\n');
}

async function execute(store: IncidentStore, cmd: Exclude<IncidentCommand, { command: 'help' }>): Promise<string> {
  const shown = (value: Incident | Incident[], line: string) => (cmd.json ? JSON.stringify(value, null, 2) : line);
  switch (cmd.command) {
    case 'open': {
      const incident = await store.open(cmd.opening);
      return shown(incident, incident.id);
    }
    case 'update': {
      const incident = await store.update(cmd.id, { message: cmd.message, ...(cmd.state ? { state: cmd.state } : {}) });
      return shown(incident, `incident ${incident.id}: ${incident.state} (${incident.updates.length} updates)`);
    }
    case 'resolve': {
      const incident = await store.resolve(cmd.id, cmd.message);
      return shown(incident, `incident ${incident.id} resolved at ${incident.resolved_at ?? ''}`);
    }
    case 'list': {
      const incidents = await store.list(cmd.all);
      const none = cmd.all ? 'no incidents' : 'no open incidents';
      return shown(incidents, incidents.length === 0 ? none : incidents.map(formatIncident).join('\n'));
    }
  }
}

/** The deadline of each NATS call: the connection, every KV read, write and bucket request. */
const TIMEOUT_MS = 5_000;

/**
 * NATS as the admin's user: --nats-url, else $NATS_URL, else the `adminNatsUrl` that `npm start`
 * writes to .cds/local.json (its `natsUrl` is the data publisher's user, which may not write incidents).
 */
function adminNatsUrl(flag: string | undefined, env: CliIo['env']): string | undefined {
  return resolveAddresses({ ...(flag !== undefined ? { natsUrl: flag } : {}) }, env, () => {
    const local = readLocalEnv(env.CDS_LOCAL_ENV ?? LOCAL_ENV_PATH);
    return local === undefined ? undefined : { ...local, natsUrl: local.adminNatsUrl ?? '' };
  }).natsUrl;
}

/**
 * `npm run admin -- incident …`: writes and lists the incidents in NATS KV. Exit 0 on success, 1
 * when NATS cannot be reached or refuses, 2 on usage (an unknown dataset or incident, an empty
 * message, a resolved incident changed again).
 */
export async function runIncidentCli(
  argv: readonly string[],
  io: CliIo,
  deps: { clock?: () => Date; random?: (n: number) => Buffer } = {},
): Promise<number> {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  const cmd = readCommand(parseIncidentArgs, argv, INCIDENT_USAGE, io);
  if (typeof cmd === 'number') return cmd;
  const replicas = positiveIntVar.safeParse(io.env.STREAM_REPLICAS ?? '1');
  if (!replicas.success) {
    say(`error: STREAM_REPLICAS must be a positive integer, not ${io.env.STREAM_REPLICAS}`);
    return 2;
  }
  let url: string | undefined;
  try {
    url = adminNatsUrl(cmd.natsUrl, io.env);
  } catch (err) {
    say(`error: ${(err as Error).message}`);
    return 1;
  }
  if (url === undefined || url === '') {
    say("error: no NATS address: pass --nats-url or set NATS_URL (the admin's NATS user), or run `npm start`");
    return 1;
  }
  let messaging: Messaging;
  try {
    messaging = await connectMessaging({ servers: url, name: `admin-incident-${process.pid}`, timeoutMs: TIMEOUT_MS });
  } catch (err) {
    say(`error: cannot reach NATS at ${urlCredentials(url).address}: ${(err as Error).message}`);
    return 1;
  }
  try {
    const js = jetstream(messaging.nc, { timeout: TIMEOUT_MS });
    const store = await openIncidentStore({
      js,
      jsm: await js.jetstreamManager(),
      replicas: replicas.data,
      timeoutMs: TIMEOUT_MS,
      ...deps,
    });
    io.stdout.write(`${await execute(store, cmd)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      say(`error: ${err.message}`);
      return 2;
    }
    const message = (err as Error).message;
    const hint = /permission/i.test(message)
      ? ` (the NATS user must be the admin's: docs/operations.md "Incidents")`
      : '';
    say(`error: incident ${cmd.command} failed: ${message}${hint}`);
    return 1;
  } finally {
    await messaging.close().catch(() => undefined);
  }
}
