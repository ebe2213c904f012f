import { COLLECTIONS, type SeriesBucketDoc, type SupplyDemandBucketDoc } from '@cds/read-models';
import { getTestInfra, uniqueName } from '@cds/testkit';
import { MongoClient } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FERRETDB_COMMANDS_IN_FLIGHT } from './ferretdb-adapter.ts';
import { packText } from './ferretdb-packing.ts';
import { registerPortContract } from './testing/port.contract.ts';
import { createReadModelStore } from './store.ts';

// The FerretDB adapter on the run's MongoDB API server (FerretDB on machines without mongod;
// on MongoDB too it is correct, only slower than the MongoDB adapter). Write claims make its
// compare-and-set atomic on either.
registerPortContract('ferretdb', (db, opts) => createReadModelStore(db, { ...opts, adapter: 'ferretdb' }), {
  atomicReplace: true,
});

/** Forty years of buckets: three write commands of at most 16 replaces. */
const YEARS = Array.from({ length: 40 }, (_, i) => 1980 + i);

/** A one-point daily price bucket (`frequency` is stored as given: a test makes it oversized). */
function priceBucket(commodity: string, year: number, rev: number, frequency = 'daily'): SeriesBucketDoc {
  return {
    _id: `${commodity}:price:${year}`,
    commodity_id: commodity,
    type: 'price',
    year,
    frequency: frequency as SeriesBucketDoc['frequency'],
    first_date: `${year}-01-02`,
    last_date: `${year}-01-02`,
    count: 1,
    points: [{ d: `${year}-01-02`, v: rev }],
    _meta: { position: rev, version: 1, rev, parts: { [`${year}-01-02`]: rev } },
  };
}

describe('FerretDB adapter: how it holds and asks', () => {
  let client: MongoClient;
  beforeAll(async () => {
    client = await new MongoClient(getTestInfra().mongoUrl, { monitorCommands: true }).connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('packs a bucket as (deflated) JSON text, reads by `_id` only, and sends at most 16 replaces per command', async () => {
    const db = client.db(uniqueName('ferret_adapter'));
    const commands: { name: string; command: Record<string, unknown> }[] = [];
    const updatesOut = new Set<number>();
    let maxUpdatesInFlight = 0;
    client.on('commandStarted', (e) => {
      if (e.databaseName !== db.databaseName) return;
      commands.push({ name: e.commandName, command: e.command });
      if (e.commandName === 'update')
        maxUpdatesInFlight = Math.max(maxUpdatesInFlight, updatesOut.add(e.requestId).size);
    });
    const done = (e: { requestId: number }) => updatesOut.delete(e.requestId);
    client.on('commandSucceeded', done);
    client.on('commandFailed', done);
    const store = createReadModelStore(db, { adapter: 'ferretdb', owner: 'packing' });
    const series = await store.collection<SeriesBucketDoc>('series', COLLECTIONS.series);
    const bucket = (year: number, rev: number) => priceBucket('PACK', year, rev);
    const years = YEARS;
    await series.compareAndSet(years.map((y) => ({ doc: bucket(y, 1), rev: null })));
    expect(await db.collection(COLLECTIONS.series).findOne({ _id: 'PACK:price:1980' as never })).toEqual({
      _id: 'PACK:price:1980',
      commodity_id: 'PACK',
      type: 'price',
      year: 1980,
      frequency: 'daily',
      first_date: '1980-01-02',
      last_date: '1980-01-02',
      count: 1,
      points_json: packText([{ d: '1980-01-02', v: 1 }]),
      _meta: { position: 1, version: 1, rev: 1, parts_json: packText({ '1980-01-02': 1 }) },
    });
    commands.length = 0;
    expect(await series.compareAndSet(years.map((y) => ({ doc: bucket(y, 2), rev: 1 })))).toEqual({
      written: 40,
      conflicts: 0,
    });
    const updates = commands.filter((c) => c.name === 'update');
    expect(updates.map((c) => (c.command.updates as unknown[]).length)).toEqual([16, 16, 8]);
    // two commands in flight at once (FERRETDB_COMMANDS_IN_FLIGHT), never more
    expect(maxUpdatesInFlight).toBe(FERRETDB_COMMANDS_IN_FLIGHT);
    await store.seriesRange({
      commodityId: 'PACK',
      type: 'price',
      startDate: '1990-01-01',
      endDate: '1995-12-31',
      firstYear: 1980,
      lastYear: 2019,
      predecessorPeriod: (d) => d,
    });
    const reads = commands.filter((c) => c.name === 'find' && c.command.find === COLLECTIONS.series);
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) expect(Object.keys(read.command.filter as object)).toEqual(['_id']);
    for (const read of reads) expect(typeof (read.command.filter as { _id: unknown })._id).toBe('string');
    // The current view reads neither the superseded versions nor whole buckets; another view reads them too.
    for (const read of reads) expect(read.command.projection).not.toHaveProperty('revised_json');
    commands.length = 0;
    await store.seriesRange({
      commodityId: 'PACK',
      type: 'price',
      startDate: '1990-01-01',
      endDate: '1990-12-31',
      firstYear: 1980,
      lastYear: 2019,
      view: { asOf: '2000-01-01T00:00:00.000Z' },
    });
    const viewReads = commands.filter((c) => c.name === 'find' && c.command.find === COLLECTIONS.series);
    expect(viewReads.length).toBeGreaterThan(0);
    for (const read of viewReads) expect(read.command.projection).toHaveProperty('revised_json');
    for (const read of viewReads) expect(Object.keys(read.command.filter as object)).toEqual(['_id']);
  });

  it('a write command that fails stops the ones not yet sent, waits for the one in flight and throws; a retry writes', async () => {
    const db = client.db(uniqueName('ferret_adapter'));
    const store = createReadModelStore(db, { adapter: 'ferretdb', owner: 'failing' });
    const series = await store.collection<SeriesBucketDoc>('series', COLLECTIONS.series);
    const bucket = (year: number, rev: number, frequency?: string) => priceBucket('FAIL', year, rev, frequency);
    const years = YEARS;
    await series.compareAndSet(years.map((y) => ({ doc: bucket(y, 1), rev: null })));
    // the second command (years 1996-2011) carries a document over MongoDB's 16 MiB: the driver's
    // serializer refuses it (a RangeError), so that command fails without reaching the server
    const tooLarge = randomBytes(9 * 1024 * 1024).toString('hex');
    await expect(
      series.compareAndSet(years.map((y) => ({ doc: bucket(y, 2, y === 2000 ? tooLarge : 'daily'), rev: 1 }))),
    ).rejects.toBeInstanceOf(RangeError);
    expect(
      await db.collection(COLLECTIONS.series).countDocuments({ _id: 'FAIL:price:2000' as never, '_meta.rev': 2 }),
    ).toBe(0);
    // the claims are this writer's: the retry takes them again and writes what is not written yet
    const retried = await series.compareAndSet(years.map((y) => ({ doc: bucket(y, 2), rev: 1 })));
    const written = await db.collection(COLLECTIONS.series).countDocuments({ '_meta.rev': 2 });
    expect(written).toBe(40);
    expect(retried.written + retried.conflicts).toBe(40);
  });

  it("packs a balance sheet as JSON text and reads a region's sheets by `_id` strings only", async () => {
    const db = client.db(uniqueName('ferret_sheets'));
    const commands: { name: string; command: Record<string, unknown> }[] = [];
    client.on('commandStarted', (e) => {
      if (e.databaseName === db.databaseName) commands.push({ name: e.commandName, command: e.command });
    });
    const store = createReadModelStore(db, { adapter: 'ferretdb', owner: 'sheets' });
    const sheets = await store.collection<SupplyDemandBucketDoc>('supply_demand', COLLECTIONS.supply_demand);
    const figures = [{ k: 'yield|Bushels', a: 'yield', u: 'Bushels', v: 181, s: 'projection' as const, r: 0 }];
    const doc = (year: string): SupplyDemandBucketDoc => ({
      _id: `CORN:united_states:${year}`,
      commodity_id: 'CORN',
      region: 'united_states',
      marketing_year: year,
      figures,
      _meta: { position: 1, version: 1, rev: 1 },
    });
    await sheets.compareAndSet([doc('2025/26'), doc('2026/27')].map((d) => ({ doc: d, rev: null })));
    const stored = await db
      .collection(COLLECTIONS.supply_demand)
      .findOne({ _id: 'CORN:united_states:2026/27' as never });
    expect(stored).toMatchObject({ figures_json: packText(figures) });
    expect(stored).not.toHaveProperty('figures');
    commands.length = 0;
    const read = await store.supplyDemandSheets({ commodityId: 'CORN', region: 'united_states' });
    expect(read.map((d) => [d.marketing_year, d.figures])).toEqual([
      ['2026/27', figures],
      ['2025/26', figures],
    ]);
    const finds = commands.filter((c) => c.name === 'find' && c.command.find === COLLECTIONS.supply_demand);
    expect(finds.length).toBeGreaterThan(0);
    for (const f of finds) expect(typeof (f.command.filter as { _id: unknown })._id).toBe('string');
    for (const f of finds) expect(Object.keys(f.command.filter as object)).toEqual(['_id']);
  });
});
