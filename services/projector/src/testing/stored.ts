import type { CotBucketDoc, SeriesBucketDoc } from '@cds/read-models';
import { unpackCotBucket, unpackSeriesBucket, type PackedCotBucketDoc, type PackedSeriesBucketDoc } from '@cds/store';
import type { Db, Filter } from 'mongodb';

/** The series buckets of a collection matching `filter`, unpacked, sorted by `_id`. */
export async function readSeriesBuckets(
  db: Db,
  collection: string,
  filter: Filter<PackedSeriesBucketDoc> = {},
): Promise<SeriesBucketDoc[]> {
  const stored = await db.collection<PackedSeriesBucketDoc>(collection).find(filter).sort({ _id: 1 }).toArray();
  return stored.map(unpackSeriesBucket);
}

/** One series bucket by `_id`, unpacked, or undefined. */
export async function readSeriesBucket(db: Db, collection: string, id: string): Promise<SeriesBucketDoc | undefined> {
  return (await readSeriesBuckets(db, collection, { _id: id }))[0];
}

/** The COT buckets of a collection matching `filter`, unpacked, sorted by `_id`. */
export async function readCotBuckets(
  db: Db,
  collection: string,
  filter: Filter<PackedCotBucketDoc> = {},
): Promise<CotBucketDoc[]> {
  const stored = await db.collection<PackedCotBucketDoc>(collection).find(filter).sort({ _id: 1 }).toArray();
  return stored.map(unpackCotBucket);
}
