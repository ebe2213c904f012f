import { getTestInfra, startMongo, uniqueName, waitUntil, type MongoHandle } from '@cds/testkit';
import type { CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapStoreError, StoreUnavailableError } from './errors.ts';
import {
  createStore,
  ensureIndexes,
  isDatabaseUnavailable,
  isDuplicateKeyError,
  type Store,
  withDeadline,
} from './index.ts';
import type { IndexSpec } from './indexes.ts';

interface Row {
  _id: string;
  commodity: string;
  date: string;
  value: number;
  _meta?: { position: number };
}

// One database per file: files share the run's MongoDB API server (FerretDB on machines without mongod).
const dbName = uniqueName('store');
let store: Store;
const commands: CommandStartedEvent[] = [];

beforeAll(async () => {
  store = createStore({
    url: getTestInfra().mongoUrl,
    appName: 'store-int-spec',
    monitorCommands: true,
  });
  store.client.on('commandStarted', (e) => commands.push(e));
  await store.ping();
});

afterAll(async () => {
  await store
    ?.db(dbName)
    .dropDatabase()
    .catch(() => undefined);
  await store?.close();
});

const rows = (commodity: string, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({
    _id: `${commodity}:${String(i).padStart(3, '0')}`,
    commodity,
    date: `2024-01-${String(i + 1).padStart(2, '0')}`,
    value: i * 10,
  }));

describe('basic CRUD on the MongoDB API', () => {
  it('inserts, then finds with filter, sort, skip, limit and maxTimeMS; counts', async () => {
    const coll = store.db(dbName).collection<Row>('crud');
    await coll.insertMany([...rows('corn', 10), ...rows('wheat', 5)]);

    const page = await coll
      .find({ commodity: 'corn', value: { $gte: 20 } }, { maxTimeMS: 1_500 })
      .sort({ date: -1 })
      .skip(2)
      .limit(3)
      .toArray();
    expect(page.map((r) => r.value)).toEqual([70, 60, 50]);
    expect(await coll.countDocuments({ commodity: 'corn' }, { maxTimeMS: 1_500 })).toBe(10);
    expect(await coll.countDocuments({}, { limit: 7, maxTimeMS: 1_500 })).toBe(7);
    expect(await coll.findOne({ _id: 'wheat:004' }, { projection: { value: 1 }, maxTimeMS: 1_500 })).toEqual({
      _id: 'wheat:004',
      value: 40,
    });

    const find = commands.filter((c) => c.commandName === 'find' && c.databaseName === dbName).at(0);
    expect(find?.command.maxTimeMS).toBe(1_500);
  });

  // FerretDB 1.24: $group supports only $sum and $count, and computes only the FIRST
  // accumulator of a $group stage (the others come back as 0). One accumulator per stage.
  it('runs basic aggregations ($match, $group with one accumulator, $sort, $count)', async () => {
    const coll = store.db(dbName).collection<Row>('agg');
    await coll.insertMany([...rows('corn', 4), ...rows('soy', 2)]);
    const totals = await coll
      .aggregate<{ _id: string; total: number }>(
        [
          { $match: { value: { $gte: 0 } } },
          { $group: { _id: '$commodity', total: { $sum: '$value' } } },
          { $sort: { _id: 1 } },
        ],
        { maxTimeMS: 1_500 },
      )
      .toArray();
    expect(totals).toEqual([
      { _id: 'corn', total: 60 },
      { _id: 'soy', total: 10 },
    ]);
    const counted = await coll
      .aggregate([{ $match: { commodity: 'corn' } }, { $count: 'n' }], { maxTimeMS: 1_500 })
      .toArray();
    expect(counted).toEqual([{ n: 4 }]);
  });
});

describe('ensureIndexes', () => {
  it('is idempotent and enforces a unique index', async () => {
    const coll = store.db(dbName).collection<Row>('unique');
    const specs: IndexSpec[] = [
      { name: 'commodity_date', key: { commodity: 1, date: 1 }, unique: true },
      { name: 'date_desc', key: { date: -1 } },
    ];
    expect(await ensureIndexes(coll, specs)).toEqual({ created: ['commodity_date', 'date_desc'], existing: [] });
    expect(await ensureIndexes(coll, specs)).toEqual({ created: [], existing: ['commodity_date', 'date_desc'] });
    await expect(ensureIndexes(coll, [{ name: 'date_desc', key: { date: 1 } }])).rejects.toThrow(
      /index date_desc on .*unique exists as .*drop it or use a new name/,
    );
    const names = (await coll.listIndexes().toArray()).map((i) => i.name as string).sort();
    expect(names).toEqual(['_id_', 'commodity_date', 'date_desc']);

    await coll.insertOne({ _id: 'a', commodity: 'corn', date: '2024-01-01', value: 1 });
    const err: unknown = await coll
      .insertOne({ _id: 'b', commodity: 'corn', date: '2024-01-01', value: 2 })
      .catch((e: unknown) => e);
    expect(isDuplicateKeyError(err)).toBe(true);
    expect(isDatabaseUnavailable(err)).toBe(false);
    expect(mapStoreError(err)).toBe(err);
  });
});

describe('database unavailable', () => {
  let own: MongoHandle;
  afterAll(async () => {
    await own?.stop();
  });

  it('maps a server that is down to StoreUnavailableError, and recovers after a restart', async () => {
    own = await startMongo();
    const s = createStore({ url: own.url, appName: 'store-down-spec', serverSelectionTimeoutMs: 500 });
    const coll = s.db(dbName).collection<Row>('down');
    await coll.insertOne({ _id: 'k', commodity: 'corn', date: '2024-01-01', value: 1 });

    await own.kill('SIGKILL');
    const started = Date.now();
    const err: unknown = await coll.findOne({}, { maxTimeMS: 2_000 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(isDatabaseUnavailable(err)).toBe(true);
    const mapped = mapStoreError(err);
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as StoreUnavailableError).code).toBe('service_unavailable');
    await expect(s.ping()).rejects.toBeInstanceOf(StoreUnavailableError);

    await own.restart();
    // The driver finds the server again on its own schedule (a monitor check, then a 500 ms
    // server selection): retry while the store still says unavailable; any other error fails.
    let found: Row | null = null;
    let fatal: unknown;
    await waitUntil(
      'a read from the restarted server',
      async () => {
        try {
          found = await coll.findOne({ _id: 'k' }, { maxTimeMS: 2_000 });
        } catch (e) {
          if (!isDatabaseUnavailable(e)) fatal = e;
          throw e;
        }
      },
      20_000,
      { giveUp: () => (fatal === undefined ? undefined : (fatal as Error)) },
    );
    expect(found).toMatchObject({ value: 1 });
    await s.close();
  });

  it('ends an operation the server never answers by its deadline (withDeadline), reads and writes alike', async () => {
    const frozen = await startMongo();
    const s = createStore({ url: frozen.url, appName: 'store-frozen-spec', socketTimeoutMs: 2_000 });
    try {
      const coll = s.db(dbName).collection<Row>('frozen');
      await coll.insertOne({ _id: 'f', commodity: 'corn', date: '2024-01-01', value: 1 });
      // Stopped, not dead: the connection stays open and nothing ever answers.
      await frozen.kill('SIGSTOP');
      const read: unknown = await withDeadline('read f', { timeoutMs: 300 }, (o) =>
        coll.findOne({ _id: 'f' }, o),
      ).catch((e: unknown) => e);
      expect(read).toBeInstanceOf(StoreUnavailableError);
      expect((read as Error).message).toBe('read f: no answer from the database within 300 ms');
      expect(isDatabaseUnavailable(read)).toBe(true);
      // The driver's writes take no signal: the deadline still ends the wait.
      const write: unknown = await withDeadline('write g', { timeoutMs: 300 }, ({ maxTimeMS }) =>
        coll.insertOne({ _id: 'g', commodity: 'corn', date: '2024-01-02', value: 2 }, { maxTimeMS }),
      ).catch((e: unknown) => e);
      expect(write).toBeInstanceOf(StoreUnavailableError);
      // A caller's own signal ends it sooner, with the caller's reason.
      const caller = new AbortController();
      const why = new Error('watchdog');
      const pending = withDeadline('read f again', { timeoutMs: 60_000, signal: caller.signal }, (o) =>
        coll.findOne({ _id: 'f' }, o),
      ).catch((e: unknown) => e);
      caller.abort(why);
      expect(await pending).toBe(why);
      await frozen.kill('SIGCONT');
      expect(await withDeadline('read f', { timeoutMs: 5_000 }, (o) => coll.findOne({ _id: 'f' }, o))).toMatchObject({
        value: 1,
      });
    } finally {
      await frozen.kill('SIGCONT').catch(() => undefined);
      await s.close();
      await frozen.stop();
    }
  });

  it('serves once a server that was down when the store was created is up (the driver alone stays closed)', async () => {
    const late = await startMongo();
    await late.kill('SIGKILL');
    const s = createStore({ url: late.url, appName: 'store-late-spec', serverSelectionTimeoutMs: 300 });
    try {
      // Down: the first operations fail as unavailable, promptly (their implicit connects fail too).
      await expect(s.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(s.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      await late.restart();
      // Up: the background connect opens the client again; a plain MongoClient here would answer
      // MongoTopologyClosedError for ever.
      await waitUntil('the store after a late start', () => s.ping(), 20_000);
      const coll = s.db(dbName).collection<Row>('late');
      await coll.insertOne({ _id: 'l', commodity: 'corn', date: '2024-01-01', value: 3 });
      expect(await coll.findOne({ _id: 'l' })).toMatchObject({ value: 3 });
    } finally {
      await s.close();
      await late.stop();
    }
  });

  it('maps an unreachable address the same way', async () => {
    const s = createStore({ url: 'mongodb://127.0.0.1:1/', appName: 'nowhere', serverSelectionTimeoutMs: 300 });
    const err: unknown = await s
      .db('x')
      .collection('y')
      .findOne({})
      .catch((e: unknown) => e);
    expect(mapStoreError(err)).toBeInstanceOf(StoreUnavailableError);
    await s.close();
  });
});
