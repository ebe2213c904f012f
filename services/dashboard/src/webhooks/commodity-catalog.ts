import { CommodityListResponse, MAX_PER_PAGE, ROUTE_PATHS } from '@cds/contracts';

/** Which commodity ids exist, for the webhook form's check. */
export interface CommodityCatalog {
  /** The ids of `ids` the catalog does not know, or 'unavailable' when it cannot be read now (or is not configured). */
  unknown(ids: readonly string[]): Promise<string[] | 'unavailable'>;
}

/** No catalog configured: every check answers 'unavailable' (the form then checks the shape only and says so). */
export const noCatalog: CommodityCatalog = { unknown: () => Promise.resolve('unavailable') };

/** Pages read at most (100 commodities each): the catalog holds tens. */
const MAX_PAGES = 20;

/**
 * The catalog as the query service lists it (`GET /api/v1/commodities`, cluster-internal, no key):
 * every page read with one deadline, the ids kept for `ttlMs`. A failed read is not cached, so the
 * next form tries again.
 */
export function createCommodityCatalog(opts: {
  queryUrl: string;
  timeoutMs: number;
  ttlMs: number;
  clock: () => number;
  onError?: (err: unknown) => void;
}): CommodityCatalog {
  const base = opts.queryUrl.replace(/\/+$/, '');
  let cached: { ids: Set<string>; at: number } | undefined;
  let inflight: Promise<Set<string>> | undefined;

  const readAll = async (): Promise<Set<string>> => {
    const signal = AbortSignal.timeout(opts.timeoutMs);
    const ids = new Set<string>();
    for (let page = 1; page <= MAX_PAGES; page += 1) {
      const res = await fetch(`${base}${ROUTE_PATHS.list}?per_page=${MAX_PER_PAGE}&page=${page}`, {
        headers: { accept: 'application/json' },
        signal,
      });
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`catalog answered ${res.status}`);
      }
      const body = CommodityListResponse.parse(await res.json());
      for (const c of body.data) ids.add(c.id);
      if (page >= body.meta.total_pages) return ids;
    }
    return ids;
  };

  const current = async (): Promise<Set<string> | undefined> => {
    if (cached !== undefined && opts.clock() - cached.at < opts.ttlMs) return cached.ids;
    inflight ??= readAll().finally(() => (inflight = undefined));
    try {
      const ids = await inflight;
      cached = { ids, at: opts.clock() };
      return ids;
    } catch (err) {
      opts.onError?.(err);
      return undefined;
    }
  };

  return {
    async unknown(ids) {
      const known = await current();
      if (known === undefined) return 'unavailable';
      return ids.filter((id) => !known.has(id));
    },
  };
}
