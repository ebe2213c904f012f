import type { ReadModelName } from '@cds/read-models';
import { MongoServerError, type Db, type Document } from 'mongodb';
import { withDeadline } from '../deadline.ts';
import { mapStoreError } from '../errors.ts';
import { isFerretDB } from '../ferretdb.ts';
import type { Adapter } from './adapter.ts';
import { createAliasResolver } from './aliases.ts';
import { createFerretDbAdapter, type FerretDbOptions } from './ferretdb-adapter.ts';
import { createMongoDbAdapter } from './mongodb-adapter.ts';
import type { AdapterName, ReadModelCollection, ReadModelDoc, ReadModelStore, StoreCall } from './port.ts';
import { runner } from './run.ts';

/** MongoDB's IndexNotFound: dropping an index that does not exist. */
const INDEX_NOT_FOUND = 27;

export interface ReadModelStoreOptions {
  /** Default deadline of each database operation (a call's `timeoutMs` overrides it). Default 20 s. */
  timeoutMs?: number;
  /** The writer's name (write claims record it): unique per process and read model. Default random. */
  owner?: string;
  /** Use this adapter whatever the server (tests). Default: FerretDB when buildInfo has `ferretdbVersion`, else MongoDB. */
  adapter?: AdapterName;
  /** Settings of the FerretDB adapter. */
  ferretdb?: FerretDbOptions;
  /** Called when a read model's alias points at another collection (a rebuild swapped it). */
  onCollectionSwap?: (name: ReadModelName) => void;
  /** Clock in ms, for the alias cache. */
  now?: () => number;
}

/**
 * The read models behind the port, on `db`. Connects nothing: the adapter is chosen on the first
 * call (from `buildInfo`, or `adapter`), so a database that is down at start fails calls (503,
 * readiness) rather than the process; a failed choice is tried again on the next call.
 */
export function createReadModelStore(db: Db, opts: ReadModelStoreOptions = {}): ReadModelStore {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const runFor = (call?: StoreCall) => runner(timeoutMs, call);
  const deadlineOf = (call: StoreCall = {}) => ({
    timeoutMs: call.timeoutMs ?? timeoutMs,
    ...(call.signal === undefined ? {} : { signal: call.signal }),
  });
  const resolve = createAliasResolver(db, opts.now ?? Date.now, (name) => opts.onCollectionSwap?.(name));
  const owner = opts.owner ?? `store:${crypto.randomUUID()}`;
  let chosen: Promise<Adapter> | undefined;
  const indexed = new Set<string>();

  function adapter(call?: StoreCall): Promise<Adapter> {
    if (chosen === undefined) {
      const pending = (async () => {
        const flavour =
          opts.adapter ??
          ((await isFerretDB(db, runner(20_000, { ...call, ...deadlineOf(call) }))) ? 'ferretdb' : 'mongodb');
        return flavour === 'ferretdb'
          ? createFerretDbAdapter(db, { ...opts.ferretdb, owner })
          : createMongoDbAdapter(db);
      })();
      chosen = pending;
      // A failed choice (server down) is made again on the next call.
      pending.catch(() => {
        if (chosen === pending) chosen = undefined;
      });
    }
    return chosen;
  }

  async function open<D extends ReadModelDoc>(
    name: ReadModelName,
    physical: string,
    call?: StoreCall,
  ): Promise<ReadModelCollection<D>> {
    const a = await adapter(call);
    if (!indexed.has(physical)) {
      const coll = db.collection(physical);
      for (const spec of a.indexes[name]) {
        await runFor(call)(`create index ${spec.name}`, ({ maxTimeMS }) =>
          coll.createIndex(spec.key, { name: spec.name, maxTimeMS, ...(spec.unique === true ? { unique: true } : {}) }),
        );
        for (const old of spec.replaces ?? []) {
          await runFor(call)(`drop index ${old}`, async ({ maxTimeMS }) => {
            try {
              await coll.dropIndex(old, { maxTimeMS });
            } catch (err) {
              // already gone (or never made): what this wants
              if (!(err instanceof MongoServerError && err.code === INDEX_NOT_FOUND)) throw err;
            }
          });
        }
      }
      indexed.add(physical);
    }
    return a.collection<D>(name, physical, runFor);
  }

  /** A read on the live collection of `name`, its failures mapped (StoreUnavailableError when transient). */
  async function read<T>(
    name: ReadModelName,
    op: (a: Adapter, coll: ReturnType<Db['collection']>, run: ReturnType<typeof runFor>) => Promise<T>,
  ): Promise<T> {
    const run = runFor();
    try {
      const a = await adapter();
      const physical = await resolve(name, deadlineOf());
      return await op(a, db.collection<Document>(physical), run);
    } catch (err) {
      throw mapStoreError(err);
    }
  }

  return {
    adapter: async (call) => (await adapter(call)).name,
    active: async (name, call) => open(name, await resolve(name, deadlineOf(call)), call),
    collection: (name, physical, call) => open(name, physical, call),
    async drop(physical, call) {
      const a = await adapter(call);
      const run = runFor(call);
      const dropped = await run(`drop ${physical}`, () => db.collection(physical).drop()).catch(() => false);
      for (const companion of a.companions(physical)) {
        await run(`drop ${companion}`, () => db.collection(companion).drop()).catch(() => false);
      }
      indexed.delete(physical);
      return dropped;
    },
    catalogEntries: (q = {}) => read('catalog', (a, coll, run) => a.catalogEntries(coll, q, run)),
    catalogEntry: (id) => read('catalog', (a, coll, run) => a.catalogEntry(coll, id, run)),
    unlistedEntries: () => read('catalog', (a, coll, run) => a.unlistedEntries(coll, run)),
    seriesRange: (q) => read('series', (a, coll, run) => a.seriesRange(coll, q, run)),
    cotPage: (q) => read('cot', (a, coll, run) => a.cotPage(coll, q, run)),
    cotBefore: (q) => read('cot', (a, coll, run) => a.cotBefore(coll, q, run)),
    supplyDemandSheets: (q) => read('supply_demand', (a, coll, run) => a.supplyDemandSheets(coll, q, run)),
    async followSwaps() {
      for (const name of ['catalog', 'series', 'cot', 'supply_demand'] as const) {
        await resolve(name, deadlineOf()).catch(() => undefined);
      }
    },
    async ping() {
      try {
        await withDeadline('ping', { timeoutMs }, ({ signal }) => db.command({ ping: 1 }, { signal }));
      } catch (err) {
        throw mapStoreError(err);
      }
    },
  };
}
