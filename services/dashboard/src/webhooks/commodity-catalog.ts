import { CommodityListResponse, MAX_PER_PAGE, ROUTE_PATHS } from '@cds/contracts';
import { createCatalogIds } from '@cds/http';

/** Which commodity ids exist, for the webhook form's check. */
export interface CommodityCatalog {
  /** The ids of `ids` the catalog does not know, or 'unavailable' when it cannot be read now (or is not configured). */
  unknown(ids: readonly string[]): Promise<string[] | 'unavailable'>;
}

/** No catalog configured: every check answers 'unavailable' (the form then checks the shape only and says so). */
export const noCatalog: CommodityCatalog = { unknown: () => Promise.resolve('unavailable') };

/**
 * The catalog as the query service lists it (`GET /api/v1/commodities`, cluster-internal, no key),
 * through `createCatalogIds` of libs/http: every page read with one deadline, the ids kept for
 * `ttlMs`. A failed read is not cached, so the next form tries again.
 */
export function createCommodityCatalog(opts: {
  queryUrl: string;
  timeoutMs: number;
  ttlMs: number;
  clock: () => number;
  onError?: (err: unknown) => void;
}): CommodityCatalog {
  const base = opts.queryUrl.replace(/\/+$/, '');
  const catalog = createCatalogIds({
    timeoutMs: opts.timeoutMs,
    ttlMs: opts.ttlMs,
    nowMs: opts.clock,
    readPage: async (page, signal) => {
      const res = await fetch(`${base}${ROUTE_PATHS.list}?per_page=${MAX_PER_PAGE}&page=${page}`, {
        headers: { accept: 'application/json' },
        signal,
      });
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`catalog answered ${res.status}`);
      }
      const body = CommodityListResponse.parse(await res.json());
      return { ids: body.data.map((c) => c.id), totalPages: body.meta.total_pages };
    },
  });

  return {
    async unknown(ids) {
      let known: ReadonlySet<string>;
      try {
        known = await catalog.current();
      } catch (err) {
        opts.onError?.(err);
        return 'unavailable';
      }
      return ids.filter((id) => !known.has(id));
    },
  };
}
