import {
  ALIAS_CACHE_MS,
  COLLECTIONS,
  activeCollection,
  type ReadModelAliasDoc,
  type ReadModelName,
} from '@cds/read-models';
import type { Collection, Db } from 'mongodb';
import { withDeadline, type OperationDeadline } from '../deadline.ts';

export function aliasesCollection(db: Db): Collection<ReadModelAliasDoc> {
  return db.collection<ReadModelAliasDoc>(COLLECTIONS.aliases);
}

/** Reads the pointer document and returns the physical collection serving `name` (see ReadModelAliasDoc). */
export async function readActiveCollection(
  db: Db,
  name: ReadModelName,
  deadline: OperationDeadline = { timeoutMs: 20_000 },
): Promise<string> {
  const alias = await withDeadline('read the read-model alias', deadline, (o) =>
    aliasesCollection(db).findOne({ _id: name }, { ...o, projection: { collection: 1 } }),
  );
  return activeCollection(name, alias);
}

/** Resolves the live collection of each read model, re-reading its pointer at most every ALIAS_CACHE_MS. */
export function createAliasResolver(
  db: Db,
  now: () => number,
  onSwap?: (name: ReadModelName, collection: string) => void,
): (name: ReadModelName, deadline: OperationDeadline) => Promise<string> {
  const cached = new Map<ReadModelName, { collection: string; until: number }>();
  return async (name, deadline) => {
    const hit = cached.get(name);
    const t = now();
    if (hit !== undefined && hit.until > t) return hit.collection;
    const collection = await readActiveCollection(db, name, deadline);
    cached.set(name, { collection, until: t + ALIAS_CACHE_MS });
    if (hit !== undefined && hit.collection !== collection) onSwap?.(name, collection);
    return collection;
  };
}
