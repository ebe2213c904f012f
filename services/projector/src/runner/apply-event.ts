import type { DataEvent } from '@cds/contracts';
import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection } from 'mongodb';
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

/**
 * One attempt: loads the documents the event touches, folds the event into each, and writes the
 * ones that changed in one unordered bulkWrite. Each write is a compare-and-set on `_meta.rev`
 * (insert when the document was missing, so a racing insert fails on the unique `_id`): when
 * another writer changed a document since it was read, the attempt reports `conflict` and the
 * caller reloads and folds again. FerretDB 1.x runs this too (no transactions needed).
 */
export async function applyEventOnce<D extends ProjectedDoc>(
  collection: Collection<D>,
  projection: Projection<D>,
  event: DataEvent,
  position: number,
): Promise<ApplyResult> {
  const ids = projection.keyOf(event);
  if (ids.length === 0) return { outcome: 'ignored', written: 0, conflicts: 0 };
  const stored = new Map<string, D>();
  const found = await collection.find({ _id: { $in: ids } } as never).toArray();
  for (const doc of found) stored.set(doc._id, doc as D);

  const ops: AnyBulkWriteOperation<D>[] = [];
  for (const id of ids) {
    const current = stored.get(id);
    const base = current === undefined ? projection.initial(id) : (withoutRev(current) as D);
    const next = projection.evolve(base, event, position);
    if (current !== undefined && (next === base || isDeepStrictEqual(next, base))) continue;
    const rev = current?._meta.rev;
    const doc = { ...next, _meta: { ...next._meta, rev: (rev ?? 0) + 1 } };
    if (current === undefined) {
      ops.push({ insertOne: { document: doc as never } });
    } else {
      ops.push({
        replaceOne: {
          filter: { _id: id, '_meta.rev': rev === undefined ? { $exists: false } : rev } as never,
          replacement: doc,
        },
      });
    }
  }
  if (ops.length === 0) return { outcome: 'ignored', written: 0, conflicts: 0 };

  let inserted: number;
  let matched: number;
  try {
    const res = await collection.bulkWrite(ops, { ordered: false });
    inserted = res.insertedCount;
    matched = res.matchedCount;
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const errors: { code: number }[] = Array.isArray(err.writeErrors)
      ? (err.writeErrors as { code: number }[])
      : [err.writeErrors as { code: number }];
    // A duplicate _id is a racing insert: a conflict, folded again. Anything else is a failure.
    if (!errors.every((e) => e.code === DUPLICATE_KEY)) throw err;
    inserted = err.result.insertedCount;
    matched = err.result.matchedCount;
  }
  const written = inserted + matched;
  const conflicts = ops.length - written;
  return { outcome: conflicts > 0 ? 'conflict' : 'applied', written, conflicts };
}

export interface ApplyOptions {
  /** Reload-and-fold rounds before giving up with ProjectionConflictError. Default 10. */
  maxAttempts?: number;
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
  opts: ApplyOptions = {},
): Promise<ApplyResult> {
  const maxAttempts = opts.maxAttempts ?? 10;
  let conflicts = 0;
  let written = 0;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const res = await applyEventOnce(collection, projection, event, position);
    conflicts += res.conflicts;
    written += res.written;
    if (res.outcome !== 'conflict') {
      return { outcome: written > 0 ? 'applied' : res.outcome, written, conflicts };
    }
  }
  throw new ProjectionConflictError(
    `${projection.name}: position ${position} still conflicting after ${maxAttempts} attempts`,
  );
}
