import { API_PREFIX } from '@cds/contracts';
import { ServiceUnavailableError } from '@cds/http';
import type { QueryClient } from '../proxy/query-client.ts';

export interface CatalogCheck {
  /** The first of `ids` the catalog does not know, or undefined; a 503 error when the query service does not answer in time. */
  firstUnknown(ids: readonly string[], requestId: string): Promise<string | undefined>;
}

const PAGE = 100;
/** Pages read at most (10,000 commodities): a catalog answer claiming more is not trusted. */
const MAX_PAGES = 100;

/**
 * Checks `/events?commodities=` against the catalog through the query service (its list endpoint,
 * every page), within `timeoutMs` for the whole read. The known ids are kept `ttlMs` (a new
 * commodity is accepted at most that much later); concurrent checks share one read.
 */
export function createCatalogCheck(opts: {
  query: QueryClient;
  timeoutMs: number;
  ttlMs: number;
  nowMs: () => number;
}): CatalogCheck {
  let known: { ids: ReadonlySet<string>; at: number } | undefined;
  let reading: Promise<ReadonlySet<string>> | undefined;

  const readPage = async (page: number, requestId: string, signal: AbortSignal) => {
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
    return { ids: body.data.map((c) => c.id), pages: body.meta.total_pages };
  };

  const readAll = async (requestId: string): Promise<ReadonlySet<string>> => {
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
      const first = await readPage(1, requestId, controller.signal);
      for (const id of first.ids) ids.add(id);
      for (let page = 2; page <= Math.min(first.pages, MAX_PAGES); page += 1) {
        for (const id of (await readPage(page, requestId, controller.signal)).ids) ids.add(id);
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
    async firstUnknown(ids, requestId) {
      const now = opts.nowMs();
      if (known === undefined || now - known.at > opts.ttlMs) {
        reading ??= readAll(requestId).finally(() => (reading = undefined));
        try {
          known = { ids: await reading, at: now };
        } catch (err) {
          throw new ServiceUnavailableError(
            'The commodity catalog could not be read to check `commodities`; retry shortly.',
            err,
          );
        }
      }
      const set = known.ids;
      return ids.find((id) => !set.has(id));
    },
  };
}
