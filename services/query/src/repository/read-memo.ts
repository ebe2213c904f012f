import { ALIAS_CACHE_MS, isCurrentView, type CatalogDoc, type SupplyDemandBucketDoc } from '@cds/read-models';
import {
  seriesRangeFromBuckets,
  type ReadModelReader,
  type SeriesRangeQuery,
  type ViewedSeriesBucket,
} from '@cds/store';
import { keepYear } from '../series/kept-render.ts';

export interface ReadMemoOptions {
  /**
   * Most series years (one bucket each) and balance-sheet reads (a region's sheets, or one marketing
   * year's) kept, together; the least recently read go first.
   */
  maxBuckets: number;
  /** Safety-net lifetime of what is kept; the projector's announcements drop it sooner. */
  ttlMs: number;
  nowMs?: () => number;
}

/** What the memo keeps of a commodity is dropped by its data events (main.ts: subscribeInvalidations). */
export interface ReadMemo {
  /** Drops a commodity's catalog entry and series years, and every catalog list; returns how many went. */
  invalidate(commodityId: string): number;
  clear(): void;
  readonly size: number;
}

/** A number per first-release estimate (one function per calendar rule: catalog/first-release.ts), for the memo's keys. */
const estimateIds = new WeakMap<(date: string) => string | undefined, number>();
let estimates = 0;
function estimateId(estimate: (date: string) => string | undefined): number {
  let id = estimateIds.get(estimate);
  if (id === undefined) estimateIds.set(estimate, (id = ++estimates));
  return id;
}

/** The tag of the catalog lists, which any commodity's change may alter. */
const LISTS = '\u0000lists';

interface Entry {
  value: Promise<unknown>;
  tag: string;
  expiresAt: number;
}

/**
 * A read-through memo in front of the read models, for what every request reads again: the catalog
 * entries and the series buckets in their current view, each year once. A response cache miss (a
 * parameter set not seen since the data changed: another range, frequency or transform) then costs
 * the computation and serialization alone, not a database round trip per bucket and one for the
 * catalog (FerretDB: about 130 µs of its CPU and 70 µs of the driver's per read, docs/reliability.md).
 * The balance sheets (supply and demand) are kept whole, as the store gives them, every view being
 * computed from them.
 * The series range is assembled from the kept years by the store's own rule (seriesRangeFromBuckets),
 * so the answer is the one the store gives; point-in-time views (as_of, first_release, revisions) and
 * COT pages go to the store. Kept values are shared by requests and never changed by them. Dropped
 * per commodity by the projector's announcements (and whole on a reconnect or a rebuild's swap,
 * like the response cache: the memo looks at the aliases at most every ALIAS_CACHE_MS, so a swap
 * is seen as soon as a read through the store would see it); a read that was under way when its commodity
 * was dropped is not kept.
 */
export function createReadMemo(
  inner: ReadModelReader,
  opts: ReadMemoOptions,
): { reader: ReadModelReader; memo: ReadMemo } {
  const now = opts.nowMs ?? Date.now;
  const entries = new Map<string, Entry>();
  const byTag = new Map<string, Set<string>>();
  let buckets = 0;
  // A rebuild swaps a read model's collection; the store notices on a read (onCollectionSwap, which
  // drops the memo), and kept values mean few reads: the memo looks at the aliases itself, at most
  // every ALIAS_CACHE_MS, before it answers (as a read through the store would).
  let swapsLookedAt = Number.NEGATIVE_INFINITY;
  const swapsLooked = (at: number): Promise<void> | undefined => {
    if (inner.followSwaps === undefined || at - swapsLookedAt < ALIAS_CACHE_MS) return undefined;
    swapsLookedAt = at;
    return inner.followSwaps();
  };

  const remove = (key: string, entry: Entry) => {
    entries.delete(key);
    byTag.get(entry.tag)?.delete(key);
    if (key.startsWith('s')) buckets -= 1;
  };

  function kept<T>(key: string, tag: string, read: () => Promise<T>): Promise<T> {
    const looking = swapsLooked(now());
    return looking === undefined ? keptNow(key, tag, read) : looking.then(() => keptNow(key, tag, read));
  }

  function keptNow<T>(key: string, tag: string, read: () => Promise<T>): Promise<T> {
    const at = now();
    const found = entries.get(key);
    if (found !== undefined && found.expiresAt > at) {
      // Most recently used last: the eviction order.
      entries.delete(key);
      entries.set(key, found);
      return found.value as Promise<T>;
    }
    if (found !== undefined) remove(key, found);
    const entry: Entry = { value: read(), tag, expiresAt: at + opts.ttlMs };
    entries.set(key, entry);
    let keys = byTag.get(tag);
    if (keys === undefined) byTag.set(tag, (keys = new Set()));
    keys.add(key);
    if (key.startsWith('s')) {
      buckets += 1;
      for (const [k, e] of entries) {
        if (buckets <= opts.maxBuckets) break;
        if (k.startsWith('s')) remove(k, e);
      }
    }
    // A failed read is not kept (the next request reads again).
    entry.value.catch(() => {
      if (entries.get(key) === entry) remove(key, entry);
    });
    return entry.value as Promise<T>;
  }

  /**
   * One year of a series in the current view: the store's range over that year alone reads its
   * bucket. Kept with its first versions dated by the view's first-release estimate (one per
   * calendar rule, so the key names which), computed once per bucket, not per request.
   */
  const year = (q: SeriesRangeQuery, y: number): Promise<ViewedSeriesBucket> => {
    const yyyy = String(y).padStart(4, '0');
    const estimate = q.view?.firstReleaseEstimate;
    const by = estimate === undefined ? '' : `\u0000${estimateId(estimate)}`;
    return kept(`s${q.commodityId}\u0000${q.type}\u0000${yyyy}${by}`, q.commodityId, async () => {
      const range = await inner.seriesRange({
        commodityId: q.commodityId,
        type: q.type,
        startDate: `${yyyy}-01-01`,
        endDate: `${yyyy}-12-31`,
        firstYear: y,
        lastYear: y,
        ...(estimate === undefined ? {} : { view: { firstReleaseEstimate: estimate } }),
      });
      // Its points' texts go in one buffer of the year when first served (series/kept-render.ts).
      keepYear(range.points);
      return { points: range.points, unit: range.unit };
    });
  };

  const dropTag = (tag: string): number => {
    const keys = byTag.get(tag);
    if (keys === undefined) return 0;
    let n = 0;
    for (const key of [...keys]) {
      const e = entries.get(key);
      if (e !== undefined) {
        remove(key, e);
        n += 1;
      }
    }
    byTag.delete(tag);
    return n;
  };

  const reader: ReadModelReader = {
    ...inner,
    catalogEntries: (q = {}) => kept<CatalogDoc[]>(`l${q.category ?? ''}`, LISTS, () => inner.catalogEntries(q)),
    catalogEntry: (id) => kept<CatalogDoc | null>(`c${id}`, id, () => inner.catalogEntry(id)),
    // The exchange rates' descriptors: any series' announcement may change them, as a list's.
    unlistedEntries: () => kept<CatalogDoc[]>('u', LISTS, () => inner.unlistedEntries()),
    // `s\u0000` never begins a series key (commodity ids are not empty): counted with the buckets.
    supplyDemandSheets: (q) =>
      kept<SupplyDemandBucketDoc[]>(
        `s\u0000sd\u0000${q.commodityId}\u0000${q.region}\u0000${q.marketingYear ?? ''}`,
        q.commodityId,
        () => inner.supplyDemandSheets(q),
      ),
    seriesRange: (q) =>
      isCurrentView(q.view)
        ? seriesRangeFromBuckets(q, (ys) => Promise.all(ys.map((y) => year(q, y))))
        : inner.seriesRange(q),
  };
  const memo: ReadMemo = {
    invalidate: (commodityId) => dropTag(commodityId) + dropTag(LISTS),
    clear: () => {
      entries.clear();
      byTag.clear();
      buckets = 0;
    },
    get size() {
      return entries.size;
    },
  };
  return { reader, memo };
}
