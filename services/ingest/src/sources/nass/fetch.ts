import { nassOf, type NassItemMapping } from './mapping.ts';
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

/**
 * The api_GET query of one data item. A price item is asked with `freq_desc=MONTHLY`: Quick Stats
 * answers a PRICE RECEIVED item with its monthly prices and its MARKETING YEAR / YEAR averages,
 * and only the months are mapped (about 12 records a year, far below the 50,000-record cap).
 */
export function nassQueryUrl(
  o: Omit<NassFetchOptions, 'catalog'>,
  shortDesc: string,
  item?: Pick<NassItemMapping, 'type'>,
): URL {
  const url = new URL('/api/api_GET/', o.baseUrl ?? 'https://quickstats.nass.usda.gov');
  const p = url.searchParams;
  const f = o.filter ?? {};
  p.set('key', o.apiKey);
  p.set('short_desc', shortDesc);
  if (item?.type === 'price') p.set('freq_desc', 'MONTHLY');
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
  const { catalog } = options;
  const ids = options.commodities ?? catalog.commodities.filter((c) => nassOf(c)).map((c) => c.entry.id);
  const stats = options.stats ?? createParseStats();
  const client = createHttpClient({ minIntervalMs: 1000, ...options, source: 'nass' });
  for (const id of ids) {
    const def = catalog.byId(id);
    const nass = def && nassOf(def);
    if (!nass) throw new Error(`nass: commodity ${id} has no NASS mapping`);
    for (const item of nass.items) {
      let body: string;
      try {
        body = await client.getText(nassQueryUrl(options, item.short_desc, item));
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
