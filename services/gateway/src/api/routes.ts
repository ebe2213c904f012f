import { ROUTE_NAMES, ROUTE_PATHS, type RouteName } from '@cds/contracts';

/** A keyed API route: its name (for the plan rules), its URL pattern, and the query service's path for a slug. */
export interface ApiRoute {
  name: RouteName;
  url: string;
  upstream(slug: string): string;
}

/** The query service serves the same paths: the slug goes where the pattern has `:slug`. */
function upstreamOf(url: string): (slug: string) => string {
  const at = url.indexOf(':slug');
  if (at < 0) return () => url;
  const before = url.slice(0, at);
  const after = url.slice(at + ':slug'.length);
  return (slug) => before + slug + after;
}

/** The keyed routes, from the contract's names and paths (libs/contracts routes.ts). */
export const API_ROUTES: readonly ApiRoute[] = ROUTE_NAMES.map((name) => ({
  name,
  url: ROUTE_PATHS[name],
  upstream: upstreamOf(ROUTE_PATHS[name]),
}));
