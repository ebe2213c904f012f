import { cotDatasetOf } from '@cds/contracts';
import {
  cotBucketId,
  isCurrentView,
  seriesBucketId,
  type CatalogDoc,
  type PointInTimeView,
  type ReadModelName,
  type StoredCotReport,
  type StoredPoint,
  type StoredRelease,
} from '@cds/read-models';
import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Document } from 'mongodb';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Adapter } from './adapter.ts';
import {
  packCotBucket,
  packSeriesBucket,
  packSupplyDemandBucket,
  unpackCotBucket,
  unpackPoints,
  unpackReleases,
  unpackReports,
  unpackRevised,
  unpackSeriesBucket,
  unpackSupplyDemandBucket,
  type PackedCotBucketDoc,
  type PackedSeriesBucketDoc,
  type PackedSupplyDemandBucketDoc,
} from './ferretdb-packing.ts';
import type {
  CasResult,
  CasWrite,
  CatalogQuery,
  CotPageQuery,
  ReadModelCollection,
  ReadModelDoc,
  SeriesRange,
  SeriesRangeQuery,
  StoreCall,
} from './port.ts';
import { byId, CATALOG_SUMMARY, duplicateKeyIndexes, type Run } from './run.ts';
import { probedSupplyDemandSheets } from './supply-demand-sheets.ts';
import {
  attachPointReleases,
  attachReleases,
  cotBeforeFromBuckets,
  cotPageFromBuckets,
  seriesRangeFromBuckets,
  viewPoints,
  viewReports,
  type ViewedReport,
  type ViewedSeriesBucket,
} from './views.ts';

/**
 * Most update statements in one command on FerretDB. FerretDB 1.24 keeps each statement's query
 * open, holding one of its 100 pooled SQLite connections, until the whole update command ends
 * (`defer` in a loop in its `update` handler): a command of 100 statements waits forever for a
 * connection it holds itself, and every later query of that database waits behind it (a `ping`
 * still answers). It ignores `maxTimeMS` there and does not notice a client that hung up, so only
 * a restart frees it. Small commands keep that far out of reach, with or without write claims.
 */
export const FERRETDB_UPDATES_PER_COMMAND = 16;

/** A short-lived claim on "the write that supersedes revision N of document X" (see FerretDbOptions.writeClaims). */
export interface WriteClaimDoc {
  /** `${docId}#${rev}` */
  _id: string;
  owner: string;
  at: number;
}

export interface FerretDbOptions {
  /**
   * Guard compare-and-set with write claims. Default true. FerretDB 1.x evaluates a replace's
   * non-`_id` filter in its own process and then writes by `_id`, so two racing replaceOne calls
   * filtered on the same `_meta.rev` can both succeed. Before replacing revision N of X a writer
   * inserts the claim `X#N` (the unique `_id` makes the insert atomic on any server), confirms the
   * revision under it, replaces, and removes the claim. A claim left behind by a writer that died
   * is taken over after `leaseMs`. Off, two writers of one document can overwrite each other
   * (benchmarks of a single writer only).
   */
  writeClaims?: boolean;
  /** How long a claim holds against other writers. Default 15 s. */
  leaseMs?: number;
  /** Clock of the claims, in ms. */
  now?: () => number;
  /** Most update statements per command. Default FERRETDB_UPDATES_PER_COMMAND. */
  maxUpdatesPerCommand?: number;
  /** Write commands in flight at once. Default FERRETDB_COMMANDS_IN_FLIGHT. */
  commandsInFlight?: number;
}

/** The claims collection beside a physical read-model collection. */
export function claimsCollectionName(collection: string): string {
  return `${collection}__claims`;
}

function pack(name: ReadModelName, doc: ReadModelDoc): Document {
  if (name === 'series') return packSeriesBucket(doc as never);
  if (name === 'cot') return packCotBucket(doc as never);
  if (name === 'supply_demand') return packSupplyDemandBucket(doc as never);
  return doc;
}

function unpack<D extends ReadModelDoc>(name: ReadModelName, stored: Document): D {
  if (name === 'series') return unpackSeriesBucket(stored as PackedSeriesBucketDoc) as unknown as D;
  if (name === 'cot') return unpackCotBucket(stored as PackedCotBucketDoc) as unknown as D;
  if (name === 'supply_demand') return unpackSupplyDemandBucket(stored as PackedSupplyDemandBucketDoc) as unknown as D;
  return stored as D;
}

/** Documents packed in one turn of the event loop by `packInTurns`. */
const PACKED_PER_TURN = 8;

/**
 * Packs the writes' documents a few per turn of the event loop, so that the calls in flight
 * meanwhile (the claims, the revision check) are sent and answered between them: packing a year
 * of points costs the projector a few tenths of a millisecond a bucket, which FerretDB would
 * otherwise wait out before the first replace.
 */
async function packInTurns<D extends ReadModelDoc>(
  name: ReadModelName,
  writes: readonly CasWrite<D>[],
): Promise<Map<CasWrite<D>, Document>> {
  const packed = new Map<CasWrite<D>, Document>();
  for (const [i, x] of writes.entries()) {
    if (i % PACKED_PER_TURN === 0) await nextTurn();
    packed.set(x, pack(name, x.doc));
  }
  return packed;
}

function claimId(id: string, rev: number | undefined): string {
  return `${id}#${rev ?? 0}`;
}

/** One document per id: FerretDB pushes down only a filter that is exactly `{_id: <string>}` (`$in` decodes the whole collection). */
async function findEach<T extends Document>(
  coll: Collection<Document>,
  ids: readonly string[],
  run: Run,
  projection?: Document,
): Promise<(T | null)[]> {
  return Promise.all(
    ids.map((id) =>
      run('read a document', (o) =>
        coll.findOne<T>({ _id: id as never }, projection === undefined ? o : { ...o, projection }),
      ),
    ),
  );
}

/** A FerretDB writer's settings, from FerretDbOptions with their defaults. */
interface WriterSettings {
  owner: string;
  useClaims: boolean;
  leaseMs: number;
  now: () => number;
  perCommand: number;
  inFlight: number;
}

/** Claims `ids`; returns the ones this writer holds (fresh, its own, or taken over after the lease). */
async function claim(
  claims: Collection<WriteClaimDoc>,
  ids: string[],
  run: Run,
  w: Pick<WriterSettings, 'owner' | 'leaseMs' | 'now'>,
): Promise<Set<string>> {
  const at = w.now();
  const held = new Set(ids);
  try {
    await run('insert write claims', ({ maxTimeMS }) =>
      claims.insertMany(
        ids.map((_id) => ({ _id, owner: w.owner, at })),
        { ordered: false, maxTimeMS },
      ),
    );
    return held;
  } catch (err) {
    const dup = err instanceof MongoBulkWriteError ? duplicateKeyIndexes(err) : undefined;
    if (dup === undefined) throw err;
    const taken = ids.filter((_, i) => dup.has(i));
    for (const id of taken) held.delete(id);
    const found = await run('read write claims', (o) => claims.find({ _id: { $in: taken } }, o).toArray());
    for (const c of found) {
      if (c.owner === w.owner) held.add(c._id);
      else if (at - c.at > w.leaseMs) {
        // The holder died mid-write: drop its claim; the next attempt claims afresh.
        await run('drop an expired write claim', ({ maxTimeMS }) =>
          claims.deleteOne({ _id: c._id, owner: c.owner, at: c.at }, { maxTimeMS }),
        );
      }
    }
    return held;
  }
}

type Replace<D extends ReadModelDoc> = CasWrite<D> & { rev: number | undefined };

/**
 * The replaces this writer may send under write claims: those whose claim it holds and whose
 * document is still at the revision they were folded from (claims are released after each write,
 * so a document may have moved on between the caller's read and the claim). Returns them with
 * the claims taken.
 */
async function claimedReplaces<D extends ReadModelDoc>(
  coll: Collection<Document>,
  claims: Collection<WriteClaimDoc>,
  replaces: Replace<D>[],
  run: Run,
  w: WriterSettings,
): Promise<{ replaces: Replace<D>[]; claimed: string[] }> {
  const held = await claim(
    claims,
    replaces.map((r) => claimId(r.doc._id, r.rev)),
    run,
    w,
  );
  const mine = replaces.filter((r) => held.has(claimId(r.doc._id, r.rev)));
  const current = await findEach<ReadModelDoc>(
    coll,
    mine.map((r) => r.doc._id),
    run,
    { '_meta.rev': 1 },
  );
  const confirmed = mine.filter((r, i) => {
    const now = current[i];
    return now !== null && now !== undefined && now._meta.rev === r.rev;
  });
  return { replaces: confirmed, claimed: [...held] };
}

/**
 * The commands of one compare-and-set: inserts and replaces together when the replaces fit in
 * one command, else the inserts alone, then the replaces `perCommand` at a time.
 */
export function writeCommands(
  insertOps: AnyBulkWriteOperation[],
  replaceOps: AnyBulkWriteOperation[],
  perCommand: number,
): AnyBulkWriteOperation[][] {
  if (replaceOps.length <= perCommand) return [[...insertOps, ...replaceOps]];
  return [
    insertOps,
    ...Array.from({ length: Math.ceil(replaceOps.length / perCommand) }, (_, i) =>
      replaceOps.slice(i * perCommand, (i + 1) * perCommand),
    ),
  ];
}

/**
 * Write commands in flight at once. A replace's work in FerretDB is mostly its own (decoding the
 * BSON, encoding the stored JSON, the `_id` look-up) around SQLite's short write, so a second
 * command keeps the other core busy; two commands of FERRETDB_UPDATES_PER_COMMAND statements hold
 * at most 32 of its 100 pooled connections (see the constant).
 */
export const FERRETDB_COMMANDS_IN_FLIGHT = 2;

/**
 * Sends the commands, `inFlight` at a time; a duplicate `_id` is a racing insert (a conflict),
 * anything else a failure: no further command is sent, the ones in flight are awaited, and the
 * first failure is thrown. Returns the documents written.
 */
async function sendCommands(
  coll: Collection<Document>,
  commands: AnyBulkWriteOperation[][],
  run: Run,
  inFlight: number,
): Promise<number> {
  let written = 0;
  let next = 0;
  let failure: { err: unknown } | undefined;
  const send = async (ops: AnyBulkWriteOperation[]) => {
    try {
      const res = await run('write documents', ({ maxTimeMS }) => coll.bulkWrite(ops, { ordered: false, maxTimeMS }));
      written += res.insertedCount + res.matchedCount;
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError) || duplicateKeyIndexes(err) === undefined) throw err;
      written += err.result.insertedCount + err.result.matchedCount;
    }
  };
  const lane = async () => {
    while (failure === undefined && next < commands.length) {
      const ops = commands[next++]!;
      if (ops.length === 0) continue;
      await send(ops).catch((err: unknown) => {
        failure ??= { err };
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(inFlight, commands.length)) }, lane));
  if (failure !== undefined) throw failure.err;
  return written;
}

async function compareAndSet<D extends ReadModelDoc>(
  target: { name: ReadModelName; coll: Collection<Document>; claims: Collection<WriteClaimDoc> },
  writes: readonly CasWrite<D>[],
  run: Run,
  w: WriterSettings,
): Promise<CasResult> {
  const { name, coll, claims } = target;
  const inserts = writes.filter((x) => x.rev === null);
  let replaces = writes.filter((x): x is Replace<D> => x.rev !== null);
  const wanted = writes.length;
  if (wanted === 0) return { written: 0, conflicts: 0 };
  let claimed: string[] = [];
  let packed: Map<CasWrite<D>, Document>;
  if (w.useClaims && replaces.length > 0) {
    // The documents are packed while the claims and the revision check are in flight.
    const packing = packInTurns(name, writes);
    try {
      ({ replaces, claimed } = await claimedReplaces(coll, claims, replaces, run, w));
    } finally {
      packed = await packing;
    }
  } else {
    packed = new Map(writes.map((x) => [x, pack(name, x.doc)]));
  }
  const insertOps: AnyBulkWriteOperation[] = inserts.map((x) => ({ insertOne: { document: packed.get(x)! } }));
  const replaceOps: AnyBulkWriteOperation[] = replaces.map((x) => ({
    replaceOne: {
      // Under claims the claim and the check above guard the revision, and a filter on
      // `_id` alone is the only one FerretDB answers without decoding the whole collection.
      filter: (w.useClaims
        ? { _id: x.doc._id }
        : { _id: x.doc._id, '_meta.rev': x.rev === undefined ? { $exists: false } : x.rev }) as never,
      replacement: packed.get(x)!,
    },
  }));
  const written = await sendCommands(coll, writeCommands(insertOps, replaceOps, w.perCommand), run, w.inFlight);
  // Claims are released after a write that went through. One that failed (past its deadline,
  // connection lost) may still land on the server: its claims stay until their lease ends, so no
  // other writer replaces those documents meanwhile (this writer's own retry holds them already,
  // being their owner).
  if (claimed.length > 0) {
    await run('release write claims', ({ maxTimeMS }) =>
      claims.deleteMany({ _id: { $in: claimed }, owner: w.owner }, { maxTimeMS }),
    );
  }
  return { written, conflicts: wanted - written };
}

function writerOf<D extends ReadModelDoc>(
  db: FerretDb,
  name: ReadModelName,
  physical: string,
  runFor: (call?: StoreCall) => Run,
  w: WriterSettings,
): ReadModelCollection<D> {
  const coll = db.collection(physical);
  const claims = db.collection(claimsCollectionName(physical)) as unknown as Collection<WriteClaimDoc>;
  return {
    name,
    collection: physical,
    async load(ids, call) {
      const found = await findEach(coll, ids, runFor(call));
      return found.filter((d) => d !== null).map((d) => unpack<D>(name, d));
    },
    compareAndSet: (writes, call) => compareAndSet({ name, coll, claims }, writes, runFor(call), w),
  };
}

interface StoredVersions<T> {
  revised_json?: string;
  revised?: T[];
  releases_json?: string;
  releases?: StoredRelease[];
}
type StoredSeries = StoredVersions<StoredPoint> & {
  year: number;
  unit?: string;
  points_json?: string;
  points?: StoredPoint[];
};
type StoredCot = StoredVersions<StoredCotReport> & { reports_json?: string; reports?: StoredCotReport[] };
// The current view reads neither the superseded versions nor anything else it does not show.
const SERIES_FIELDS = { _id: 0, year: 1, unit: 1, points_json: 1, points: 1, releases_json: 1, releases: 1 };
const SERIES_VERSION_FIELDS = { ...SERIES_FIELDS, revised_json: 1, revised: 1 };
const COT_FIELDS = { reports_json: 1, reports: 1, releases_json: 1, releases: 1 };
const COT_VERSION_FIELDS = { ...COT_FIELDS, revised_json: 1, revised: 1 };

function viewedSeries(b: StoredSeries, view: PointInTimeView | undefined): ViewedSeriesBucket {
  const points = isCurrentView(view)
    ? attachPointReleases(unpackPoints(b), unpackReleases(b), view)
    : viewPoints({ current: unpackPoints(b), revised: unpackRevised(b), releases: unpackReleases(b) }, view);
  return { points, ...(b.unit === undefined ? {} : { unit: b.unit }) };
}

function viewedReports(b: StoredCot, view: PointInTimeView | undefined): ViewedReport[] {
  return isCurrentView(view)
    ? attachReleases(unpackReports(b), unpackReleases(b))
    : viewReports({ current: unpackReports(b), revised: unpackRevised(b), releases: unpackReleases(b) }, view);
}

async function cotBuckets(
  coll: Collection<Document>,
  q: Pick<CotPageQuery, 'commodityId' | 'format' | 'scope' | 'view'>,
  ys: number[],
  run: Run,
): Promise<ViewedReport[]> {
  const dataset = cotDatasetOf(q);
  const found = await findEach<StoredCot>(
    coll,
    ys.map((y) => cotBucketId(q.commodityId, dataset, y)),
    run,
    isCurrentView(q.view) ? COT_FIELDS : COT_VERSION_FIELDS,
  );
  return found.flatMap((b) => (b === null ? [] : viewedReports(b, q.view)));
}

async function catalogEntries(coll: Collection<Document>, q: CatalogQuery, run: Run): Promise<CatalogDoc[]> {
  // Tens of documents: read whole and filtered here (any filter but `_id` is a scan anyway).
  const docs = await run('read the catalog', (o) =>
    coll.find<CatalogDoc>({}, { ...o, projection: CATALOG_SUMMARY }).toArray(),
  );
  return docs.filter((d) => d.listed === true && (q.category === undefined || d.category === q.category)).sort(byId);
}

async function catalogEntry(coll: Collection<Document>, id: string, run: Run): Promise<CatalogDoc | null> {
  const [doc] = await findEach<CatalogDoc>(coll, [id], run, { _meta: 0 });
  return doc?.listed === true ? doc : null;
}

async function unlistedEntries(coll: Collection<Document>, run: Run): Promise<CatalogDoc[]> {
  // Tens of documents, as catalogEntries: read whole and filtered here.
  const docs = await run('read the unlisted catalog documents', (o) =>
    coll.find<CatalogDoc>({}, { ...o, projection: { _meta: 0 } }).toArray(),
  );
  return docs.filter((d) => d.listed !== true).sort(byId);
}

async function seriesRange(coll: Collection<Document>, q: SeriesRangeQuery, run: Run): Promise<SeriesRange> {
  const fields = isCurrentView(q.view) ? SERIES_FIELDS : SERIES_VERSION_FIELDS;
  return seriesRangeFromBuckets(q, async (ys) => {
    const found = await findEach<StoredSeries>(
      coll,
      ys.map((y) => seriesBucketId(q.commodityId, q.type, y)),
      run,
      fields,
    );
    return found.map((b) => (b === null ? null : viewedSeries(b, q.view)));
  });
}

type FerretDb = { collection: (name: string) => Collection<Document> };

/**
 * The read models on FerretDB 1.x, which answers only `{_id: <string>}` filters without decoding
 * the whole collection (seconds on a few thousand documents): every read is by `_id`, years
 * bounded by the catalog descriptor, buckets packed as JSON text (ferretdb-packing.ts), COT pages
 * and series ranges cut in memory from whole buckets; writes are guarded by write claims and sent
 * in commands of at most FERRETDB_UPDATES_PER_COMMAND statements. No secondary index is used. A
 * region's balance sheets are looked up by `_id` per marketing year (supply-demand-sheets.ts).
 */
export function createFerretDbAdapter(db: FerretDb, opts: FerretDbOptions & { owner: string }): Adapter {
  const writer: WriterSettings = {
    owner: opts.owner,
    useClaims: opts.writeClaims ?? true,
    leaseMs: opts.leaseMs ?? 15_000,
    now: opts.now ?? Date.now,
    perCommand: opts.maxUpdatesPerCommand ?? FERRETDB_UPDATES_PER_COMMAND,
    inFlight: opts.commandsInFlight ?? FERRETDB_COMMANDS_IN_FLIGHT,
  };
  return {
    name: 'ferretdb',
    indexes: { catalog: [], series: [], cot: [], supply_demand: [] },
    companions: (physical) => [claimsCollectionName(physical)],
    collection: (name, physical, runFor) => writerOf(db, name, physical, runFor, writer),
    catalogEntries,
    catalogEntry,
    unlistedEntries,
    seriesRange,
    cotPage: (coll, q, run) => cotPageFromBuckets(q, (ys) => cotBuckets(coll, q, ys, run)),
    cotBefore: (coll, q, run) => cotBeforeFromBuckets(q, (ys) => cotBuckets(coll, q, ys, run)),
    supplyDemandSheets: (coll, q, run) =>
      probedSupplyDemandSheets(q, writer.now(), async (ids) => {
        const found = await findEach<PackedSupplyDemandBucketDoc>(coll, ids, run, { _meta: 0 });
        return found.map((d) => (d === null ? null : unpackSupplyDemandBucket(d)));
      }),
  };
}
