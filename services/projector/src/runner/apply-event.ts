import type { DataEvent } from '@cds/contracts';
import { withDeadline, type DeadlineOptions } from '@cds/store';
import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Document } from 'mongodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import type { ProjectedDoc, Projection } from '../projections/types.ts';

/** applied: at least one document changed; ignored: nothing to change (replay, redelivery, unhandled type). */
export type ApplyOutcome = 'applied' | 'ignored' | 'conflict';

export interface ApplyResult {
  outcome: ApplyOutcome;
  /** Documents written (inserted or replaced). */
  written: number;
  /** Compare-and-set conflicts met on the way (another writer got there first). */
  conflicts: number;
}

const DUPLICATE_KEY = 11000;

function withoutRev(doc: ProjectedDoc): ProjectedDoc {
  const { rev: _rev, ...meta } = doc._meta;
  return { ...doc, _meta: meta };
}

/** A short-lived claim on "the write that supersedes revision N of document X" (see WriteClaims). */
export interface WriteClaimDoc {
  /** `${docId}#${rev}` */
  _id: string;
  owner: string;
  at: number;
}

/**
 * Makes compare-and-set atomic where the server does not: FerretDB 1.x evaluates a replace's
 * non-`_id` filter in its own process and then writes by `_id`, so two racing replaceOne calls
 * filtered on the same `_meta.rev` can both succeed. Before replacing revision N of X a writer
 * inserts the claim `X#N` (the unique `_id` makes the insert atomic on any server), replaces,
 * and removes the claim. A claim left behind by a writer that died is taken over after `leaseMs`.
 * Real MongoDB needs none of this (its replaceOne is atomic per document).
 */
export interface WriteClaims {
  collection: Collection<WriteClaimDoc>;
  /** Unique per writer (process and projection). */
  owner: string;
  leaseMs: number;
  now: () => number;
}

function claimId(id: string, rev: number | undefined): string {
  return `${id}#${rev ?? 0}`;
}

function duplicateKeyIndexes(err: unknown): Set<number> | undefined {
  if (!(err instanceof MongoBulkWriteError)) return undefined;
  const errors: { code: number; index: number }[] = Array.isArray(err.writeErrors)
    ? (err.writeErrors as { code: number; index: number }[])
    : [err.writeErrors as { code: number; index: number }];
  if (!errors.every((e) => e.code === DUPLICATE_KEY)) return undefined;
  return new Set(errors.map((e) => e.index));
}

/** Default deadline of each database operation of the runner. */
export const DEFAULT_OPERATION_TIMEOUT_MS = 20_000;

/** How the runner talks to the database: deadlines, cancellation, progress, command sizes. */
export interface DatabaseLimits {
  /** Deadline of every database operation (`withDeadline`). Default DEFAULT_OPERATION_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Aborts the operations in flight (the pull loop's watchdog, a stop). */
  signal?: AbortSignal;
  /** Called after every database operation that answered (progress, for the watchdog). */
  onAnswer?: () => void;
  /**
   * Most update statements in one command. Default: FERRETDB_UPDATES_PER_COMMAND under write
   * claims, else unlimited. The worker sets it from the server, claims or not (see there).
   */
  maxUpdatesPerCommand?: number;
}

/** Runs database operations under `limits` (see `withDeadline`). */
type Runner = <T>(what: string, op: (o: DeadlineOptions) => Promise<T>) => Promise<T>;

function runnerFor(limits: DatabaseLimits = {}): Runner {
  const deadline = {
    timeoutMs: limits.timeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS,
    ...(limits.signal !== undefined ? { signal: limits.signal } : {}),
  };
  return async (what, op) => {
    const res = await withDeadline(what, deadline, op);
    limits.onAnswer?.();
    return res;
  };
}

/** Claims `ids`; returns the ones this writer holds (fresh, its own, or taken over after the lease). */
async function claim(claims: WriteClaims, ids: string[], run: Runner): Promise<Set<string>> {
  const at = claims.now();
  const held = new Set(ids);
  try {
    await run('insert write claims', ({ maxTimeMS }) =>
      claims.collection.insertMany(
        ids.map((_id) => ({ _id, owner: claims.owner, at })),
        { ordered: false, maxTimeMS },
      ),
    );
    return held;
  } catch (err) {
    const dup = duplicateKeyIndexes(err);
    if (dup === undefined) throw err;
    const taken = ids.filter((_, i) => dup.has(i));
    for (const id of taken) held.delete(id);
    const found = await run('read write claims', (o) => claims.collection.find({ _id: { $in: taken } }, o).toArray());
    for (const c of found) {
      if (c.owner === claims.owner) held.add(c._id);
      else if (at - c.at > claims.leaseMs) {
        // The holder died mid-write: drop its claim; the next attempt claims afresh.
        await run('drop an expired write claim', ({ maxTimeMS }) =>
          claims.collection.deleteOne({ _id: c._id, owner: c.owner, at: c.at }, { maxTimeMS }),
        );
      }
    }
    return held;
  }
}

/**
 * One attempt: loads the documents the event touches, folds the event into each, and writes the
 * ones that changed in one unordered bulkWrite. Each write is a compare-and-set on `_meta.rev`
 * (insert when the document was missing, so a racing insert fails on the unique `_id`): when
 * another writer changed a document since it was read, the attempt reports `conflict` and the
 * caller reloads and folds again. No transactions (FerretDB 1.x has none); with `claims` the
 * compare-and-set is atomic on FerretDB too.
 */
export async function applyEventOnce<D extends ProjectedDoc>(
  collection: Collection<D>,
  projection: Projection<D>,
  event: DataEvent,
  position: number,
  claims?: WriteClaims,
  limits?: DatabaseLimits,
): Promise<ApplyResult> {
  const res = await applyEventsOnce(collection, projection, [{ event, position }], claims, undefined, limits);
  return { outcome: res.outcome, written: res.written, conflicts: res.conflicts };
}

/**
 * Most update statements in one command on FerretDB. FerretDB 1.24 keeps each statement's query
 * open, holding one of its 100 pooled SQLite connections, until the whole update command ends
 * (`defer` in a loop in its `update` handler): a command of 100 statements waits forever for a
 * connection it holds itself, and every later query of that database waits behind it (a `ping`
 * still answers). It ignores `maxTimeMS` there and does not notice a client that hung up, so only
 * a restart frees it. Small commands keep that far out of reach, with or without write claims.
 */
export const FERRETDB_UPDATES_PER_COMMAND = 16;

/** An event with its stream position. */
export interface PositionedEvent {
  event: DataEvent;
  position: number;
}

export interface BatchApplyResult extends ApplyResult {
  /** Positions of the events that changed at least one document. */
  changedBy: Set<number>;
}

/**
 * `applyEventOnce` for a batch: one read of every document the events touch, each document folded
 * through its events in the given order, one bulkWrite of the changed ones.
 */
/**
 * The stored documents with these ids. On MongoDB one `$in` query; under claims (FerretDB) one
 * `findOne` per id, since FerretDB pushes down only a filter that is exactly `{_id: <string>}` and
 * decodes the whole collection for anything else (`$in` included).
 */
async function loadByIds<D extends ProjectedDoc>(
  collection: Collection<D>,
  ids: readonly string[],
  perId: boolean,
  run: Runner,
) {
  if (ids.length === 0) return [];
  if (!perId) return run('read documents', (o) => collection.find({ _id: { $in: ids } } as never, o).toArray());
  const docs = await Promise.all(
    ids.map((id) => run('read a document', (o) => collection.findOne({ _id: id } as never, o))),
  );
  return docs.filter((d) => d !== null);
}

/**
 * The documents one writer last read or wrote, so a busy document is not read back before every
 * write. Safe with other writers: a stale entry fails the compare-and-set (or, under claims, the
 * revision check) like any stale read, and is then dropped and read afresh. Least recently used
 * entries go first.
 */
export interface DocCache<D> {
  get(id: string): D | undefined;
  set(id: string, doc: D): void;
  delete(id: string): void;
}

export function createDocCache<D>(maxEntries = 512): DocCache<D> {
  const docs = new Map<string, D>();
  return {
    get(id) {
      const doc = docs.get(id);
      if (doc !== undefined) {
        docs.delete(id);
        docs.set(id, doc);
      }
      return doc;
    },
    set(id, doc) {
      docs.delete(id);
      docs.set(id, doc);
      if (docs.size > maxEntries) docs.delete(docs.keys().next().value!);
    },
    delete(id) {
      docs.delete(id);
    },
  };
}

export async function applyEventsOnce<D extends ProjectedDoc>(
  collection: Collection<D>,
  projection: Projection<D>,
  events: readonly PositionedEvent[],
  claims?: WriteClaims,
  cache?: DocCache<D>,
  limits?: DatabaseLimits,
): Promise<BatchApplyResult> {
  const run = runnerFor(limits);
  const touched = new Map<string, PositionedEvent[]>();
  for (const pe of events) {
    for (const id of projection.keyOf(pe.event)) {
      let list = touched.get(id);
      if (list === undefined) touched.set(id, (list = []));
      list.push(pe);
    }
  }
  const changedBy = new Set<number>();
  const ids = [...touched.keys()];
  if (ids.length === 0) return { outcome: 'ignored', written: 0, conflicts: 0, changedBy };
  const stored = new Map<string, D>();
  const unpack = (raw: Document): D => (projection.unpack === undefined ? (raw as D) : projection.unpack(raw));
  const pack = (doc: D): Document => (projection.pack === undefined ? doc : projection.pack(doc));
  const missing: string[] = [];
  for (const id of ids) {
    const cached = cache?.get(id);
    if (cached === undefined) missing.push(id);
    else stored.set(id, cached);
  }
  for (const raw of await loadByIds(collection, missing, claims !== undefined, run)) {
    const doc = unpack(raw);
    stored.set(doc._id, doc);
    cache?.set(doc._id, doc);
  }

  const inserts: D[] = [];
  const replaces: { id: string; rev: number | undefined; doc: D }[] = [];
  for (const [id, list] of touched) {
    const current = stored.get(id);
    const base = current === undefined ? projection.initial(id) : (withoutRev(current) as D);
    let next = base;
    for (const { event, position } of list) {
      const folded = projection.evolve(next, event, position);
      if (folded !== next && !isDeepStrictEqual(folded, next)) changedBy.add(position);
      next = folded;
    }
    if (current !== undefined && (next === base || isDeepStrictEqual(next, base))) continue;
    const rev = current?._meta.rev;
    const doc = { ...next, _meta: { ...next._meta, rev: (rev ?? 0) + 1 } };
    if (current === undefined) inserts.push(doc);
    else replaces.push({ id, rev, doc });
  }
  const wanted = inserts.length + replaces.length;
  if (wanted === 0) return { outcome: 'ignored', written: 0, conflicts: 0, changedBy };

  let claimed: string[] = [];
  let toReplace = replaces;
  if (claims !== undefined && replaces.length > 0) {
    const held = await claim(
      claims,
      replaces.map((r) => claimId(r.id, r.rev)),
      run,
    );
    toReplace = replaces.filter((r) => held.has(claimId(r.id, r.rev)));
    claimed = [...held];
    // Claims are released after each write, so a document may have moved on between our read and
    // our claim: confirm, under the claim, that it is still at the revision we folded from.
    const now = await loadByIds(
      collection,
      toReplace.map((r) => r.id),
      true,
      run,
    );
    const revNow = new Map<string, number | undefined>(now.map((d) => [String(d._id), (d as D)._meta.rev]));
    toReplace = toReplace.filter((r) => revNow.get(r.id) === r.rev);
  }
  const insertOps: AnyBulkWriteOperation<D>[] = inserts.map((doc) => ({
    insertOne: { document: pack(doc) as never },
  }));
  const replaceOps: AnyBulkWriteOperation<D>[] = toReplace.map(({ id, rev, doc }) => ({
    replaceOne: {
      // Under claims (FerretDB) the claim and the check above guard the revision, and a filter on
      // `_id` alone is the only one FerretDB answers without decoding the whole collection.
      filter: (claims !== undefined
        ? { _id: id }
        : { _id: id, '_meta.rev': rev === undefined ? { $exists: false } : rev }) as never,
      replacement: pack(doc) as never,
    },
  }));
  // Replaces go in commands of at most `perCommand` statements (see FERRETDB_UPDATES_PER_COMMAND).
  const perCommand = limits?.maxUpdatesPerCommand ?? (claims !== undefined ? FERRETDB_UPDATES_PER_COMMAND : Infinity);
  const commands =
    replaceOps.length <= perCommand
      ? [[...insertOps, ...replaceOps]]
      : [
          insertOps,
          ...Array.from({ length: Math.ceil(replaceOps.length / perCommand) }, (_, i) =>
            replaceOps.slice(i * perCommand, (i + 1) * perCommand),
          ),
        ];

  let written = 0;
  let writeFailed = true;
  try {
    for (const ops of commands) {
      if (ops.length === 0) continue;
      try {
        const res = await run('write documents', ({ maxTimeMS }) =>
          collection.bulkWrite(ops, { ordered: false, maxTimeMS }),
        );
        written += res.insertedCount + res.matchedCount;
      } catch (err) {
        // A duplicate _id is a racing insert: a conflict, folded again. Anything else is a failure.
        if (duplicateKeyIndexes(err) === undefined || !(err instanceof MongoBulkWriteError)) throw err;
        written += err.result.insertedCount + err.result.matchedCount;
      }
    }
    writeFailed = false;
  } finally {
    // A write that failed (past its deadline, connection lost) may still land on the server: its
    // claims stay until their lease ends, so no other writer replaces those documents meanwhile
    // (this writer's own retry holds them already, being their owner).
    if (claims !== undefined && claimed.length > 0 && !writeFailed) {
      await run('release write claims', ({ maxTimeMS }) =>
        claims.collection.deleteMany({ _id: { $in: claimed }, owner: claims.owner }, { maxTimeMS }),
      );
    }
  }
  const conflicts = wanted - written;
  if (cache !== undefined) {
    // All written: what we wrote is what is stored. Otherwise some of these are stale: drop them all.
    for (const doc of [...inserts, ...replaces.map((r) => r.doc)]) {
      if (conflicts === 0) cache.set(doc._id, doc);
      else cache.delete(doc._id);
    }
  }
  return { outcome: conflicts > 0 ? 'conflict' : 'applied', written, conflicts, changedBy };
}

export interface ApplyOptions<D extends ProjectedDoc = ProjectedDoc> {
  /** Reload-and-fold rounds before giving up with ProjectionConflictError. Default 20. */
  maxAttempts?: number;
  /** Write claims for servers without an atomic conditional replace (FerretDB 1.x). */
  claims?: WriteClaims;
  /** Documents this writer read or wrote before (see DocCache); none by default. */
  cache?: DocCache<D>;
  /** Deadlines, cancellation and command sizes of the database operations. */
  limits?: DatabaseLimits;
}

/** Thrown when compare-and-set kept failing; the consumer treats it as transient and retries in place. */
export class ProjectionConflictError extends Error {
  override readonly name = 'ProjectionConflictError';
}

/**
 * Applies one event to a read model: folds and writes with compare-and-set, reloading and folding
 * again on conflict. Already-applied documents fold to themselves, so a retry after a partial
 * write (or a replay) writes only what is missing. Resolves `applied` or `ignored`.
 */
export async function applyEvent<D extends ProjectedDoc>(
  collection: Collection<D>,
  projection: Projection<D>,
  event: DataEvent,
  position: number,
  opts: ApplyOptions<D> = {},
): Promise<ApplyResult> {
  const res = await applyEvents(collection, projection, [{ event, position }], opts);
  return { outcome: res.outcome, written: res.written, conflicts: res.conflicts };
}

/** `applyEvent` for a batch of events in stream order (see `applyEventsOnce`). */
export async function applyEvents<D extends ProjectedDoc>(
  collection: Collection<D>,
  projection: Projection<D>,
  events: readonly PositionedEvent[],
  opts: ApplyOptions<D> = {},
): Promise<BatchApplyResult> {
  const maxAttempts = opts.maxAttempts ?? 20;
  let conflicts = 0;
  let written = 0;
  const changedBy = new Set<number>();
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const res = await applyEventsOnce(collection, projection, events, opts.claims, opts.cache, opts.limits);
    conflicts += res.conflicts;
    written += res.written;
    if (res.outcome !== 'conflict') {
      // Positions that changed something in a written attempt (a conflicting attempt's changes
      // for the documents it did write are folded again as no-ops, so count them from the first).
      for (const p of res.changedBy) changedBy.add(p);
      return { outcome: written > 0 ? 'applied' : res.outcome, written, conflicts, changedBy };
    }
    for (const p of res.changedBy) changedBy.add(p);
    // Someone else holds the documents: give them a moment to finish before folding again.
    if (attempt > 1) await sleep(Math.min(200, 5 * 2 ** attempt), undefined, { signal: opts.limits?.signal });
  }
  throw new ProjectionConflictError(
    `${projection.name}: positions ${events[0]?.position}..${events.at(-1)?.position} still conflicting after ${maxAttempts} attempts`,
  );
}
