import { CATALOG, normalizeEiaSeriesId } from '../../catalog/index.ts';
import type { SourceItem } from '../types.ts';
import { streamJsonArrayObjects } from '../common/json.ts';
import { rejected, seriesItem, type ParseOptions } from '../common/records.ts';
import { countSkip } from '../common/stats.ts';
import type { TextInput } from '../common/text.ts';
import { readDecimal } from '../common/values.ts';
import { eiaPeriodToDate } from './periods.ts';

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
  const catalog = options.catalog ?? CATALOG;
  const offset = options.offset ?? 0;
  for await (const el of streamJsonArrayObjects(input, 'data')) {
    const line = offset + el.index + 1;
    if ('error' in el) {
      yield rejected(file, line, el.error, stats);
      continue;
    }
    if (stats) stats.rows++;
    const row = el.value;
    const rawSeries = typeof row.series === 'string' ? row.series : options.series;
    if (!rawSeries) {
      yield rejected(file, line, 'row has no "series" and no series option was given', stats);
      continue;
    }
    const mapping = catalog.byEiaSeries(normalizeEiaSeriesId(rawSeries));
    if (!mapping) {
      if (stats) countSkip(stats, 'unknown_series');
      continue;
    }
    const { commodity, series } = mapping;
    const period = typeof row.period === 'string' ? row.period : '';
    const date = eiaPeriodToDate(period, series.frequency);
    if (!date) {
      yield rejected(file, line, `period "${period}" is not a ${series.frequency} period`, stats);
      continue;
    }
    const cell = readDecimal(row.value as string | number | null | undefined);
    if (!cell.ok) {
      if (cell.missing) {
        if (stats) countSkip(stats, 'missing_value');
        continue;
      }
      yield rejected(file, line, `value is not a number "${cell.raw}"`, stats);
      continue;
    }
    yield seriesItem(
      commodity.entry.id,
      series.type,
      series.frequency,
      series.unit,
      { date, value: cell.value },
      {
        file,
        line,
        ...(stats ? { stats } : {}),
      },
    );
  }
}
