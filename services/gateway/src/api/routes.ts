import { ROUTE_NAMES, ROUTE_PATHS, type RouteName } from '@cds/contracts';

/** A keyed API route: its name (for the plan rules), its URL pattern, and the query service's path for a slug. */
export interface ApiRoute {
  name: RouteName;
  url: string;
  upstream(slug: string): string;
}

/** The query service serves the same paths: the slug (or file name) goes where the pattern has `:slug` (`:file`). */
function upstreamOf(url: string): (slug: string) => string {
  const param = /:(?:slug|file)/.exec(url);
  if (param === null) return () => url;
  const before = url.slice(0, param.index);
  const after = url.slice(param.index + param[0].length);
  return (slug) => before + slug + after;
}

/** The keyed routes, from the contract's names and paths (libs/contracts routes.ts). */
export const API_ROUTES: readonly ApiRoute[] = ROUTE_NAMES.map((name) => ({
  name,
  url: ROUTE_PATHS[name],
  upstream: upstreamOf(ROUTE_PATHS[name]),
}));
