import {
  MongoServerError,
  type AnyBulkWriteOperation,
  type Collection,
  type Document,
  type Filter,
  type UpdateFilter,
} from 'mongodb';
import { DUPLICATE_KEY, isDuplicateKeyError } from './errors.ts';

/** One upsert: the document(s) matching `filter` get `update`, or a new one is inserted. */
export interface UpsertOp<T extends Document> {
  filter: Filter<T>;
  update: UpdateFilter<T>;
}

export interface BulkUpsertResult {
  matched: number;
  modified: number;
  upserted: number;
  /**
   * Indexes (into the input) of upserts refused with a duplicate key: the filter matched nothing
   * but the key exists. With a guard in the filter (e.g. `{ _id, '_meta.position': { $lt: seq } }`)
   * it means "the stored document is at least as new": the projection runner reports the event
   * as ignored instead of failing.
   */
  conflicts: number[];
}

/**
 * Applies many upserts in one round trip. When some are refused with a duplicate key, it falls
 * back to applying them one by one in input order: FerretDB 1.24 stops an unordered bulk at the
 * first error and reports wrong error indexes, so the bulk reply cannot say which writes
 * happened. This is correct because upserts are idempotent; after a fallback the counts describe
 * the one-by-one pass, and a guarded upsert the bulk pass already applied shows up as a conflict
 * (the stored document is then as new as the op, which is what a conflict means).
 * Any other error is thrown. No transactions are involved (FerretDB 1.x has none).
 */
export async function bulkUpsert<T extends Document>(
  collection: Collection<T>,
  ops: readonly UpsertOp<T>[],
  opts: { timeoutMs?: number } = {},
): Promise<BulkUpsertResult> {
  if (ops.length === 0) return { matched: 0, modified: 0, upserted: 0, conflicts: [] };
  const timeout = opts.timeoutMs !== undefined ? { timeoutMS: opts.timeoutMs } : {};
  const writes = ops.map((op): AnyBulkWriteOperation<T> => ({
    updateOne: { filter: op.filter, update: op.update, upsert: true },
  }));
  try {
    const result = await collection.bulkWrite(writes, { ordered: false, ...timeout });
    return {
      matched: result.matchedCount,
      modified: result.modifiedCount,
      upserted: result.upsertedCount,
      conflicts: [],
    };
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  const total: BulkUpsertResult = { matched: 0, modified: 0, upserted: 0, conflicts: [] };
  for (const [index, op] of ops.entries()) {
    try {
      const r = await collection.updateOne(op.filter, op.update, { upsert: true, ...timeout });
      total.matched += r.matchedCount;
      total.modified += r.modifiedCount;
      total.upserted += r.upsertedCount;
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
      total.conflicts.push(index);
    }
  }
  return total;
}
