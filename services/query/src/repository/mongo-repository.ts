import { createReadModelStore } from '@cds/store';
import type { ReadModelName } from '@cds/read-models';
import type { Db } from 'mongodb';
import { createReadModelRepository, type ReadModelRepository } from './repository.ts';

export interface MongoRepositoryOptions {
  db: Db;
  /** Deadline of every database operation. */
  maxTimeMs: number;
  /** Called when a read model was swapped to another collection (a rebuild), so caches can be dropped. */
  onCollectionSwap?: (name: ReadModelName) => void;
  /** Clock in ms, for the alias cache. */
  now?: () => number;
}

/**
 * The read models on a MongoDB API server, through the storage port (libs/store): the adapter
 * (FerretDB or MongoDB) is chosen from the server on the first request.
 */
export function createMongoRepository(opts: MongoRepositoryOptions): ReadModelRepository {
  return createReadModelRepository(
    createReadModelStore(opts.db, {
      timeoutMs: opts.maxTimeMs,
      ...(opts.onCollectionSwap === undefined ? {} : { onCollectionSwap: opts.onCollectionSwap }),
      ...(opts.now === undefined ? {} : { now: opts.now }),
    }),
  );
}
