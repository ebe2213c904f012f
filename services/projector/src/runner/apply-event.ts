import type { DataEvent } from '@cds/contracts';
import type { CasWrite, ReadModelCollection, StoreCall } from '@cds/store';
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

/** Default deadline of each database operation of the runner. */
export const DEFAULT_OPERATION_TIMEOUT_MS = 20_000;

/** An event with its stream position. */
export interface PositionedEvent {
  event: DataEvent;
  position: number;
}

/** Time a batch spent in each phase of its attempts (ms): reading documents, folding, writing. */
export interface ApplyPhases {
  load: number;
  fold: number;
  write: number;
}

export interface BatchApplyResult<D extends ProjectedDoc = ProjectedDoc> extends ApplyResult {
  /** Where the batch's time went (absent from fakes). */
  phaseMs?: ApplyPhases;
  /** Positions of the events that changed at least one document. */
  changedBy: Set<number>;
  /**
   * The documents the batch wrote, as written (an attempt that met a conflict counts what it
   * tried: a document it did write folds to itself in the next attempt, one it did not is written
   * then and replaces it). Absent from fakes.
   */
  writtenDocs?: readonly D[];
  /**
   * Positions of the events a stored document already reflects: the document's `_meta.parts` holds
   * the event's position (or, in a projection without parts, its `_meta.position` is the event's).
   * An event applied by an earlier attempt (a crash between the write and the ack, a retried batch)
   * folds to nothing, so it is missing from `changedBy`; this is how the caller still knows it.
   */
  reflected: Set<number>;
}

/**
 * The documents one writer last read or wrote, so a busy document is not read back before every
 * write. Safe with other writers: a stale entry fails the compare-and-set like any stale read, and
 * is then dropped and read afresh. Least recently used entries go first.
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

function withoutRev<D extends ProjectedDoc>(doc: D): D {
  const { rev: _rev, ...meta } = doc._meta;
  return { ...doc, _meta: meta };
}

/** The positions a stored document holds: its part positions, or its position when it keeps no parts. */
function heldPositions(doc: ProjectedDoc): Set<number> {
  const { parts, position } = doc._meta;
  return new Set(parts === undefined ? [position] : Object.values(parts));
}

/**
 * The fold: each touched document through its events in stream order, as compare-and-set writes of
 * the changed ones; with the positions of the events that changed something (`changedBy`) and of
 * those the stored documents already reflect (`reflected`, see BatchApplyResult).
 */
export function fold<D extends ProjectedDoc>(
  projection: Projection<D>,
  touched: ReadonlyMap<string, readonly PositionedEvent[]>,
  stored: ReadonlyMap<string, D>,
): { writes: CasWrite<D>[]; changedBy: Set<number>; reflected: Set<number> } {
  const writes: CasWrite<D>[] = [];
  const changedBy = new Set<number>();
  const reflected = new Set<number>();
  // What the batch made of each document so far: a later document's fold reads it as related.
  const folded = new Map<string, D>();
  const related = (id: string): D | undefined => folded.get(id) ?? stored.get(id);
  for (const [id, list] of touched) {
    const current = stored.get(id);
    if (current !== undefined) {
      const held = heldPositions(current);
      for (const { position } of list) if (held.has(position)) reflected.add(position);
    }
    const base = current === undefined ? projection.initial(id) : withoutRev(current);
    let next = base;
    if (projection.evolveAll !== undefined) {
      // The projection says what changed: no document is compared.
      const evolved = projection.evolveAll(base, list, related);
      for (const position of evolved.changedBy) changedBy.add(position);
      next = evolved.doc;
      folded.set(id, next);
      if (current !== undefined && next === base) continue;
    } else {
      for (const { event, position } of list) {
        const folded = projection.evolve(next, event, position);
        if (folded !== next && !isDeepStrictEqual(folded, next)) changedBy.add(position);
        next = folded;
      }
      folded.set(id, next);
      if (current !== undefined && (next === base || isDeepStrictEqual(next, base))) continue;
    }
    const rev = current === undefined ? null : current._meta.rev;
    writes.push({ doc: { ...next, _meta: { ...next._meta, rev: (rev ?? 0) + 1 } }, rev });
  }
  return { writes, changedBy, reflected };
}

/**
 * One attempt for a batch: loads the documents the events touch (from `cache` when it has them),
 * folds each through its events in the given order, and writes the changed ones with the port's
 * compare-and-set (insert when the document was missing, else replace if still at the revision
 * read). When another writer changed a document since it was read, the attempt reports
 * `conflict` and the caller reloads and folds again. No transactions.
 */
export async function applyEventsOnce<D extends ProjectedDoc>(
  target: ReadModelCollection<D>,
  projection: Projection<D>,
  events: readonly PositionedEvent[],
  cache?: DocCache<D>,
  call?: StoreCall,
): Promise<BatchApplyResult<D>> {
  const touched = new Map<string, PositionedEvent[]>();
  for (const pe of events) {
    for (const id of projection.keyOf(pe.event)) {
      let list = touched.get(id);
      if (list === undefined) touched.set(id, (list = []));
      list.push(pe);
    }
  }
  const phaseMs: ApplyPhases = { load: 0, fold: 0, write: 0 };
  if (touched.size === 0) {
    return { outcome: 'ignored', written: 0, conflicts: 0, changedBy: new Set(), reflected: new Set(), phaseMs };
  }
  let at = performance.now();
  const stored = new Map<string, D>();
  const missing: string[] = [];
  for (const id of touched.keys()) {
    const cached = cache?.get(id);
    if (cached === undefined) missing.push(id);
    else stored.set(id, cached);
  }
  // Related documents are read, never written: always from the store (another writer's newer
  // version would fail no compare-and-set here), in the same read as the missing touched ones.
  const related = new Set<string>();
  if (projection.related !== undefined) {
    for (const id of touched.keys()) for (const r of projection.related(id)) if (!touched.has(r)) related.add(r);
  }
  const toLoad = related.size === 0 ? missing : [...missing, ...related];
  for (const doc of toLoad.length === 0 ? [] : await target.load(toLoad, call)) {
    stored.set(doc._id, doc);
    if (!related.has(doc._id)) cache?.set(doc._id, doc);
  }
  phaseMs.load = performance.now() - at;
  at = performance.now();
  const { writes, changedBy, reflected } = fold(projection, touched, stored);
  phaseMs.fold = performance.now() - at;
  if (writes.length === 0) return { outcome: 'ignored', written: 0, conflicts: 0, changedBy, reflected, phaseMs };
  at = performance.now();
  const { written, conflicts } = await target.compareAndSet(writes, call);
  phaseMs.write = performance.now() - at;
  if (cache !== undefined) {
    // All written: what we wrote is what is stored. Otherwise some of these are stale: drop them all.
    for (const { doc } of writes) {
      if (conflicts === 0) cache.set(doc._id, doc);
      else cache.delete(doc._id);
    }
  }
  const writtenDocs = writes.map((w) => w.doc);
  const outcome = conflicts > 0 ? 'conflict' : 'applied';
  return { outcome, written, conflicts, changedBy, reflected, phaseMs, writtenDocs };
}

/** `applyEventsOnce` for one event. */
export async function applyEventOnce<D extends ProjectedDoc>(
  target: ReadModelCollection<D>,
  projection: Projection<D>,
  event: DataEvent,
  position: number,
  call?: StoreCall,
): Promise<ApplyResult> {
  const res = await applyEventsOnce(target, projection, [{ event, position }], undefined, call);
  return { outcome: res.outcome, written: res.written, conflicts: res.conflicts };
}

export interface ApplyOptions<D extends ProjectedDoc = ProjectedDoc> {
  /** Reload-and-fold rounds before giving up with ProjectionConflictError. Default 20. */
  maxAttempts?: number;
  /** Documents this writer read or wrote before (see DocCache); none by default. */
  cache?: DocCache<D>;
  /** Deadlines, cancellation and progress of the database operations. */
  limits?: StoreCall;
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
  target: ReadModelCollection<D>,
  projection: Projection<D>,
  event: DataEvent,
  position: number,
  opts: ApplyOptions<D> = {},
): Promise<ApplyResult> {
  const res = await applyEvents(target, projection, [{ event, position }], opts);
  return { outcome: res.outcome, written: res.written, conflicts: res.conflicts };
}

/** `applyEvent` for a batch of events in stream order (see `applyEventsOnce`). */
export async function applyEvents<D extends ProjectedDoc>(
  target: ReadModelCollection<D>,
  projection: Projection<D>,
  events: readonly PositionedEvent[],
  opts: ApplyOptions<D> = {},
): Promise<BatchApplyResult<D>> {
  const maxAttempts = opts.maxAttempts ?? 20;
  let conflicts = 0;
  let written = 0;
  const changedBy = new Set<number>();
  // A position any loaded version of a document held was applied: kept across attempts.
  const reflected = new Set<number>();
  const phaseMs: ApplyPhases = { load: 0, fold: 0, write: 0 };
  // By id, the latest attempt's version (see BatchApplyResult.writtenDocs).
  const writtenDocs = new Map<string, D>();
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const res = await applyEventsOnce(target, projection, events, opts.cache, opts.limits);
    for (const phase of ['load', 'fold', 'write'] as const) phaseMs[phase] += res.phaseMs?.[phase] ?? 0;
    for (const doc of res.writtenDocs ?? []) writtenDocs.set(doc._id, doc);
    conflicts += res.conflicts;
    written += res.written;
    for (const p of res.reflected) reflected.add(p);
    if (res.outcome !== 'conflict') {
      // Positions that changed something in a written attempt (a conflicting attempt's changes
      // for the documents it did write are folded again as no-ops, so count them from the first).
      for (const p of res.changedBy) changedBy.add(p);
      const outcome = written > 0 ? 'applied' : res.outcome;
      return { outcome, written, conflicts, changedBy, reflected, phaseMs, writtenDocs: [...writtenDocs.values()] };
    }
    for (const p of res.changedBy) changedBy.add(p);
    // Someone else holds the documents: give them a moment to finish before folding again.
    if (attempt > 1) await sleep(Math.min(200, 5 * 2 ** attempt), undefined, { signal: opts.limits?.signal });
  }
  throw new ProjectionConflictError(
    `${projection.name}: positions ${events[0]?.position}..${events.at(-1)?.position} still conflicting after ${maxAttempts} attempts`,
  );
}
