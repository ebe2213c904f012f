import { cotDataset, type CotDataset, type CotFormat, type CotScope } from '@cds/contracts';
import { cftcOf } from './mapping.ts';
import type { SourceItem } from '../types.ts';
import { createHttpClient, type SourceFetchOptions } from '../common/http.ts';
import { createParseStats } from '../common/stats.ts';
import { parseCftcSocrataJson } from './parse-socrata.ts';

/** Socrata dataset ids of the CFTC public reporting environment, by COT dataset. */
export const CFTC_DATASETS: Readonly<Record<CotDataset, string>> = {
  legacy: '6dca-aqww',
  disaggregated: '72hh-3qpy',
  legacy_combined: 'jun7-fc8e',
  disaggregated_combined: 'kh3c-gbw2',
  cit: '4zgm-a668',
};

/** The Socrata dataset id of a format in a scope (the scope omitted: the format's default). */
export function socrataDatasetOf(format: CotFormat, scope?: CotScope): string {
  const dataset = cotDataset(format, scope);
  if (dataset === undefined) throw new Error(`the CFTC publishes no ${format} report ${scope}`);
  return CFTC_DATASETS[dataset];
}

export interface CftcFetchOptions extends SourceFetchOptions {
  format: CotFormat;
  /** Futures only or combined (default: the format's default scope). */
  scope?: CotScope;
  /** Contract market codes (default: every code in the catalog). */
  codes?: readonly string[];
  /** Report date range, inclusive, YYYY-MM-DD. */
  from?: string;
  to?: string;
  /** Socrata app token (optional; raises the API's own throttling limits). */
  appToken?: string;
  pageSize?: number;
}

export function cftcQueryUrl(
  o: Omit<CftcFetchOptions, 'catalog'>,
  codes: readonly string[],
  offset: number,
  limit: number,
): URL {
  const url = new URL(
    `/resource/${socrataDatasetOf(o.format, o.scope)}.json`,
    o.baseUrl ?? 'https://publicreporting.cftc.gov',
  );
  const where = [`cftc_contract_market_code in (${codes.map((c) => `'${c.replace(/'/g, "''")}'`).join(',')})`];
  if (o.from) where.push(`report_date_as_yyyy_mm_dd >= '${o.from}T00:00:00.000'`);
  if (o.to) where.push(`report_date_as_yyyy_mm_dd <= '${o.to}T00:00:00.000'`);
  url.searchParams.set('$where', where.join(' AND '));
  url.searchParams.set('$order', 'report_date_as_yyyy_mm_dd,cftc_contract_market_code');
  url.searchParams.set('$limit', String(limit));
  url.searchParams.set('$offset', String(offset));
  return url;
}

/**
 * Pages through the CFTC Socrata API ($limit/$offset, ordered so pages are stable) and streams
 * each page through parseCftcSocrataJson. The app token travels in the X-App-Token header.
 */
export async function* fetchCftcCot(options: CftcFetchOptions): AsyncGenerator<SourceItem> {
  const { catalog } = options;
  const codes = options.codes ?? catalog.commodities.flatMap((c) => cftcOf(c)?.codes ?? []);
  const pageSize = options.pageSize ?? 5000;
  const stats = options.stats ?? createParseStats();
  const client = createHttpClient({
    minIntervalMs: options.appToken ? 250 : 1000,
    ...options,
    source: 'cftc',
    headers: { ...options.headers, ...(options.appToken ? { 'X-App-Token': options.appToken } : {}) },
  });
  for (let offset = 0; ; offset += pageSize) {
    const url = cftcQueryUrl(options, codes, offset, pageSize);
    const body = await client.getText(url);
    const before = stats.rows;
    yield* parseCftcSocrataJson([body], {
      file: `cftc:${socrataDatasetOf(options.format, options.scope)}`,
      format: options.format,
      ...(options.scope !== undefined ? { scope: options.scope } : {}),
      catalog,
      stats,
      offset,
    });
    const rows = stats.rows - before;
    if (rows < pageSize) return;
  }
}
