import { byEiaSeries } from './lookup.ts';
import { eiaOf, type EiaSeriesMapping } from './mapping.ts';
import type { SourceItem } from '../types.ts';
import { createHttpClient, type SourceFetchOptions } from '../common/http.ts';
import { createParseStats } from '../common/stats.ts';
import { parseEiaApiJson } from './parse-api.ts';

export interface EiaFetchOptions extends SourceFetchOptions {
  /** API key (from config: EIA_API_KEY). */
  apiKey: string;
  /** Series ids (default: every EIA series in the catalog). */
  series?: readonly string[];
  /** Period range, YYYY-MM-DD (YYYY-MM for monthly series). */
  start?: string;
  end?: string;
  /** Rows per request; the API returns at most 5,000. */
  pageSize?: number;
}

export function eiaQueryUrl(
  o: Omit<EiaFetchOptions, 'catalog'>,
  s: EiaSeriesMapping,
  offset: number,
  length: number,
): URL {
  const url = new URL(`/v2/${s.route}/data/`, o.baseUrl ?? 'https://api.eia.gov');
  const p = url.searchParams;
  p.set('api_key', o.apiKey);
  p.set('frequency', s.frequency);
  p.set('data[0]', 'value');
  p.set('facets[series][]', s.id);
  const cut = (d: string) => (s.frequency === 'monthly' ? d.slice(0, 7) : d);
  if (o.start) p.set('start', cut(o.start));
  if (o.end) p.set('end', cut(o.end));
  p.set('sort[0][column]', 'period');
  p.set('sort[0][direction]', 'asc');
  p.set('offset', String(offset));
  p.set('length', String(length));
  return url;
}

/**
 * Fetches EIA API v2 series page by page (offset/length, sorted by period) and streams each
 * page through parseEiaApiJson. The key goes in the api_key parameter and is masked in errors.
 */
export async function* fetchEiaSeries(options: EiaFetchOptions): AsyncGenerator<SourceItem> {
  const { catalog } = options;
  const ids = options.series ?? catalog.commodities.flatMap((c) => (eiaOf(c)?.series ?? []).map((s) => s.id));
  const pageSize = Math.min(options.pageSize ?? 5000, 5000);
  const stats = options.stats ?? createParseStats();
  const client = createHttpClient({ minIntervalMs: 1000, ...options, source: 'eia' });
  for (const id of ids) {
    const mapping = byEiaSeries(catalog, id);
    if (!mapping) throw new Error(`eia: series ${id} is not in the catalog`);
    for (let offset = 0; ; offset += pageSize) {
      const body = await client.getText(eiaQueryUrl(options, mapping.series, offset, pageSize));
      const before = stats.rows;
      yield* parseEiaApiJson([body], { file: `eia:${mapping.series.id}`, catalog, stats, offset });
      if (stats.rows - before < pageSize) break;
    }
  }
}
