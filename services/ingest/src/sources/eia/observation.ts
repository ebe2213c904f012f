import type { EiaSeriesMatch } from './lookup.ts';
import type { SourceItem } from '../types.ts';
import { rejected, seriesItem } from '../common/records.ts';
import { countSkip } from '../common/stats.ts';
import { readDecimal } from '../common/values.ts';
import { eiaPeriodToDate } from './periods.ts';

type EiaMapping = EiaSeriesMatch;
type Stats = Parameters<typeof countSkip>[0];

/**
 * One observation of a mapped EIA series, the same for the API JSON and the CSV download: the
 * series item, a rejection (bad period or value), or undefined for a withheld value (counted as
 * skipped). `badPeriod` words the rejection of a period that is not of the series' frequency.
 */
export function eiaObservation(o: {
  mapping: EiaMapping;
  period: string;
  value: string | number | null | undefined;
  file: string;
  line: number;
  stats: Stats | undefined;
  badPeriod: (frequency: string) => string;
}): SourceItem | undefined {
  const { commodity, series } = o.mapping;
  const date = eiaPeriodToDate(o.period, series.frequency);
  if (!date) return rejected(o.file, o.line, o.badPeriod(series.frequency), o.stats);
  const cell = readDecimal(o.value);
  if (!cell.ok) {
    if (!cell.missing) return rejected(o.file, o.line, `value is not a number "${cell.raw}"`, o.stats);
    if (o.stats) countSkip(o.stats, 'missing_value');
    return undefined;
  }
  return seriesItem(
    commodity.entry.id,
    series.type,
    series.frequency,
    series.unit,
    { date, value: cell.value },
    { file: o.file, line: o.line, ...(o.stats ? { stats: o.stats } : {}) },
    `eia:${series.id}`,
    series.basis,
  );
}
