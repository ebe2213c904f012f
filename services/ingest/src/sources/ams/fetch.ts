import { addDays } from '@cds/schedule';
import { amsOf, type AmsMapping } from './mapping.ts';
import type { SourceItem } from '../types.ts';
import { createHttpClient, type SourceFetchOptions } from '../common/http.ts';
import { createParseStats } from '../common/stats.ts';
import { parseAmsJson } from './parse.ts';
import { amsReport } from './reports.ts';

/** The LMR datamart answers at most 180 days of report dates per query. */
export const AMS_MAX_WINDOW_DAYS = 180;

export const AMS_DATAMART_URL = 'https://mpr.datamart.ams.usda.gov';

const us = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;

/**
 * The datamart queries covering [from, to] (YYYY-MM-DD) for one report, oldest first:
 * `/services/v1.1/reports/<slug>?q=report_date=MM/DD/YYYY:MM/DD/YYYY&allSections=true` in windows
 * of at most 180 days (LMR reports), or `?q=report_year=YYYY&allSections=true` per year (FMMO).
 * No key. The query is written as the datamart documents it (`=`, `/`, `:` unescaped).
 */
export function amsQueryUrls(
  mapping: Pick<AmsMapping, 'report' | 'slug'>,
  from: string,
  to: string,
  baseUrl?: string,
): URL[] {
  const spec = amsReport(mapping.report);
  if (!spec) throw new Error(`ams: unknown report ${mapping.report}`);
  const url = (q: string) => {
    const u = new URL(`/services/v1.1/reports/${encodeURIComponent(mapping.slug)}`, baseUrl ?? AMS_DATAMART_URL);
    u.search = `?q=${q}&allSections=true`;
    return u;
  };
  const urls: URL[] = [];
  if (from > to) return urls;
  if (spec.query === 'report_year') {
    for (let y = Number(from.slice(0, 4)); y <= Number(to.slice(0, 4)); y++) urls.push(url(`report_year=${y}`));
    return urls;
  }
  for (let start = from; start <= to; start = addDays(start, AMS_MAX_WINDOW_DAYS)) {
    const last = addDays(start, AMS_MAX_WINDOW_DAYS - 1);
    urls.push(url(`report_date=${us(start)}:${us(last < to ? last : to)}`));
  }
  return urls;
}

export interface AmsFetchOptions extends SourceFetchOptions {
  /** Catalog commodity ids (default: every commodity with an AMS mapping). */
  commodities?: readonly string[];
  /** First and last report date, YYYY-MM-DD (default: three years back to today, UTC). */
  from?: string;
  to?: string;
}

/** Fetches each catalog AMS report from the datamart (no key) and streams its points. */
export async function* fetchAmsReports(options: AmsFetchOptions): AsyncGenerator<SourceItem> {
  const { catalog } = options;
  const ids = options.commodities ?? catalog.commodities.filter((c) => amsOf(c)).map((c) => c.entry.id);
  const stats = options.stats ?? createParseStats();
  const client = createHttpClient({ minIntervalMs: 1000, ...options, source: 'ams' });
  const to = options.to ?? new Date().toISOString().slice(0, 10);
  const from = options.from ?? addDays(to, -3 * 365);
  for (const id of ids) {
    const def = catalog.byId(id);
    const ams = def && amsOf(def);
    if (!ams) throw new Error(`ams: commodity ${id} has no AMS mapping`);
    for (const mapping of ams.series) {
      for (const url of amsQueryUrls(mapping, from, to, options.baseUrl)) {
        const body = await client.getText(url);
        for await (const item of parseAmsJson([body], {
          file: `ams:${mapping.report}`,
          report: mapping.report,
          catalog,
          stats,
        }))
          if (item.kind === 'rejected' || item.commodity_id === id) yield item;
      }
    }
  }
}
