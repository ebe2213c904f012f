import { CotQuery, ListCommoditiesQuery, SeriesQuery } from './params.ts';

/** Where the public API lives on the gateway (and the query service): every path starts with it. */
export const API_PREFIX = '/api/v1';

/** The four data endpoints, and the bulk files' list and download. */
export const ROUTE_NAMES = ['list', 'detail', 'series', 'cot', 'bulk', 'bulkFile'] as const;
export type RouteName = (typeof ROUTE_NAMES)[number];

/** Their paths as fastify routes (`:slug`), by name. */
export const ROUTE_PATHS = {
  list: `${API_PREFIX}/commodities`,
  detail: `${API_PREFIX}/commodities/:slug`,
  series: `${API_PREFIX}/commodities/:slug/series`,
  cot: `${API_PREFIX}/commodities/:slug/cot`,
  bulk: `${API_PREFIX}/bulk`,
  bulkFile: `${API_PREFIX}/bulk/:file`,
} as const satisfies Record<RouteName, string>;

/** The query parameters each endpoint accepts besides ALWAYS_ALLOWED_QUERY_PARAMS, by name. */
export const QUERY_PARAMS_BY_ROUTE = {
  list: Object.keys(ListCommoditiesQuery.shape),
  detail: [],
  series: Object.keys(SeriesQuery.shape),
  cot: Object.keys(CotQuery.shape),
  bulk: [],
  bulkFile: [],
} as const satisfies Record<RouteName, readonly string[]>;
