import { CATALOG } from '../../catalog/index.ts';
import type { SourceItem } from '../types.ts';
import { createHttpClient, SourceFetchError, type SourceFetchOptions } from '../common/http.ts';
import { createParseStats } from '../common/stats.ts';
import type { NassFilter } from './map-row.ts';
import { parseNassJson } from './parse.ts';

export interface NassFetchOptions extends SourceFetchOptions {
  /** Quick Stats API key (from config: NASS_API_KEY). */
  apiKey: string;
  /** Catalog commodity ids (default: every commodity with a NASS mapping). */
  commodities?: readonly string[];
  /** First and last year (year__GE / year__LE). */
  fromYear?: number;
  toYear?: number;
  filter?: NassFilter;
}

export function nassQueryUrl(o: NassFetchOptions, shortDesc: string): URL {
  const url = new URL('/api/api_GET/', o.baseUrl ?? 'https://quickstats.nass.usda.gov');
  const p = url.searchParams;
  const f = o.filter ?? {};
  p.set('key', o.apiKey);
  p.set('short_desc', shortDesc);
  p.set('agg_level_desc', f.level ?? 'NATIONAL');
  if (f.state) p.set(f.state.length === 2 ? 'state_alpha' : 'state_name', f.state.toUpperCase());
  if (f.county) p.set('county_name', f.county.toUpperCase());
  for (const program of f.programs ?? ['SURVEY']) p.append('source_desc', program);
  if (o.fromYear !== undefined) p.set('year__GE', String(o.fromYear));
  if (o.toYear !== undefined) p.set('year__LE', String(o.toYear));
  p.set('format', 'JSON');
  return url;
}

/**
 * Fetches Quick Stats (api_GET) one data item at a time, so each request stays far below the
 * API's 50,000-row cap; the API has no paging. "No data" answers (HTTP 400 naming no data)
 * count as an empty result. Each body streams through parseNassJson.
 */
export async function* fetchNassQuickStats(options: NassFetchOptions): AsyncGenerator<SourceItem> {
  const catalog = options.catalog ?? CATALOG;
  const ids = options.commodities ?? catalog.commodities.filter((c) => c.sources.nass).map((c) => c.entry.id);
  const stats = options.stats ?? createParseStats();
  const client = createHttpClient({ minIntervalMs: 1000, ...options, source: 'nass' });
  for (const id of ids) {
    const nass = catalog.byId(id)?.sources.nass;
    if (!nass) throw new Error(`nass: commodity ${id} has no NASS mapping`);
    for (const item of nass.items) {
      let body: string;
      try {
        body = await client.getText(nassQueryUrl(options, item.short_desc));
      } catch (err) {
        if (err instanceof SourceFetchError && err.status === 400 && /no data/i.test(err.message)) continue;
        throw err;
      }
      yield* parseNassJson([body], {
        file: `nass:${item.short_desc}`,
        catalog,
        stats,
        ...(options.filter ? { filter: options.filter } : {}),
      });
    }
  }
}
