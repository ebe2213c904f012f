import { ListCommoditiesQuery, type CommoditySummary } from '@cds/contracts';
import type { CatalogDoc } from '@cds/read-models';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toCachedBody } from '@cds/response-cache';
import { LIST_TAG } from '@cds/response-cache';
import { cacheKey, paginationMeta, parseQuery, sendBody, type RouteContext } from '../http/route-context.ts';

/** The summary fields of a catalog document, in the contract's order. */
export function toSummary(doc: CatalogDoc): CommoditySummary {
  return {
    id: doc.id,
    name: doc.name,
    ...(doc.symbol === undefined ? {} : { symbol: doc.symbol }),
    category: doc.category,
    ...(doc.exchange === undefined ? {} : { exchange: doc.exchange }),
    ...(doc.unit === undefined ? {} : { unit: doc.unit }),
  };
}

/**
 * GET /commodities: listed commodities sorted by id (sort_order), filtered by category and by a
 * case-insensitive literal substring of name or symbol, paged; pages past the last are empty.
 */
export function createListCommoditiesHandler(ctx: RouteContext) {
  return (request: FastifyRequest, reply: FastifyReply): Promise<void> | void => {
    const day = ctx.today();
    const hit = ctx.cache.lookupAlias(request.url, day);
    if (hit !== undefined) return sendBody(reply, hit);
    const q = parseQuery(ListCommoditiesQuery, request.query);
    // An empty search is no filter (the contract allows it), so it shares the unfiltered answer.
    const search = q.search === '' ? undefined : q.search;
    const key = cacheKey('list', {
      category: q.category,
      search,
      sort_order: q.sort_order,
      page: q.page,
      per_page: q.per_page,
    });
    return ctx.cache
      .getOrCompute(key, { tags: [LIST_TAG], day, alias: request.url }, async () => {
        const page = await ctx.repository.listCommodities({
          category: q.category,
          search,
          sortOrder: q.sort_order,
          skip: (q.page - 1) * q.per_page,
          limit: q.per_page,
        });
        return toCachedBody({ data: page.items.map(toSummary), meta: paginationMeta(q.page, q.per_page, page.total) });
      })
      .then((body) => sendBody(reply, body));
  };
}
