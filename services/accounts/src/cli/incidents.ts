import { randomBytes } from 'node:crypto';
import { Incident, type INCIDENT_STATES } from '@cds/contracts';
import { UsageError } from '@cds/config';
import { incidentsBucketSpec, isWrongLastSequence } from '@cds/messaging';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';

export type IncidentState = (typeof INCIDENT_STATES)[number];

/** What opening an incident takes: its title, the datasets it affects (none: the whole service), the first update. */
export interface IncidentOpening {
  title: string;
  datasets: readonly string[];
  state: Exclude<IncidentState, 'resolved'>;
  message: string;
}

/**
 * The incidents an operator writes (`npm run admin -- incident …`), one KV key per incident id in
 * INCIDENTS_BUCKET; the gateway follows the bucket for GET /datasets and its Atom feed. Each write
 * is a compare-and-set on the key's revision, so two operators updating one incident at once both
 * land (the loser reads it again). A missing incident or a resolved one is a UsageError (exit 2).
 */
export interface IncidentStore {
  open(opening: IncidentOpening): Promise<Incident>;
  update(id: string, change: { state?: Exclude<IncidentState, 'resolved'>; message: string }): Promise<Incident>;
  resolve(id: string, message: string): Promise<Incident>;
  /** Newest started first; open ones only unless `all`. */
  list(all: boolean): Promise<Incident[]>;
}

/** Attempts of a compare-and-set before it gives up (operators writing the same incident at once). */
const ATTEMPTS = 3;

/** A new incident id: `inc_` and 20 random hex digits. */
export function newIncidentId(random: (n: number) => Buffer = randomBytes): string {
  return `inc_${random(10).toString('hex')}`;
}

/** The incident after one more update (`resolved` sets resolved_at). */
export function withUpdate(incident: Incident, state: IncidentState, message: string, at: Date): Incident {
  const when = at.toISOString();
  return Incident.parse({
    ...incident,
    state,
    ...(state === 'resolved' ? { resolved_at: when } : {}),
    updates: [...incident.updates, { at: when, state, message }],
  });
}

/**
 * The incidents in INCIDENTS_BUCKET (created when absent, `replicas` then). `js` and `jsm` carry
 * the deadline of every read and bucket call (nats.js `timeout`); each write has `timeoutMs`.
 */
export async function openIncidentStore(deps: {
  js: JetStreamClient;
  jsm: JetStreamManager;
  replicas: number;
  timeoutMs: number;
  bucket?: string;
  clock?: () => Date;
  random?: (n: number) => Buffer;
}): Promise<IncidentStore> {
  const spec = incidentsBucketSpec({ replicas: deps.replicas, bucket: deps.bucket });
  const [bucket] = spec;
  const kv: KV = await new Kvm(deps.js).create(...spec);
  const clock = deps.clock ?? (() => new Date());
  const timeout = deps.timeoutMs;

  const read = async (id: string): Promise<{ incident: Incident; revision: number } | undefined> => {
    if (!/^inc_[0-9a-z]+$/.test(id)) return undefined;
    const entry = await kv.get(id);
    if (entry === null || entry.operation !== 'PUT') return undefined;
    const parsed = Incident.safeParse(entry.json());
    if (!parsed.success) throw new Error(`${bucket} ${id}: not an incident (${parsed.error.issues[0]?.message})`);
    return { incident: parsed.data, revision: entry.revision };
  };

  /** Reads the incident, checks and changes it, and writes it back unless another writer came first (then again). */
  const change = async (id: string, next: (incident: Incident) => Incident): Promise<Incident> => {
    for (let attempt = 1; ; attempt++) {
      const found = await read(id);
      if (found === undefined) throw new UsageError(`unknown incident ${id} (see: incident list --all)`);
      if (found.incident.state === 'resolved') {
        throw new UsageError(
          `incident ${id} is resolved already (${found.incident.resolved_at ?? ''}): open a new one`,
        );
      }
      const changed = next(found.incident);
      try {
        await kv.put(id, JSON.stringify(changed), { previousSeq: found.revision, timeout });
        return changed;
      } catch (err) {
        if (attempt >= ATTEMPTS || !isWrongLastSequence(err)) throw err;
      }
    }
  };

  return {
    async open(opening) {
      const at = clock().toISOString();
      const incident = Incident.parse({
        id: newIncidentId(deps.random),
        title: opening.title,
        state: opening.state,
        datasets: [...opening.datasets],
        started_at: at,
        updates: [{ at, state: opening.state, message: opening.message }],
      });
      // previousSeq 0: the id is new (a collision fails instead of overwriting)
      await kv.put(incident.id, JSON.stringify(incident), { previousSeq: 0, timeout });
      return incident;
    },
    update: (id, { state, message }) => change(id, (i) => withUpdate(i, state ?? i.state, message, clock())),
    resolve: (id, message) => change(id, (i) => withUpdate(i, 'resolved', message, clock())),
    async list(all) {
      // The bucket's keys from its stream's subjects (no consumer needed), then each key's value.
      const prefix = `$KV.${bucket}.`;
      const info = await deps.jsm.streams.info(`KV_${bucket}`, { subjects_filter: `${prefix}>` });
      const ids = Object.keys(info.state.subjects ?? {}).map((s) => s.slice(prefix.length));
      const found = await Promise.all(ids.map(read));
      return found
        .flatMap((f) => (f === undefined ? [] : [f.incident]))
        .filter((i) => all || i.state !== 'resolved')
        .sort((a, b) => b.started_at.localeCompare(a.started_at) || a.id.localeCompare(b.id));
    },
  };
}
