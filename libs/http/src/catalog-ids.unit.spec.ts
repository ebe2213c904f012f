import { describe, expect, it } from 'vitest';
import { createCatalogIds, MAX_CATALOG_PAGES, type CatalogPage } from './catalog-ids.ts';

/** A catalog of `pages` pages of two ids each, counting the pages read. */
function pagedCatalog(pages: number) {
  const reads: number[] = [];
  const readPage = (page: number): Promise<CatalogPage> => {
    reads.push(page);
    return Promise.resolve({ ids: [`C${page}A`, `C${page}B`], totalPages: pages });
  };
  return { reads, readPage };
}

describe('createCatalogIds', () => {
  it('reads every page once, keeps the ids for ttlMs, then reads again', async () => {
    let now = 1_000;
    const { reads, readPage } = pagedCatalog(3);
    const catalog = createCatalogIds({ readPage, timeoutMs: 1_000, ttlMs: 500, nowMs: () => now });
    expect([...(await catalog.current())]).toEqual(['C1A', 'C1B', 'C2A', 'C2B', 'C3A', 'C3B']);
    expect(reads).toEqual([1, 2, 3]);
    now += 499;
    await catalog.current();
    expect(reads).toHaveLength(3);
    now += 1;
    await catalog.current();
    expect(reads).toEqual([1, 2, 3, 1, 2, 3]);
  });

  it('shares one read between concurrent calls', async () => {
    const { reads, readPage } = pagedCatalog(2);
    const catalog = createCatalogIds({ readPage, timeoutMs: 1_000, ttlMs: 0, nowMs: () => 0 });
    const [a, b] = await Promise.all([catalog.current(), catalog.current()]);
    expect(a).toBe(b);
    expect(reads).toEqual([1, 2]);
  });

  it('does not trust a page count past MAX_CATALOG_PAGES', async () => {
    const { reads, readPage } = pagedCatalog(1_000_000);
    const catalog = createCatalogIds({ readPage, timeoutMs: 5_000, ttlMs: 0, nowMs: () => 0 });
    expect((await catalog.current()).size).toBe(2 * MAX_CATALOG_PAGES);
    expect(reads).toHaveLength(MAX_CATALOG_PAGES);
  });

  it('rejects within the deadline (aborting the page in flight) and caches no failure', async () => {
    let aborted = false;
    let answer = false;
    const catalog = createCatalogIds({
      timeoutMs: 50,
      ttlMs: 60_000,
      nowMs: () => 0,
      readPage: (_page, signal) =>
        answer
          ? Promise.resolve({ ids: ['GOLD'], totalPages: 1 })
          : new Promise<CatalogPage>(() => signal.addEventListener('abort', () => (aborted = true))),
    });
    await expect(catalog.current()).rejects.toThrow(/no catalog answer within 50 ms/);
    expect(aborted).toBe(true);
    answer = true;
    expect([...(await catalog.current())]).toEqual(['GOLD']);
  });

  it('passes a failed page on, and tries again on the next call', async () => {
    let fail = true;
    const catalog = createCatalogIds({
      timeoutMs: 1_000,
      ttlMs: 60_000,
      nowMs: () => 0,
      readPage: () =>
        fail ? Promise.reject(new Error('catalog answered 503')) : Promise.resolve({ ids: ['CORN'], totalPages: 1 }),
    });
    await expect(catalog.current()).rejects.toThrow('catalog answered 503');
    fail = false;
    expect([...(await catalog.current())]).toEqual(['CORN']);
  });
});
