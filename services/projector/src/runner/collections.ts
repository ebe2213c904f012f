import {
  ALIAS_CACHE_MS,
  COLLECTIONS,
  INDEXES,
  activeCollection,
  type ReadModelAliasDoc,
  type ReadModelName,
} from '@cds/read-models';
import { withDeadline, type OperationDeadline } from '@cds/store';
import type { Collection, Db, Document } from 'mongodb';
import { DEFAULT_OPERATION_TIMEOUT_MS, type WriteClaimDoc, type WriteClaims } from './apply-event.ts';

const defaultDeadline: OperationDeadline = { timeoutMs: DEFAULT_OPERATION_TIMEOUT_MS };

/** Creates the read model's indexes on a physical collection (idempotent; FerretDB supports them all). */
export async function ensureReadModelIndexes(
  db: Db,
  name: ReadModelName,
  collection: string,
  deadline: OperationDeadline = defaultDeadline,
): Promise<void> {
  const coll = db.collection(collection);
  for (const spec of INDEXES[name]) {
    await withDeadline(`create index ${spec.name}`, deadline, ({ maxTimeMS }) =>
      coll.createIndex(spec.key, { name: spec.name, maxTimeMS, ...(spec.unique === true ? { unique: true } : {}) }),
    );
  }
}

export function aliasesCollection(db: Db): Collection<ReadModelAliasDoc> {
  return db.collection<ReadModelAliasDoc>(COLLECTIONS.aliases);
}

/** Reads the pointer document and returns the physical collection serving `name`. */
export async function readActiveCollection(
  db: Db,
  name: ReadModelName,
  deadline: OperationDeadline = defaultDeadline,
): Promise<string> {
  const alias = await withDeadline('read the read-model alias', deadline, (o) =>
    aliasesCollection(db).findOne({ _id: name }, o),
  );
  return activeCollection(name, alias);
}

export interface CollectionResolver<D extends Document> {
  /** The collection currently serving the read model; re-reads the pointer at most every ALIAS_CACHE_MS. */
  get(deadline?: OperationDeadline): Promise<Collection<D>>;
}

/** Resolves the live collection of a read model, following a rebuild's swap within ALIAS_CACHE_MS. */
export function createCollectionResolver<D extends Document>(
  db: Db,
  name: ReadModelName,
  now: () => number = Date.now,
): CollectionResolver<D> {
  let cached: { name: string; at: number } | undefined;
  return {
    async get(deadline?: OperationDeadline) {
      const t = now();
      if (cached === undefined || t - cached.at >= ALIAS_CACHE_MS) {
        cached = { name: await readActiveCollection(db, name, deadline), at: t };
      }
      return db.collection<D>(cached.name);
    },
  };
}

/** True when the server is FerretDB (its buildInfo carries `ferretdbVersion`). */
export async function isFerretDB(db: Db, deadline: OperationDeadline = defaultDeadline): Promise<boolean> {
  const info = await withDeadline('buildInfo', deadline, ({ signal }) =>
    db.admin().command({ buildInfo: 1 }, { signal }),
  );
  return typeof info.ferretdbVersion === 'string';
}

/**
 * True when the server's conditional replace is not atomic per document, i.e. FerretDB 1.x, so
 * the runner must use write claims.
 */
export async function needsWriteClaims(db: Db, deadline?: OperationDeadline): Promise<boolean> {
  return isFerretDB(db, deadline);
}

/** The claims collection beside a physical read-model collection. */
export function claimsCollectionName(collection: string): string {
  return `${collection}__claims`;
}

/** Write claims for one physical collection (see `WriteClaims`). */
export function createWriteClaims(db: Db, collection: string, owner: string, leaseMs = 15_000): WriteClaims {
  return {
    collection: db.collection<WriteClaimDoc>(claimsCollectionName(collection)),
    owner,
    leaseMs,
    now: Date.now,
  };
}
