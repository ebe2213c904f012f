import {
  contentDisposition,
  csvFileName,
  listCsvColumns,
  type ListCommoditiesQuery,
  ROUTES_BY_NAME,
} from '@cds/contracts';
import { cacheKey, cacheRule, LIST_TAG, type ResponseBody } from '@cds/response-cache';
import { catalogFreshness, toSummary } from '../catalog/index.ts';
import { paginationMeta, routeSchema, type QueryApp, type RouteContext } from '../http/route-context.ts';

/**
 * GET /commodities: listed commodities sorted by id (sort_order), filtered by category and by a
 * case-insensitive literal substring of name or symbol, paged; pages past the last are empty.
 */
export function registerListRoute(app: QueryApp, ctx: RouteContext): void {
  // An empty search is no filter (the contract allows it), so it shares the unfiltered answer.
  const searchOf = (q: ListCommoditiesQuery) => (q.search === '' ? undefined : q.search);
  app.get(
    ROUTES_BY_NAME.list.path,
    {
      schema: routeSchema(ROUTES_BY_NAME.list),
      config: {
        cache: cacheRule(
          ({ query: q }: { query: ListCommoditiesQuery }) => ({
            key: cacheKey('list', {
              category: q.category,
              search: searchOf(q),
              sort_order: q.sort_order,
              page: q.page,
              per_page: q.per_page,
            }),
            tags: [LIST_TAG],
          }),
          {
            csv: ({ query: q }) => ({
              columns: listCsvColumns(),
              contentDisposition: contentDisposition(
                csvFileName({ endpoint: 'list', category: q.category, page: q.page }),
              ),
            }),
          },
        ),
      },
    },
    async ({ query: q }): Promise<ResponseBody> => {
      const page = await ctx.repository.listCommodities({
        category: q.category,
        search: searchOf(q),
        sortOrder: q.sort_order,
        skip: (q.page - 1) * q.per_page,
        limit: q.per_page,
      });
      return {
        data: page.items.map(toSummary),
        meta: paginationMeta(q.page, q.per_page, page.total),
        freshness: catalogFreshness(page.items),
      };
    },
  );
}
