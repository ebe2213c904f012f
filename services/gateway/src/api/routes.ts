import { API_PREFIX } from '@cds/contracts';
import type { RouteName } from '../plans/plan-rules.ts';

/** A keyed API route: its name (for the plan rules), its URL pattern, and the query service's path for a slug. */
export interface ApiRoute {
  name: RouteName;
  url: string;
  upstream(slug: string): string;
}

export const API_ROUTES: readonly ApiRoute[] = [
  { name: 'list', url: `${API_PREFIX}/commodities`, upstream: () => `${API_PREFIX}/commodities` },
  { name: 'detail', url: `${API_PREFIX}/commodities/:slug`, upstream: (s) => `${API_PREFIX}/commodities/${s}` },
  {
    name: 'series',
    url: `${API_PREFIX}/commodities/:slug/series`,
    upstream: (s) => `${API_PREFIX}/commodities/${s}/series`,
  },
  { name: 'cot', url: `${API_PREFIX}/commodities/:slug/cot`, upstream: (s) => `${API_PREFIX}/commodities/${s}/cot` },
];
