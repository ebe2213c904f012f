/** One page of the catalog as the query service's list endpoint gives it: its ids and the page count. */
export interface CatalogPage {
  ids: string[];
  totalPages: number;
}

/** The ids of the commodity catalog, read through the query service and kept for a while. */
export interface CatalogIds {
  /** The known ids; rejects when the catalog cannot be read within the deadline (nothing is cached then). */
  current(): Promise<ReadonlySet<string>>;
}

/** Pages read at most (100 commodities each): a catalog answer claiming more is not trusted. */
export const MAX_CATALOG_PAGES = 100;

/**
 * The catalog's ids for a parameter or form check (the gateway's `/events?commodities=`, the
 * dashboard's webhook form): every page through `readPage` (the caller's HTTP client), all within
 * `timeoutMs` (the signal aborts the page in flight), kept `ttlMs` so a new commodity is accepted at
 * most that much later; concurrent calls share one read, and a failed read is not cached.
 */
export function createCatalogIds(opts: {
  readPage: (page: number, signal: AbortSignal) => Promise<CatalogPage>;
  timeoutMs: number;
  ttlMs: number;
  nowMs: () => number;
}): CatalogIds {
  let known: { ids: ReadonlySet<string>; at: number } | undefined;
  let reading: Promise<ReadonlySet<string>> | undefined;

  const readAll = async (): Promise<ReadonlySet<string>> => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`no catalog answer within ${opts.timeoutMs} ms`));
      }, opts.timeoutMs);
    });
    const read = async () => {
      const ids = new Set<string>();
      let pages = 1;
      for (let page = 1; page <= Math.min(pages, MAX_CATALOG_PAGES); page += 1) {
        const got = await opts.readPage(page, controller.signal);
        for (const id of got.ids) ids.add(id);
        pages = got.totalPages;
      }
      return ids;
    };
    try {
      return await Promise.race([read(), deadline]);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async current() {
      const now = opts.nowMs();
      if (known !== undefined && now - known.at < opts.ttlMs) return known.ids;
      reading ??= readAll().finally(() => (reading = undefined));
      const ids = await reading;
      known = { ids, at: now };
      return ids;
    },
  };
}
