import { byEiaSeries } from './lookup.ts';
import type { SourceItem } from '../types.ts';
import { readJsonRows } from '../common/json.ts';
import { rejected, type ParseOptions } from '../common/records.ts';
import { countSkip } from '../common/stats.ts';
import type { TextInput } from '../common/text.ts';
import { eiaObservation } from './observation.ts';

export interface EiaApiOptions extends ParseOptions {
  /** Series id for routes whose rows lack a `series` field. */
  series?: string;
  /** Index of this page's first row in the whole result (for rejection numbers). */
  offset?: number;
}

/**
 * Streams an EIA API v2 response body: `{"response":{"total":..,"data":[{"period":"2024-01-05",
 * "series":"WCESTUS1","series-description":..,"value":418310,"units":"MBBL"}, ...]}}`. The
 * series id picks the catalog mapping (type, frequency, unit); values may come as numbers or
 * strings; null values are skipped (missing_value). `line` of a rejection is the row number.
 */
export async function* parseEiaApiJson(input: TextInput, options: EiaApiOptions): AsyncGenerator<SourceItem> {
  const { file, stats } = options;
  const { catalog } = options;
  for await (const r of readJsonRows(input, 'data', options)) {
    if (r.kind === 'rejected') {
      yield r;
      continue;
    }
    const { line, value: row } = r;
    const rawSeries = typeof row.series === 'string' ? row.series : options.series;
    if (!rawSeries) {
      yield rejected(file, line, 'row has no "series" and no series option was given', stats);
      continue;
    }
    const mapping = byEiaSeries(catalog, rawSeries);
    if (!mapping) {
      if (stats) countSkip(stats, 'unknown_series');
      continue;
    }
    const period = typeof row.period === 'string' ? row.period : '';
    const item = eiaObservation({
      mapping,
      period,
      value: row.value as string | number | null | undefined,
      file,
      line,
      stats,
      badPeriod: (frequency) => `period "${period}" is not a ${frequency} period`,
    });
    if (item) yield item;
  }
}
