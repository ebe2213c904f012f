import { createReadModelStore } from '@cds/store';
import type { ReadModelName } from '@cds/read-models';
import type { Db } from 'mongodb';
import { createReadMemo, type ReadMemo, type ReadMemoOptions } from './read-memo.ts';
import { createReadModelRepository, type ReadModelRepository } from './repository.ts';

export interface MongoRepositoryOptions {
  db: Db;
  /** Deadline of every database operation. */
  maxTimeMs: number;
  /** Called when a read model was swapped to another collection (a rebuild), so caches can be dropped. */
  onCollectionSwap?: (name: ReadModelName) => void;
  /** Clock in ms, for the alias cache and the read memo. */
  now?: () => number;
  /** Keep the catalog entries and current series buckets read (read-memo.ts); none reads them every time. */
  readMemo?: Omit<ReadMemoOptions, 'nowMs'>;
}

/** The repository, with its read memo when one was asked for (its owner drops it on data events). */
export type MongoRepository = ReadModelRepository & { readonly memo: ReadMemo | undefined };

/**
 * The read models on a MongoDB API server, through the storage port (libs/store): the adapter
 * (FerretDB or MongoDB) is chosen from the server on the first request.
 */
export function createMongoRepository(opts: MongoRepositoryOptions): MongoRepository {
  const store = createReadModelStore(opts.db, {
    timeoutMs: opts.maxTimeMs,
    ...(opts.onCollectionSwap === undefined ? {} : { onCollectionSwap: opts.onCollectionSwap }),
    ...(opts.now === undefined ? {} : { now: opts.now }),
  });
  if (opts.readMemo === undefined) return { ...createReadModelRepository(store), memo: undefined };
  const { reader, memo } = createReadMemo(store, {
    ...opts.readMemo,
    ...(opts.now === undefined ? {} : { nowMs: opts.now }),
  });
  return { ...createReadModelRepository(reader), memo };
}
