import type { CatalogDoc, StoredPoint } from '@cds/read-models';
import {
  seriesRangeFromBuckets,
  viewPoints,
  type ReadModelReader,
  type SeriesRangeQuery,
  type SupplyDemandSheetsQuery,
} from '@cds/store';
import { describe, expect, it } from 'vitest';
import { catalogDoc, dateRange, seriesBuckets, supplyDemandSheet } from '../testing/fixtures.ts';
import { createReadMemo } from './read-memo.ts';

const points: StoredPoint[] = dateRange('2019-06-01', '2024-03-31', true)
  // a gap of a year and a half: a predecessor walks back over it
  .filter((d) => d < '2021-01-01' || d > '2022-06-30')
  .map((d, i) => ({ d, v: 100 + i }));
const buckets = new Map(seriesBuckets('GOLD', 'price', points, { unit: 'USD/troy oz' }).map((b) => [b.year, b]));

/** The store's rule over in-memory buckets, counting the reads (one per bucket). */
function fakeReader(): ReadModelReader & { reads: number; catalogReads: number; sheetReads: number } {
  const reader = {
    reads: 0,
    catalogReads: 0,
    sheetReads: 0,
    catalogEntries: () => {
      reader.catalogReads += 1;
      return Promise.resolve([catalogDoc('GOLD'), catalogDoc('SILVER')]);
    },
    catalogEntry: (id: string): Promise<CatalogDoc | null> => {
      reader.catalogReads += 1;
      return Promise.resolve(id === 'GOLD' || id === 'SILVER' ? catalogDoc(id) : null);
    },
    unlistedEntries: (): Promise<CatalogDoc[]> => {
      reader.catalogReads += 1;
      return Promise.resolve([{ ...catalogDoc('FX_EUR_USD'), listed: false }]);
    },
    seriesRange: (q: SeriesRangeQuery) =>
      seriesRangeFromBuckets(q, (ys) =>
        Promise.resolve(
          ys.map((y) => {
            reader.reads += 1;
            const b = q.commodityId === 'GOLD' ? buckets.get(y) : undefined;
            return b === undefined ? null : { unit: b.unit, points: viewPoints({ current: b.points }, q.view) };
          }),
        ),
      ),
    cotPage: () => Promise.reject(new Error('not used')),
    cotBefore: () => Promise.reject(new Error('not used')),
    supplyDemandSheets: (q: SupplyDemandSheetsQuery) => {
      reader.sheetReads += 1;
      return Promise.resolve(
        q.commodityId === 'CORN' ? [supplyDemandSheet('CORN', q.region, q.marketingYear ?? '2026/27', [])] : [],
      );
    },
    ping: () => Promise.resolve(),
  };
  return reader;
}

const query = (over: Partial<SeriesRangeQuery> = {}): SeriesRangeQuery => ({
  commodityId: 'GOLD',
  type: 'price',
  startDate: '2023-03-15',
  endDate: '2024-03-15',
  firstYear: 2019,
  lastYear: 2024,
  ...over,
});

describe('createReadMemo', () => {
  it('answers every range as the store does, reading each bucket once', async () => {
    const store = fakeReader();
    const direct = fakeReader();
    const { reader } = createReadMemo(store, { maxBuckets: 100, ttlMs: 60_000 });
    const monthly = (date: string) => `${date.slice(0, 7)}-01`;
    const queries = [
      query(),
      query({ startDate: '2019-01-01', endDate: '2024-12-31' }),
      query({ startDate: '2022-07-01', endDate: '2022-07-31', predecessorPeriod: monthly }),
      query({ startDate: '2023-01-02', endDate: '2023-01-31', predecessorPeriod: (d) => d }),
      query({ startDate: '0001-01-01', endDate: '9999-12-31' }),
      query({ commodityId: 'SILVER' }),
    ];
    for (const q of queries) expect(await reader.seriesRange(q)).toEqual(await direct.seriesRange(q));
    const reads = store.reads;
    for (const q of queries) expect(await reader.seriesRange(q)).toEqual(await direct.seriesRange(q));
    expect(store.reads).toBe(reads);
    // six years of GOLD (2019-2024, 2021 and 2022 included) and SILVER's missing 2023 and 2024
    expect(reads).toBe(8);
  });

  it('sends point-in-time views to the store every time', async () => {
    const store = fakeReader();
    const { reader } = createReadMemo(store, { maxBuckets: 100, ttlMs: 60_000 });
    const asOf = query({ view: { asOf: '2024-01-01T00:00:00.000Z', firstRelease: false, revisions: false } });
    await reader.seriesRange(asOf);
    await reader.seriesRange(asOf);
    expect(store.reads).toBe(4);
  });

  it('keeps a bucket with its first versions dated by the estimate, once per bucket and estimate', async () => {
    // GOLD's points loaded at once, stamped at the load (estimated), the last day revised later
    const load = { p: '2025-06-01T00:00:00.000Z', f: '2025-06-01T00:00:00.000Z', e: true as const };
    const revision = { ...load, p: '2025-07-01T00:00:00.000Z', f: '2025-07-01T00:00:00.000Z' };
    const store = fakeReader();
    const stamped = (year: number) => {
      const b = buckets.get(year)!;
      const releases = [
        { ...load, lo: b.points[0]!.d, hi: b.points.at(-1)!.d },
        { ...revision, lo: b.points.at(-1)!.d, hi: b.points.at(-1)!.d },
      ];
      const current = b.points.map((p, i, all) => ({ ...p, r: i === all.length - 1 ? 1 : 0 }));
      return { current, releases };
    };
    store.seriesRange = (q) =>
      seriesRangeFromBuckets(q, (ys) =>
        Promise.resolve(
          ys.map((y) => {
            store.reads += 1;
            return buckets.has(y) ? { points: viewPoints(stamped(y), q.view) } : null;
          }),
        ),
      );
    const { reader } = createReadMemo(store, { maxBuckets: 100, ttlMs: 60_000 });
    // the calendar's estimate: the day after the observation
    const estimate = (d: string) => new Date(Date.parse(d) + 86_400_000).toISOString();
    // business days: the year's last is Friday the 29th
    const q = query({ startDate: '2023-12-27', endDate: '2023-12-31', firstYear: 2023, lastYear: 2023 });
    const dated = await reader.seriesRange({ ...q, view: { firstReleaseEstimate: estimate } });
    expect(dated.points.map((p) => [p.d, p.release?.p])).toEqual([
      ['2023-12-27', '2023-12-28T00:00:00.000Z'],
      ['2023-12-28', '2023-12-29T00:00:00.000Z'],
      // the revision keeps its own time
      ['2023-12-29', revision.p],
    ]);
    expect(await reader.seriesRange({ ...q, view: { firstReleaseEstimate: estimate } })).toEqual(dated);
    expect(store.reads).toBe(1);
    // without the estimate: the stored stamps, kept apart
    const stored = await reader.seriesRange(q);
    expect(stored.points.map((p) => p.release?.p)).toEqual([load.p, load.p, revision.p]);
    expect(store.reads).toBe(2);
    // the memo's answer is the store's
    expect(dated).toEqual(await store.seriesRange({ ...q, view: { firstReleaseEstimate: estimate } }));
  });

  it("drops a commodity's buckets and entry, and every list, on its data event; others stay", async () => {
    const store = fakeReader();
    const { reader, memo } = createReadMemo(store, { maxBuckets: 100, ttlMs: 60_000 });
    await reader.seriesRange(query());
    await reader.seriesRange(query({ commodityId: 'SILVER' }));
    await reader.catalogEntry('GOLD');
    await reader.catalogEntries({});
    expect({ reads: store.reads, catalog: store.catalogReads }).toEqual({ reads: 4, catalog: 2 });
    expect(memo.invalidate('GOLD')).toBe(4);
    await reader.seriesRange(query());
    await reader.seriesRange(query({ commodityId: 'SILVER' }));
    await reader.catalogEntry('GOLD');
    await reader.catalogEntries({});
    expect({ reads: store.reads, catalog: store.catalogReads }).toEqual({ reads: 6, catalog: 4 });
  });

  it("keeps the unlisted documents (the exchange rates' descriptors) until any series' data event", async () => {
    const store = fakeReader();
    const { reader, memo } = createReadMemo(store, { maxBuckets: 100, ttlMs: 60_000 });
    expect((await reader.unlistedEntries()).map((d) => d._id)).toEqual(['FX_EUR_USD']);
    await reader.unlistedEntries();
    expect(store.catalogReads).toBe(1);
    memo.invalidate('FX_EUR_USD');
    await reader.unlistedEntries();
    expect(store.catalogReads).toBe(2);
    memo.invalidate('GOLD');
    await reader.unlistedEntries();
    expect(store.catalogReads).toBe(3);
  });

  it('does not keep a read that was under way when its commodity was dropped, nor a failed one', async () => {
    const store = fakeReader();
    let release: () => void = () => undefined;
    const slow = {
      ...store,
      catalogEntry: (id: string) => new Promise<CatalogDoc | null>((r) => (release = () => r(catalogDoc(id)))),
    };
    const { reader, memo } = createReadMemo(slow, { maxBuckets: 100, ttlMs: 60_000 });
    const before = reader.catalogEntry('GOLD');
    memo.invalidate('GOLD');
    release();
    await before;
    expect(memo.size).toBe(0);

    let fail = true;
    const flaky = {
      ...store,
      catalogEntry: async (id: string) => (fail ? Promise.reject(new Error('down')) : catalogDoc(id)),
    };
    const second = createReadMemo(flaky, { maxBuckets: 100, ttlMs: 60_000 });
    await expect(second.reader.catalogEntry('GOLD')).rejects.toThrow('down');
    fail = false;
    await expect(second.reader.catalogEntry('GOLD')).resolves.toMatchObject({ id: 'GOLD' });
  });

  it('keeps the balance sheets read (per region and marketing year), counted with the buckets, dropped with their commodity', async () => {
    const inner = fakeReader();
    const { reader, memo } = createReadMemo(inner, { maxBuckets: 2, ttlMs: 60_000, nowMs: () => 0 });
    const us = { commodityId: 'CORN', region: 'united_states' };
    const first = await reader.supplyDemandSheets(us);
    expect(await reader.supplyDemandSheets(us)).toBe(first);
    await reader.supplyDemandSheets({ ...us, marketingYear: '2025/26' });
    expect(inner.sheetReads).toBe(2);
    // A third entry evicts the least recently read (the region's all).
    await reader.supplyDemandSheets({ ...us, region: 'world' });
    await reader.supplyDemandSheets(us);
    expect(inner.sheetReads).toBe(4);
    expect(memo.invalidate('CORN')).toBe(2);
    await reader.supplyDemandSheets({ ...us, region: 'world' });
    expect(inner.sheetReads).toBe(5);
  });

  it('keeps at most maxBuckets years, the least recently read going first, and nothing past its TTL', async () => {
    const store = fakeReader();
    let now = 0;
    const { reader, memo } = createReadMemo(store, { maxBuckets: 3, ttlMs: 1_000, nowMs: () => now });
    await reader.seriesRange(query({ startDate: '2019-01-01', endDate: '2024-12-31' }));
    expect(memo.size).toBe(3);
    const reads = store.reads;
    // 2022-2024 are kept: reading them again costs nothing
    await reader.seriesRange(query({ startDate: '2022-01-01', endDate: '2024-12-31' }));
    expect(store.reads).toBe(reads);
    now = 1_000;
    await reader.seriesRange(query({ startDate: '2022-01-01', endDate: '2024-12-31' }));
    expect(store.reads).toBe(reads + 3);
  });

  it("looks at the aliases before it answers, at most once a second, so a rebuild's swap is seen", async () => {
    const store = Object.assign(fakeReader(), { swapLooks: 0 });
    const followSwaps = () => {
      store.swapLooks += 1;
      return Promise.resolve();
    };
    let t = 0;
    const { reader } = createReadMemo({ ...store, followSwaps }, { maxBuckets: 100, ttlMs: 60_000, nowMs: () => t });
    await reader.catalogEntry('GOLD');
    expect(store.swapLooks).toBe(1);
    for (let i = 0; i < 50; i++) await reader.catalogEntry('GOLD'); // hits within the same second
    expect(store.swapLooks).toBe(1);
    t += 999;
    await reader.seriesRange(query());
    await reader.seriesRange(query());
    expect(store.swapLooks).toBe(1);
    t += 1;
    await reader.catalogEntry('GOLD');
    expect(store.swapLooks).toBe(2);
    expect(store.catalogReads).toBe(1);
  });

  it('answers from the new collection when looking at the aliases finds a swap', async () => {
    const store = fakeReader();
    let t = 0;
    let swapped = false;
    const wiring: { memo?: { clear(): void } } = {};
    const { reader, memo } = createReadMemo(
      {
        ...store,
        catalogEntry: async (id) => {
          const doc = await store.catalogEntry(id);
          return doc === null ? null : { ...doc, name: swapped ? 'after the swap' : 'before' };
        },
        // the store's onCollectionSwap drops the memo, as the query's main wires it
        followSwaps: () => {
          if (swapped) wiring.memo?.clear();
          return Promise.resolve();
        },
      },
      { maxBuckets: 100, ttlMs: 60_000, nowMs: () => t },
    );
    wiring.memo = memo;
    expect((await reader.catalogEntry('GOLD'))?.name).toBe('before');
    swapped = true;
    expect((await reader.catalogEntry('GOLD'))?.name).toBe('before'); // within the second: kept
    t += 1_000;
    expect((await reader.catalogEntry('GOLD'))?.name).toBe('after the swap');
  });
});
