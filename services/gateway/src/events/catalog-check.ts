import { API_PREFIX } from '@cds/contracts';
import { createCatalogIds, ServiceUnavailableError } from '@cds/http';
import type { QueryClient } from '../proxy/query-client.ts';

export interface CatalogCheck {
  /** The first of `ids` the catalog does not know, or undefined; a 503 error when the query service does not answer in time. */
  firstUnknown(ids: readonly string[], requestId: string): Promise<string | undefined>;
}

const PAGE = 100;

/**
 * Checks `/events?commodities=` against the catalog through the query service (its list endpoint,
 * every page, `createCatalogIds` of libs/http: one deadline for the whole read, the ids kept
 * `ttlMs`, concurrent checks sharing one read).
 */
export function createCatalogCheck(opts: {
  query: QueryClient;
  timeoutMs: number;
  ttlMs: number;
  nowMs: () => number;
}): CatalogCheck {
  let requestId = '';
  const catalog = createCatalogIds({
    timeoutMs: opts.timeoutMs,
    ttlMs: opts.ttlMs,
    nowMs: opts.nowMs,
    readPage: async (page, signal) => {
      const res = await opts.query.get(`${API_PREFIX}/commodities?per_page=${PAGE}&page=${page}`, requestId);
      const chunks: Buffer[] = [];
      const abort = () => res.body.destroy();
      signal.addEventListener('abort', abort, { once: true });
      try {
        for await (const chunk of res.body) chunks.push(chunk as Buffer);
      } finally {
        signal.removeEventListener('abort', abort);
      }
      if (res.statusCode !== 200) throw new Error(`catalog list answered ${res.statusCode}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        data: { id: string }[];
        meta: { total_pages: number };
      };
      return { ids: body.data.map((c) => c.id), totalPages: body.meta.total_pages };
    },
  });

  return {
    async firstUnknown(ids, id) {
      // The read (when one is needed) carries the id of the request that started it.
      requestId = id;
      let known: ReadonlySet<string>;
      try {
        known = await catalog.current();
      } catch (err) {
        throw new ServiceUnavailableError(
          'The commodity catalog could not be read to check `commodities`; retry shortly.',
          err,
        );
      }
      return ids.find((c) => !known.has(c));
    },
  };
}
