import type {
  CotDoc,
  CatalogDoc,
  CotBucketDoc,
  SeriesBucketDoc,
  StoredCotReport,
  StoredPoint,
  StoredRelease,
  ReadModelName,
  SupplyDemandBucketDoc,
} from '@cds/read-models';
import { COLLECTIONS, cotBucketId, seriesBucketId } from '@cds/read-models';
import { getTestInfra, startMongo, uniqueName } from '@cds/testkit';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../errors.ts';
import type { ReadModelDoc, ReadModelStore } from '../port.ts';
import type { ReadModelStoreOptions } from '../store.ts';

/** Opens the adapter under test on `db` (the store options a case needs added). */
export type OpenStore = (db: Db, opts?: ReadModelStoreOptions) => ReadModelStore;

const DAY_MS = 86_400_000;
const day = (date: string, n: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** The Monday of the ISO week of a date (the weekly predecessor period). */
function isoWeekStart(date: string): string {
  const dow = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
  return day(date, -dow);
}
const monthStart = (date: string) => `${date.slice(0, 8)}01`;

const meta = (rev: number) => ({ position: rev, version: 1, rev });

function catalogDoc(id: string, category: CatalogDoc['category'], listed = true): CatalogDoc {
  return {
    _id: id,
    id,
    name: `${id} name`,
    symbol: id.slice(0, 2),
    category,
    listed,
    series: { price: { type: 'price', frequency: 'daily', first_date: '2000-01-03', last_date: '2024-01-02' } },
    _meta: meta(1),
  };
}

function seriesBucket(commodityId: string, points: StoredPoint[], unit?: string): SeriesBucketDoc {
  const year = Number(points[0]!.d.slice(0, 4));
  return {
    _id: seriesBucketId(commodityId, 'price', year),
    commodity_id: commodityId,
    type: 'price',
    year,
    frequency: 'daily',
    ...(unit === undefined ? {} : { unit }),
    first_date: points[0]!.d,
    last_date: points.at(-1)!.d,
    count: points.length,
    points,
    _meta: { ...meta(1), parts: Object.fromEntries(points.map((p) => [p.d, 1])) },
  };
}

function report(date: string, n: number): StoredCotReport {
  return { report_date: date, open_interest: 1_000 + n, groups: { commercial: { long: n, short: 2 * n } } };
}

/** Legacy COT buckets of one commodity, one per year of `reports` (combined: the legacy_combined dataset's). */
function cotBuckets(commodityId: string, reports: StoredCotReport[], combined = false): CotBucketDoc[] {
  const byYear = new Map<number, StoredCotReport[]>();
  for (const r of reports) {
    const y = Number(r.report_date.slice(0, 4));
    byYear.set(y, [...(byYear.get(y) ?? []), r]);
  }
  return [...byYear].map(([year, rs]) => ({
    _id: cotBucketId(commodityId, combined ? 'legacy_combined' : 'legacy', year),
    commodity_id: commodityId,
    format: 'legacy',
    ...(combined ? { scope: 'futures_and_options' as const } : {}),
    year,
    first_date: rs[0]!.report_date,
    last_date: rs.at(-1)!.report_date,
    count: rs.length,
    reports: rs,
    _meta: meta(1),
  }));
}

// Versions (versions.ts). A monthly series of 2021 in two Pink-Sheet-like vintages: June 2021
// carried April and May, March 2022 revised May and added June.
const JUNE_2021: StoredRelease = {
  p: '2021-06-02T14:00:00.000Z',
  f: '2026-11-01T10:00:00.000Z',
  lo: '2021-04-01',
  hi: '2021-05-01',
};
const MARCH_2022: StoredRelease = {
  p: '2022-03-02T14:00:00.000Z',
  f: '2026-11-01T09:00:00.000Z',
  lo: '2021-05-01',
  hi: '2021-06-01',
};
function versionedSeriesBucket(): SeriesBucketDoc {
  return {
    _id: seriesBucketId('COPPER', 'price', 2021),
    commodity_id: 'COPPER',
    type: 'price',
    year: 2021,
    frequency: 'monthly',
    unit: 'USD/mt',
    first_date: '2021-04-01',
    last_date: '2021-06-01',
    count: 3,
    points: [
      { d: '2021-04-01', v: 9336, r: 0 },
      { d: '2021-05-01', v: 10161.9, r: 1 },
      { d: '2021-06-01', v: 9612.5, r: 1 },
    ],
    revised: [{ d: '2021-05-01', v: 10184, r: 0 }],
    releases: [JUNE_2021, MARCH_2022],
    _meta: { ...meta(1), parts: { attrs: 1 } },
  };
}
/**
 * The same history stamped at its loads (estimated times: a snapshot, a backfill), as ZINC: under a
 * first-release estimate every view dates each date's first version by the calendar, the current
 * one included (versions.ts `releaseInForce`).
 */
function estimatedSeriesBucket(): SeriesBucketDoc {
  const b = versionedSeriesBucket();
  return {
    ...b,
    _id: seriesBucketId('ZINC', 'price', 2021),
    commodity_id: 'ZINC',
    releases: b.releases!.map((r) => ({ ...r, e: true as const })),
  };
}

// COT reports of early 2025, each published the Friday after at 15:30 New York (estimated); the
// release of 2025-03-14 restated 2025-03-04.
const COT_RELEASES: StoredRelease[] = [
  { p: '2025-02-28T20:30:00.000Z', f: '2025-03-15T00:00:00.000Z', e: true, lo: '2025-02-25', hi: '2025-02-25' },
  { p: '2025-03-07T20:30:00.000Z', f: '2025-03-15T00:00:00.000Z', e: true, lo: '2025-03-04', hi: '2025-03-04' },
  { p: '2025-03-14T20:30:00.000Z', f: '2025-03-15T00:00:00.000Z', e: true, lo: '2025-03-04', hi: '2025-03-11' },
];
function versionedCotBucket(): CotBucketDoc {
  const oi = (date: string, n: number, r: number): StoredCotReport => ({ ...report(date, n), open_interest: n, r });
  return {
    _id: cotBucketId('COPPER', 'legacy', 2025),
    commodity_id: 'COPPER',
    format: 'legacy',
    year: 2025,
    first_date: '2025-02-25',
    last_date: '2025-03-11',
    count: 3,
    reports: [oi('2025-02-25', 1000, 0), oi('2025-03-04', 2100, 2), oi('2025-03-11', 3000, 2)],
    revised: [oi('2025-03-04', 2000, 1)],
    releases: COT_RELEASES,
    _meta: meta(1),
  };
}

async function insertAll<D extends ReadModelDoc>(store: ReadModelStore, name: ReadModelName, docs: D[]) {
  const coll = await store.collection<D>(name, COLLECTIONS[name]);
  expect(await coll.compareAndSet(docs.map((doc) => ({ doc, rev: null })))).toEqual({
    written: docs.length,
    conflicts: 0,
  });
}

/** A balance sheet of two releases: ending stocks revised by the second, production confirmed. */
function sheet(commodityId: string, region: string, marketingYear: string): SupplyDemandBucketDoc {
  return {
    _id: `${commodityId}:${region}:${marketingYear}`,
    commodity_id: commodityId,
    region,
    marketing_year: marketingYear,
    figures: [
      { k: 'ending_stocks|Million Bushels', a: 'ending_stocks', u: 'Million Bushels', v: 1750, s: 'projection', r: 1 },
      { k: 'production|Million Bushels', a: 'production', u: 'Million Bushels', v: 15800, s: 'projection', r: 0 },
    ],
    revised: [
      {
        k: 'ending_stocks|Million Bushels',
        a: 'ending_stocks',
        u: 'Million Bushels',
        v: 1800,
        s: 'projection',
        x: ['supply_equals_use_plus_ending_stocks'],
        r: 0,
      },
    ],
    releases: [
      {
        p: '2026-05-12T16:00:00.000Z',
        f: '2026-05-12T16:01:00.000Z',
        lo: 'ending_stocks|Million Bushels',
        hi: 'production|Million Bushels',
      },
      {
        p: '2026-06-11T16:00:00.000Z',
        f: '2026-06-11T16:01:00.000Z',
        lo: 'ending_stocks|Million Bushels',
        hi: 'production|Million Bushels',
      },
    ],
    source: 'wasde:wasde0626.xml',
    last_updated: '2026-06-11T16:01:00.000Z',
    _meta: { ...meta(1), parts: { 'ending_stocks|Million Bushels': 2, 'production|Million Bushels': 1 } },
  };
}

/**
 * The storage port's contract (port.ts), registered as describe blocks for one adapter. Each
 * adapter's int spec calls it against a real server from @cds/testkit; the data is written
 * through the port, so the adapter's own format is what is read back.
 */
export function registerPortContract(
  adapter: string,
  open: OpenStore,
  server: {
    /**
     * The server replaces a document atomically with its filter (MongoDB). FerretDB 1.x does not:
     * it evaluates a replace's filter in its own process, then writes by `_id` (the FerretDB
     * adapter's write claims make up for it; the MongoDB adapter has none).
     */
    atomicReplace: boolean;
  },
): void {
  let client: MongoClient;
  let db: Db;
  let store: ReadModelStore;

  // 2000-01-03 .. 2000-12-31 every 4th day, nothing in 2001..2019, then 2020-12-28 .. 2021-01-08 daily, 2023-06-01.
  const early = Array.from({ length: 91 }, (_, i) => ({ d: day('2000-01-03', 4 * i), v: i }));
  const turn = Array.from({ length: 12 }, (_, i) => ({ d: day('2020-12-28', i), v: 100 + i }));
  const late = [{ d: '2023-06-01', v: 7 }];
  // Weekly COT reports on Tuesdays, 2019-01-01 .. 2021-12-28 (157 of them).
  const tuesdays = Array.from({ length: 157 }, (_, i) => day('2019-01-01', 7 * i));
  const wheatSeries = { commodityId: 'WHEAT', type: 'price' as const, firstYear: 2000, lastYear: 2023 };
  const wheatCot = {
    commodityId: 'WHEAT',
    format: 'legacy' as const,
    firstDate: tuesdays[0]!,
    lastDate: tuesdays.at(-1)!,
  };

  beforeAll(async () => {
    client = await new MongoClient(getTestInfra().mongoUrl).connect();
    db = client.db(uniqueName(`port_${adapter}`));
    store = open(db, { owner: 'contract' });
    await insertAll(store, 'catalog', [
      catalogDoc('WHEAT', 'agriculture'),
      catalogDoc('CORN', 'agriculture'),
      catalogDoc('GOLD', 'metals'),
      catalogDoc('ORPHAN', 'agriculture', false),
    ]);
    await insertAll(store, 'series', [
      seriesBucket('WHEAT', early, 'USD/bu'),
      seriesBucket('WHEAT', turn.slice(0, 4)),
      seriesBucket('WHEAT', turn.slice(4), 'USc/bu'),
      seriesBucket('WHEAT', late),
      versionedSeriesBucket(),
      estimatedSeriesBucket(),
    ]);
    await insertAll(
      store,
      'cot',
      cotBuckets(
        'WHEAT',
        tuesdays.map((d, i) => report(d, i)),
      ).concat(
        versionedCotBucket(),
        // The combined reports of 2020 and 2021 (open interest from 500,000), in the same years as futures-only ones.
        cotBuckets(
          'WHEAT',
          tuesdays.filter((d) => d >= '2020').map((d, i) => ({ ...report(d, i), open_interest: 500_000 + i })),
          true,
        ),
      ),
    );
  });

  afterAll(async () => {
    await db?.dropDatabase().catch(() => undefined);
    await client?.close();
  });

  describe(`storage port contract: ${adapter} adapter`, () => {
    it('serves from the adapter it was opened as, and answers ping', async () => {
      expect(await store.adapter()).toBe(adapter);
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('reads the catalog: listed entries only, sorted by id, by category, summary fields; one entry without _meta', async () => {
      const all = await store.catalogEntries();
      expect(all.map((d) => d._id)).toEqual(['CORN', 'GOLD', 'WHEAT']);
      expect(all[0]).toEqual({
        _id: 'CORN',
        id: 'CORN',
        name: 'CORN name',
        symbol: 'CO',
        category: 'agriculture',
        listed: true,
      });
      expect((await store.catalogEntries({ category: 'agriculture' })).map((d) => d._id)).toEqual(['CORN', 'WHEAT']);
      expect(await store.catalogEntries({ category: 'energy' })).toEqual([]);
      const gold = await store.catalogEntry('GOLD');
      expect(gold).toMatchObject({ _id: 'GOLD', category: 'metals', series: { price: { frequency: 'daily' } } });
      expect(gold).not.toHaveProperty('_meta');
      expect(await store.catalogEntry('ORPHAN')).toBeNull();
      expect(await store.catalogEntry('NOPE')).toBeNull();
    });

    it('reads the unlisted catalog documents (series that are no commodity), whole without _meta, sorted by id', async () => {
      const unlisted = await store.unlistedEntries();
      expect(unlisted.map((d) => d._id)).toEqual(['ORPHAN']);
      expect(unlisted[0]).toMatchObject({ _id: 'ORPHAN', listed: false, series: { price: { frequency: 'daily' } } });
      expect(unlisted[0]).not.toHaveProperty('_meta');
    });

    it('loads documents by id, leaving missing ones out', async () => {
      const series = await store.collection<SeriesBucketDoc>('series', COLLECTIONS.series);
      expect(series.collection).toBe(COLLECTIONS.series);
      const found = await series.load(['WHEAT:price:2021', 'WHEAT:price:1999', 'WHEAT:price:2023']);
      expect(found.map((d) => d._id).sort()).toEqual(['WHEAT:price:2021', 'WHEAT:price:2023']);
      expect(found.find((d) => d.year === 2021)).toEqual(seriesBucket('WHEAT', turn.slice(4), 'USc/bu'));
      expect(await series.load([])).toEqual([]);
      expect(await series.load(['NOPE:price:2020'])).toEqual([]);
    });

    it('reads a series range across years, ascending, with the unit of its earliest bucket that has one', async () => {
      const q = wheatSeries;
      const r = await store.seriesRange({ ...q, startDate: '2020-12-30', endDate: '2021-01-02' });
      expect(r.points.map((p) => p.d)).toEqual(['2020-12-30', '2020-12-31', '2021-01-01', '2021-01-02']);
      expect(r.before).toEqual([]);
    });

    it('returns no points for an empty range, a range in a gap of years, and a commodity without data', async () => {
      const q = wheatSeries;
      expect((await store.seriesRange({ ...q, startDate: '2000-01-04', endDate: '2000-01-06' })).points).toEqual([]);
      const gap = await store.seriesRange({ ...q, startDate: '2005-01-01', endDate: '2019-12-31' });
      expect(gap).toEqual({ points: [], before: [] });
      const none = await store.seriesRange({
        ...q,
        commodityId: 'NOPE',
        startDate: '2000-01-01',
        endDate: '2023-12-31',
      });
      expect(none).toEqual({ points: [], before: [] });
      // Outside the descriptor's years nothing is read, even where a bucket exists.
      const clipped = await store.seriesRange({ ...q, lastYear: 2021, startDate: '2023-01-01', endDate: '2023-12-31' });
      expect(clipped.points).toEqual([]);
    });

    it('carries the predecessor: the whole period of the last observation before start_date, across New Year and far in the past', async () => {
      const q = wheatSeries;
      // Last before 2021-01-04 is Sunday 2021-01-03; its ISO week began Monday 2020-12-28, in the bucket of 2020.
      const weekly = await store.seriesRange({
        ...q,
        startDate: '2021-01-04',
        endDate: '2021-01-05',
        predecessorPeriod: isoWeekStart,
      });
      expect(weekly.points.map((p) => p.d)).toEqual(['2021-01-04', '2021-01-05']);
      expect(weekly.before.map((p) => p.d)).toEqual(turn.slice(0, 7).map((p) => p.d));
      const monthly = await store.seriesRange({
        ...q,
        startDate: '2021-01-04',
        endDate: '2021-01-05',
        predecessorPeriod: monthStart,
      });
      expect(monthly.before.map((p) => p.d)).toEqual(['2021-01-01', '2021-01-02', '2021-01-03']);
      const daily = await store.seriesRange({
        ...q,
        startDate: '2021-01-04',
        endDate: '2021-01-05',
        predecessorPeriod: (d) => d,
      });
      expect(daily.before).toEqual([{ d: '2021-01-03', v: 106 }]);
      // Twenty years of nothing before 2020-12-28: the predecessor is December 2000's last week.
      const far = await store.seriesRange({
        ...q,
        startDate: '2019-06-01',
        endDate: '2020-12-28',
        predecessorPeriod: isoWeekStart,
      });
      expect(far.points).toEqual([{ d: '2020-12-28', v: 100 }]);
      const lastOf2000 = early.at(-1)!.d;
      expect(far.before.map((p) => p.d)).toEqual(early.filter((p) => p.d >= isoWeekStart(lastOf2000)).map((p) => p.d));
      expect(far.before.at(-1)!.d).toBe(lastOf2000);
      // Before the first observation there is none.
      const first = await store.seriesRange({
        ...q,
        startDate: '2000-01-03',
        endDate: '2000-01-10',
        predecessorPeriod: isoWeekStart,
      });
      expect(first.before).toEqual([]);
      expect(first.points.map((p) => p.d)).toEqual(['2000-01-03', '2000-01-07']);
      // A start far after the series' last year: the predecessor is its last observation.
      const ahead = await store.seriesRange({
        ...q,
        startDate: '2030-01-01',
        endDate: '2030-12-31',
        predecessorPeriod: (d) => d,
      });
      expect(ahead).toMatchObject({ points: [], before: late });
    });

    it('gives the unit of the earliest bucket read that has one (with a predecessor, from the year before start_date)', async () => {
      const q = wheatSeries;
      expect((await store.seriesRange({ ...q, startDate: '2020-12-30', endDate: '2021-01-02' })).unit).toBe('USc/bu');
      expect((await store.seriesRange({ ...q, startDate: '2000-02-01', endDate: '2021-01-02' })).unit).toBe('USD/bu');
      expect((await store.seriesRange({ ...q, startDate: '2023-01-01', endDate: '2023-12-31' })).unit).toBeUndefined();
      const withPrevious = {
        ...q,
        startDate: '2001-03-01',
        endDate: '2001-03-31',
        predecessorPeriod: (d: string) => d,
      };
      expect((await store.seriesRange(withPrevious)).unit).toBe('USD/bu');
    });

    it('pages COT reports by date with a total, either order, across years, clipped to the descriptor', async () => {
      const q = { ...wheatCot, sortOrder: 'asc' as const, skip: 0, limit: 5 };
      const asc = await store.cotPage(q);
      expect(asc.total).toBe(157);
      expect(asc.items.map((r) => r.report_date)).toEqual(tuesdays.slice(0, 5));
      const expected: CotDoc = { ...report(tuesdays[0]!, 0), commodity_id: 'WHEAT', format: 'legacy' };
      expect(asc.items[0]).toEqual(expected);
      const desc = await store.cotPage({ ...q, sortOrder: 'desc', skip: 5, limit: 3 });
      expect(desc.items.map((r) => r.report_date)).toEqual(tuesdays.slice(-8, -5).reverse());
      // Across New Year 2020.
      const across = await store.cotPage({ ...q, startDate: '2019-12-20', endDate: '2020-01-10', limit: 10 });
      expect(across).toMatchObject({ total: 3 });
      expect(across.items.map((r) => r.report_date)).toEqual(['2019-12-24', '2019-12-31', '2020-01-07']);
      // The descriptor bounds the dates: reports after lastDate are not served.
      const clipped = await store.cotPage({ ...q, lastDate: '2019-01-15', limit: 100 });
      expect(clipped.total).toBe(3);
    });

    it('answers a COT page past the end with no items and the total, and a range with no reports with nothing', async () => {
      const q = { ...wheatCot, sortOrder: 'desc' as const, skip: 200, limit: 50 };
      expect(await store.cotPage(q)).toEqual({ total: 157, items: [] });
      expect(await store.cotPage({ ...q, skip: 150, limit: 50 })).toMatchObject({ total: 157 });
      expect((await store.cotPage({ ...q, skip: 150, limit: 50 })).items).toHaveLength(7);
      expect(await store.cotPage({ ...q, skip: 0, startDate: '2019-01-02', endDate: '2019-01-07' })).toEqual({
        total: 0,
        items: [],
      });
      expect(await store.cotPage({ ...q, skip: 0, startDate: '2022-01-01' })).toEqual({ total: 0, items: [] });
      expect(await store.cotPage({ ...q, skip: 0, commodityId: 'NOPE' })).toEqual({ total: 0, items: [] });
    });

    it('reads the COT reports before a date: the latest ones, ascending, far back across years', async () => {
      const q = { commodityId: 'WHEAT', format: 'legacy' as const, firstDate: tuesdays[0]! };
      const three = await store.cotBefore({ ...q, before: '2020-01-08', count: 3 });
      expect(three.map((r) => r.report_date)).toEqual(['2019-12-24', '2019-12-31', '2020-01-07']);
      expect(three[0]).toMatchObject({ commodity_id: 'WHEAT', format: 'legacy', open_interest: 1_000 + 51 });
      const many = await store.cotBefore({ ...q, before: '2021-12-29', count: 120 });
      expect(many.map((r) => r.report_date)).toEqual(tuesdays.slice(-120));
      expect(await store.cotBefore({ ...q, before: '2019-01-15', count: 10 })).toHaveLength(2);
      expect(await store.cotBefore({ ...q, before: tuesdays[0]!, count: 10 })).toEqual([]);
      expect(await store.cotBefore({ ...q, before: '2020-01-08', count: 0 })).toEqual([]);
    });

    it('reads one COT dataset: a format in a scope, never mixed with the other scope of the same years', async () => {
      const q = { ...wheatCot, sortOrder: 'asc' as const, skip: 0, limit: 500 };
      const combinedDates = tuesdays.filter((d) => d >= '2020');
      for (const futuresOnly of [q, { ...q, scope: 'futures_only' as const }]) {
        const page = await store.cotPage(futuresOnly);
        expect(page.total).toBe(157);
        expect(page.items.every((r) => r.open_interest < 500_000)).toBe(true);
      }
      const combined = await store.cotPage({ ...q, scope: 'futures_and_options' });
      expect(combined.total).toBe(combinedDates.length);
      expect(combined.items.map((r) => r.report_date)).toEqual(combinedDates);
      expect(combined.items.every((r) => r.open_interest >= 500_000)).toBe(true);
      const before = await store.cotBefore({
        ...wheatCot,
        scope: 'futures_and_options',
        before: '2021-01-01',
        count: 2,
      });
      expect(before.map((r) => [r.report_date, r.open_interest >= 500_000])).toEqual([
        ['2020-12-22', true],
        ['2020-12-29', true],
      ]);
    });

    it("reads balance sheets: one by marketing year, or a region's all, whole and newest first, no other region or commodity", async () => {
      const years = ['1975/76', '2024/25', '2025/26', '2026/27'];
      await insertAll(store, 'supply_demand', [
        ...years.map((y) => sheet('CORN', 'united_states', y)),
        sheet('CORN', 'united_states_territories', '2026/27'),
        sheet('CORN', 'world', '2026/27'),
        sheet('CORN_OIL', 'united_states', '2026/27'),
      ]);
      const { _meta, ...whole } = sheet('CORN', 'united_states', '2026/27');
      expect(_meta.rev).toBe(1);
      const all = await store.supplyDemandSheets({ commodityId: 'CORN', region: 'united_states' });
      expect(all.map((d) => d.marketing_year)).toEqual([...years].reverse());
      expect(all[0]).toEqual(whole);
      expect(
        await store.supplyDemandSheets({ commodityId: 'CORN', region: 'world', marketingYear: '2026/27' }),
      ).toEqual([{ ...whole, _id: 'CORN:world:2026/27', region: 'world' }]);
      expect(
        await store.supplyDemandSheets({ commodityId: 'CORN', region: 'united_states', marketingYear: '2023/24' }),
      ).toEqual([]);
      expect(await store.supplyDemandSheets({ commodityId: 'CORN', region: 'china' })).toEqual([]);
      expect(await store.supplyDemandSheets({ commodityId: 'WHEAT', region: 'united_states' })).toEqual([]);
      // a table kept by calendar year (the U.S. meats) names its sheets YYYY: found too, newest first
      await insertAll(store, 'supply_demand', [
        sheet('PORK', 'united_states', '2024'),
        sheet('PORK', 'united_states', '2025'),
      ]);
      const calendar = await store.supplyDemandSheets({ commodityId: 'PORK', region: 'united_states' });
      expect(calendar.map((d) => d.marketing_year)).toEqual(['2025', '2024']);
      const sheets = await store.collection<SupplyDemandBucketDoc>('supply_demand', COLLECTIONS.supply_demand);
      const [loaded] = await sheets.load(['CORN:world:2026/27']);
      expect({ ...loaded, _meta: { ...loaded!._meta, rev: 1 } }).toEqual(sheet('CORN', 'world', '2026/27'));
    });

    describe('versions (versions.ts views)', () => {
      const copper = { commodityId: 'COPPER', type: 'price' as const, firstYear: 2021, lastYear: 2021 };
      const year = { startDate: '2021-01-01', endDate: '2021-12-31' };
      const copperCot = {
        commodityId: 'COPPER',
        format: 'legacy' as const,
        firstDate: '2025-02-25',
        lastDate: '2025-03-11',
      };
      const page = { ...copperCot, sortOrder: 'asc' as const, skip: 0, limit: 10 };

      it('loads a versioned bucket whole, as written', async () => {
        const series = await store.collection<SeriesBucketDoc>('series', COLLECTIONS.series);
        expect(await series.load(['COPPER:price:2021'])).toEqual([versionedSeriesBucket()]);
        const cot = await store.collection<CotBucketDoc>('cot', COLLECTIONS.cot);
        expect(await cot.load(['COPPER:legacy:2025'])).toEqual([versionedCotBucket()]);
      });

      it('series, current view: the newest versions, each with its release; documents without releases have none', async () => {
        const r = await store.seriesRange({ ...copper, ...year });
        expect(r.points).toEqual([
          { d: '2021-04-01', v: 9336, r: 0, release: JUNE_2021 },
          { d: '2021-05-01', v: 10161.9, r: 1, release: MARCH_2022 },
          { d: '2021-06-01', v: 9612.5, r: 1, release: MARCH_2022 },
        ]);
        expect(r.unit).toBe('USD/mt');
        // an explicit view asking for nothing is the current one
        expect(await store.seriesRange({ ...copper, ...year, view: {} })).toEqual(r);
        const wheat = await store.seriesRange({ ...wheatSeries, startDate: '2020-12-30', endDate: '2020-12-31' });
        expect(wheat.points[0]).not.toHaveProperty('release');
      });

      it('series as_of: what had been published then (later observations absent, revised ones as they were)', async () => {
        const between = await store.seriesRange({ ...copper, ...year, view: { asOf: '2021-12-31T23:59:59.999Z' } });
        expect(between.points).toEqual([
          { d: '2021-04-01', v: 9336, r: 0, release: JUNE_2021 },
          { d: '2021-05-01', v: 10184, r: 0, release: JUNE_2021 },
        ]);
        const after = await store.seriesRange({ ...copper, ...year, view: { asOf: '2022-03-02T14:00:00.000Z' } });
        expect(after.points.map((p) => p.v)).toEqual([9336, 10161.9, 9612.5]);
        const before = await store.seriesRange({ ...copper, ...year, view: { asOf: '2021-06-02T13:59:59.999Z' } });
        expect(before.points).toEqual([]);
        // the predecessor is the last observation of the view
        const withPredecessor = await store.seriesRange({
          ...copper,
          startDate: '2021-06-01',
          endDate: '2021-12-31',
          predecessorPeriod: (d) => d,
          view: { asOf: '2021-12-31T23:59:59.999Z' },
        });
        expect(withPredecessor.points).toEqual([]);
        expect(withPredecessor.before).toEqual([{ d: '2021-05-01', v: 10184, r: 0, release: JUNE_2021 }]);
      });

      it('series first release and revisions', async () => {
        const first = await store.seriesRange({ ...copper, ...year, view: { firstRelease: true } });
        expect(first.points.map((p) => [p.d, p.v])).toEqual([
          ['2021-04-01', 9336],
          ['2021-05-01', 10184],
          ['2021-06-01', 9612.5],
        ]);
        const revisions = await store.seriesRange({ ...copper, ...year, view: { revisions: true } });
        expect(revisions.points).toEqual([
          { d: '2021-04-01', v: 9336, r: 0, release: JUNE_2021, earlier: [] },
          {
            d: '2021-05-01',
            v: 10161.9,
            r: 1,
            release: MARCH_2022,
            earlier: [{ d: '2021-05-01', v: 10184, r: 0, release: JUNE_2021 }],
          },
          { d: '2021-06-01', v: 9612.5, r: 1, release: MARCH_2022, earlier: [] },
        ]);
        // revisions as of a date: only the versions published by then
        const then = await store.seriesRange({
          ...copper,
          ...year,
          view: { revisions: true, asOf: '2021-12-31T23:59:59.999Z' },
        });
        expect(then.points.map((p) => [p.d, p.v, p.earlier?.length])).toEqual([
          ['2021-04-01', 9336, 0],
          ['2021-05-01', 10184, 0],
        ]);
      });

      it('series under a first-release estimate: every view, the current one too, dates a first version stamped at its load by the calendar', async () => {
        // the calendar: an observation is out on the 10th of the next month
        const estimate = (d: string) =>
          `${d.slice(0, 5)}${String(Number(d.slice(5, 7)) + 1).padStart(2, '0')}-10T00:00:00.000Z`;
        const zinc = { ...copper, commodityId: 'ZINC' };
        const june = { ...JUNE_2021, e: true as const };
        const march = { ...MARCH_2022, e: true as const };
        const current = await store.seriesRange({ ...zinc, ...year, view: { firstReleaseEstimate: estimate } });
        expect(current.points).toEqual([
          { d: '2021-04-01', v: 9336, r: 0, release: { ...june, p: '2021-05-10T00:00:00.000Z' } },
          // a revision: its own time
          { d: '2021-05-01', v: 10161.9, r: 1, release: march },
          // first carried by the later release: the calendar's
          { d: '2021-06-01', v: 9612.5, r: 1, release: { ...march, p: '2021-07-10T00:00:00.000Z' } },
        ]);
        const revisions = await store.seriesRange({
          ...zinc,
          ...year,
          view: { revisions: true, firstReleaseEstimate: estimate },
        });
        expect(current.points).toEqual(revisions.points.map(({ earlier: _, ...p }) => p));
        // a range and a predecessor cut from the same view
        const cut = await store.seriesRange({
          ...zinc,
          startDate: '2021-06-01',
          endDate: '2021-06-30',
          predecessorPeriod: (d) => d,
          view: { firstReleaseEstimate: estimate },
        });
        expect(cut.points).toEqual(current.points.slice(2));
        expect(cut.before).toEqual(current.points.slice(1, 2));
        // without the estimate, the stored stamps
        expect((await store.seriesRange({ ...zinc, ...year })).points.map((p) => p.release)).toEqual([
          june,
          march,
          march,
        ]);
      });

      it('COT, current view: the newest reports with their releases; the total unchanged', async () => {
        const current = await store.cotPage(page);
        expect(current.total).toBe(3);
        expect(current.items.map((r) => [r.report_date, r.open_interest, r.release?.p])).toEqual([
          ['2025-02-25', 1000, COT_RELEASES[0]!.p],
          ['2025-03-04', 2100, COT_RELEASES[2]!.p],
          ['2025-03-11', 3000, COT_RELEASES[2]!.p],
        ]);
        expect(current.items[0]).toEqual({
          ...report('2025-02-25', 1000),
          open_interest: 1000,
          r: 0,
          release: COT_RELEASES[0],
          commodity_id: 'COPPER',
          format: 'legacy',
        });
        const before = await store.cotBefore({ ...copperCot, before: '2025-03-12', count: 2 });
        expect(before.map((r) => [r.report_date, r.open_interest, r.release?.p])).toEqual([
          ['2025-03-04', 2100, COT_RELEASES[2]!.p],
          ['2025-03-11', 3000, COT_RELEASES[2]!.p],
        ]);
      });

      it('COT as_of: the reports released by then, paged and counted in that view', async () => {
        const before = await store.cotPage({ ...page, view: { asOf: '2025-03-07T20:29:00.000Z' } });
        expect(before.total).toBe(1);
        expect(before.items.map((r) => r.report_date)).toEqual(['2025-02-25']);
        const after = await store.cotPage({ ...page, view: { asOf: '2025-03-07T20:31:00.000Z' } });
        expect(after.total).toBe(2);
        expect(after.items.map((r) => [r.report_date, r.open_interest, r.release?.p])).toEqual([
          ['2025-02-25', 1000, COT_RELEASES[0]!.p],
          ['2025-03-04', 2000, COT_RELEASES[1]!.p],
        ]);
        const second = await store.cotPage({
          ...page,
          sortOrder: 'desc',
          skip: 1,
          limit: 1,
          view: { asOf: '2025-03-07T20:31:00.000Z' },
        });
        expect(second).toMatchObject({ total: 2, items: [{ report_date: '2025-02-25', commodity_id: 'COPPER' }] });
        expect(await store.cotPage({ ...page, skip: 5, view: { asOf: '2025-03-07T20:31:00.000Z' } })).toEqual({
          total: 2,
          items: [],
        });
        const history = await store.cotBefore({
          ...copperCot,
          before: '2025-03-12',
          count: 5,
          view: { asOf: '2025-03-07T20:31:00.000Z' },
        });
        expect(history.map((r) => [r.report_date, r.open_interest])).toEqual([
          ['2025-02-25', 1000],
          ['2025-03-04', 2000],
        ]);
      });

      it('COT first release and revisions', async () => {
        const first = await store.cotPage({ ...page, view: { firstRelease: true } });
        expect(first.items.map((r) => r.open_interest)).toEqual([1000, 2000, 3000]);
        const revisions = await store.cotPage({ ...page, view: { revisions: true } });
        expect(revisions.items[1]).toMatchObject({
          report_date: '2025-03-04',
          open_interest: 2100,
          release: COT_RELEASES[2],
          earlier: [{ report_date: '2025-03-04', open_interest: 2000, release: COT_RELEASES[1] }],
        });
      });
    });

    it('compare-and-set: inserts if absent, replaces if still at the revision, refuses the rest', async () => {
      const catalog = await store.collection<CatalogDoc>('catalog', COLLECTIONS.catalog);
      const fresh = catalogDoc('CAS_A', 'softs');
      expect(await catalog.compareAndSet([{ doc: fresh, rev: null }])).toEqual({ written: 1, conflicts: 0 });
      // A second insert of the same id lost a race: a conflict.
      expect(await catalog.compareAndSet([{ doc: fresh, rev: null }])).toEqual({ written: 0, conflicts: 1 });
      const next = { ...fresh, name: 'renamed', _meta: meta(2) };
      expect(await catalog.compareAndSet([{ doc: next, rev: 1 }])).toEqual({ written: 1, conflicts: 0 });
      // From a stale read (revision 1 again): refused, nothing changes.
      const stale = { ...fresh, name: 'stale', _meta: meta(2) };
      expect(await catalog.compareAndSet([{ doc: stale, rev: 1 }])).toEqual({ written: 0, conflicts: 1 });
      // A replace of a document that is gone: refused.
      const ghost = { ...catalogDoc('CAS_GHOST', 'softs'), _meta: meta(2) };
      expect(await catalog.compareAndSet([{ doc: ghost, rev: 1 }])).toEqual({ written: 0, conflicts: 1 });
      expect(await catalog.load(['CAS_A'])).toEqual([next]);
      expect(await catalog.compareAndSet([])).toEqual({ written: 0, conflicts: 0 });
    });

    it.skipIf(!server.atomicReplace)(
      'compare-and-set between two writers: of two replaces from the same revision exactly one wins, every round',
      async () => {
        const a = await store.collection<CatalogDoc>('catalog', COLLECTIONS.catalog);
        const b = await open(db, { owner: 'contract-b' }).collection<CatalogDoc>('catalog', COLLECTIONS.catalog);
        await a.compareAndSet([{ doc: catalogDoc('CAS_RACE', 'softs'), rev: null }]);
        for (let rev = 1; rev <= 8; rev++) {
          const [ra, rb] = await Promise.all([
            a.compareAndSet([
              { doc: { ...catalogDoc('CAS_RACE', 'softs'), name: `a${rev}`, _meta: meta(rev + 1) }, rev },
            ]),
            b.compareAndSet([
              { doc: { ...catalogDoc('CAS_RACE', 'softs'), name: `b${rev}`, _meta: meta(rev + 1) }, rev },
            ]),
          ]);
          expect(ra.written + rb.written).toBe(1);
          expect(ra.conflicts + rb.conflicts).toBe(1);
          const [stored] = await a.load(['CAS_RACE']);
          expect(stored!.name).toBe(ra.written === 1 ? `a${rev}` : `b${rev}`);
          expect(stored!._meta.rev).toBe(rev + 1);
        }
      },
    );

    it('follows a rebuild: active() and the reads move to the collection the alias names, and the swap is announced', async () => {
      let now = 0;
      const swaps: string[] = [];
      const s = open(db, { owner: 'alias', now: () => now, onCollectionSwap: (name) => swaps.push(name) });
      expect((await s.active('catalog')).collection).toBe(COLLECTIONS.catalog);
      expect((await s.catalogEntry('GOLD'))?.name).toBe('GOLD name');
      const target = await s.collection<CatalogDoc>('catalog', 'catalog_rebuild_1');
      await target.compareAndSet([{ doc: { ...catalogDoc('GOLD', 'metals'), name: 'Gold v2' }, rev: null }]);
      await db.collection(COLLECTIONS.aliases).insertOne({
        _id: 'catalog' as never,
        collection: 'catalog_rebuild_1',
        swapped_at: '2024-01-01T00:00:00Z',
        position: 1,
      });
      expect((await s.catalogEntry('GOLD'))?.name).toBe('GOLD name'); // cached for ALIAS_CACHE_MS
      await s.followSwaps?.();
      expect(swaps).toEqual([]); // the alias is still cached
      now += 60_000;
      // Looking at the aliases without a read announces the swap (a reader that keeps what it read).
      await s.followSwaps?.();
      expect(swaps).toEqual(['catalog']);
      expect((await s.catalogEntry('GOLD'))?.name).toBe('Gold v2');
      expect(swaps).toEqual(['catalog']);
      expect((await s.active('catalog')).collection).toBe('catalog_rebuild_1');
      expect(await s.drop('catalog_rebuild_1')).toBe(true);
      const left = await db.listCollections({}, { nameOnly: true }).toArray();
      expect(left.map((c) => c.name).filter((n) => n.startsWith('catalog_rebuild_1'))).toEqual([]);
      await db.collection(COLLECTIONS.aliases).deleteOne({ _id: 'catalog' as never });
    });
  });

  describe(`storage port contract: ${adapter} adapter, a server that stops answering`, () => {
    it('ends reads, writes and ping by the deadline with StoreUnavailableError, and works again after', async () => {
      const frozen = await startMongo();
      const own = await new MongoClient(frozen.url, { socketTimeoutMS: 2_000 }).connect();
      try {
        const s = open(own.db('frozen'), { owner: 'frozen', timeoutMs: 300 });
        const catalog = await s.collection<CatalogDoc>('catalog', COLLECTIONS.catalog);
        await catalog.compareAndSet([{ doc: catalogDoc('FROZEN', 'softs'), rev: null }]);
        expect(await s.catalogEntry('FROZEN')).not.toBeNull();
        // Stopped, not dead: the connection stays open and nothing ever answers.
        await frozen.kill('SIGSTOP');
        const started = Date.now();
        const read: unknown = await s.catalogEntry('FROZEN').catch((e: unknown) => e);
        expect(read).toBeInstanceOf(StoreUnavailableError);
        const page: unknown = await s
          .cotPage({
            commodityId: 'X',
            format: 'legacy',
            firstDate: '2020-01-01',
            lastDate: '2020-12-31',
            sortOrder: 'asc',
            skip: 0,
            limit: 1,
          })
          .catch((e: unknown) => e);
        expect(page).toBeInstanceOf(StoreUnavailableError);
        const sheets: unknown = await s
          .supplyDemandSheets({ commodityId: 'X', region: 'world' })
          .catch((e: unknown) => e);
        expect(sheets).toBeInstanceOf(StoreUnavailableError);
        const write: unknown = await catalog
          .compareAndSet([{ doc: { ...catalogDoc('FROZEN', 'softs'), _meta: meta(2) }, rev: 1 }])
          .catch((e: unknown) => e);
        expect(write).toBeInstanceOf(StoreUnavailableError);
        expect(await catalog.load(['FROZEN']).catch((e: unknown) => e)).toBeInstanceOf(StoreUnavailableError);
        await expect(s.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
        // A caller's own signal ends a write sooner, with the caller's reason.
        const caller = new AbortController();
        const why = new Error('watchdog');
        const pending = catalog.load(['FROZEN'], { timeoutMs: 60_000, signal: caller.signal }).catch((e: unknown) => e);
        caller.abort(why);
        expect(await pending).toBe(why);
        expect(Date.now() - started).toBeLessThan(5_000);
        await frozen.kill('SIGCONT');
        const again = open(own.db('frozen'), { owner: 'frozen-2', timeoutMs: 5_000 });
        expect((await again.catalogEntry('FROZEN'))?.name).toBe('FROZEN name');
      } finally {
        await frozen.kill('SIGCONT').catch(() => undefined);
        await own.close().catch(() => undefined);
        await frozen.stop();
      }
    });
  });
}
