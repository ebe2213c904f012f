import { MongoServerError, type Collection, type Document, type IndexDescription } from 'mongodb';

const NAMESPACE_NOT_FOUND = 26;

/** An index to ensure; the name is required so a changed definition is detected. */
export type IndexSpec = IndexDescription & { name: string };

/** The fields of a `listIndexes` entry we compare. */
interface ExistingIndex {
  name: string;
  key: Document;
  unique?: boolean;
}

function sameKey(a: Document, b: IndexSpec['key']): boolean {
  const entries = b instanceof Map ? [...b.entries()] : Object.entries(b);
  return JSON.stringify(Object.entries(a)) === JSON.stringify(entries);
}

/**
 * Creates the indexes a collection needs and leaves existing ones alone, so it is safe at every
 * start. Each spec needs a `name`; an existing index with that name but another key or
 * uniqueness is an error (drop it, or pick a new name). Indexes are listed first and created one
 * per command because FerretDB 1.24 drops the connection (a server panic) when `createIndexes`
 * names two or more indexes that already exist. FerretDB supports plain, compound and unique
 * indexes; avoid partial, TTL, text and wildcard ones.
 */
export async function ensureIndexes<T extends Document>(
  collection: Collection<T>,
  specs: readonly IndexSpec[],
): Promise<{ created: string[]; existing: string[] }> {
  const where = `${collection.dbName}.${collection.collectionName}`;
  let current: ExistingIndex[];
  try {
    current = (await collection.listIndexes().toArray()) as ExistingIndex[];
  } catch (err) {
    if (!(err instanceof MongoServerError && err.code === NAMESPACE_NOT_FOUND)) throw err;
    current = [];
  }
  const created: string[] = [];
  const existing: string[] = [];
  for (const spec of specs) {
    const found = current.find((index) => index.name === spec.name);
    if (found !== undefined) {
      if (!sameKey(found.key, spec.key) || Boolean(found.unique) !== Boolean(spec.unique)) {
        throw new Error(
          `index ${spec.name} on ${where} exists as ${JSON.stringify({ key: found.key, unique: found.unique ?? false })}, ` +
            `wanted ${JSON.stringify({ key: spec.key, unique: spec.unique ?? false })}; drop it or use a new name`,
        );
      }
      existing.push(spec.name);
      continue;
    }
    try {
      await collection.createIndexes([spec]);
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new Error(`could not create index ${spec.name} on ${where}: ${detail}`, { cause: err });
    }
    created.push(spec.name);
  }
  return { created, existing };
}
