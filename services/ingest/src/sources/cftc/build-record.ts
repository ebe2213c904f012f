import { cotReportProvenance, type CotFormat } from '@cds/contracts';
import type { CatalogIndex } from '../../catalog/index.ts';
import { byCftcCode } from './lookup.ts';
import type { CotItem, RejectedItem, SeriesItem, SourceItem } from '../types.ts';
import { cotItem, rejected } from '../common/records.ts';
import { cotReportStamp } from '../common/published.ts';
import { countSkip, type ParseStats } from '../common/stats.ts';
import { isoDatePrefix, readInt } from '../common/values.ts';
import { COMMON_FIELDS, positionFields } from './fields.ts';

/** Reads one raw value by logical field name (e.g. 'open_interest', 'commercial.long'). */
export type FieldReader = (field: string) => string | undefined;

/**
 * Maps one COT row onto a record of the catalog commodity that owns its contract market code.
 * Returns undefined for a row skipped on purpose (code not in the catalog), counting it.
 */
export function buildCotItem(
  format: CotFormat,
  read: FieldReader,
  ctx: { file: string; line: number; catalog: CatalogIndex; stats?: ParseStats },
): CotItem | RejectedItem | undefined {
  const code = (read('contract_code') ?? '').trim();
  if (code === '') return rejected(ctx.file, ctx.line, 'missing CFTC contract market code', ctx.stats);
  const commodity = byCftcCode(ctx.catalog, code);
  if (!commodity) {
    if (ctx.stats) countSkip(ctx.stats, 'unknown_commodity');
    return undefined;
  }
  const rawDate = read('report_date');
  const report_date = isoDatePrefix(rawDate);
  if (!report_date) return rejected(ctx.file, ctx.line, `invalid report date "${rawDate ?? ''}"`, ctx.stats);

  let problems: string[] | undefined;
  const num = (field: string): number => {
    const cell = readInt(read(field));
    if (cell.ok) return cell.value;
    (problems ??= []).push(
      cell.missing ? `${field}: missing value "${cell.raw}"` : `${field}: not an integer "${cell.raw}"`,
    );
    return 0;
  };
  // built in the contract's key order (the validator's canonical copy then costs no reordering)
  const record: Record<string, unknown> = { report_date };
  if (commodity.entry.exchange) record.exchange = commodity.entry.exchange;
  record.contract_code = code;
  record.open_interest = num('open_interest');
  Object.assign(record, cotReportStamp(report_date));
  for (const { field, group, side } of POSITIONS[format]) {
    ((record[group] ??= {}) as Record<string, number>)[side] = num(field);
  }
  if (problems !== undefined) return rejected(ctx.file, ctx.line, problems.join('; '), ctx.stats);

  const where = { file: ctx.file, line: ctx.line, ...(ctx.stats ? { stats: ctx.stats } : {}) };
  return cotItem(format, commodity.entry.id, record, where, cotReportProvenance(format, code));
}

/**
 * The open interest of a legacy report as a point of the commodity's weekly `open_interest`
 * series (futures only, the CFTC's own figure, in contracts), with the report's provenance. The
 * disaggregated report carries the same number, so only the legacy one feeds the series.
 */
export function openInterestOf(item: SourceItem): SeriesItem | undefined {
  if (item.kind !== 'cot' || item.format !== 'legacy') return undefined;
  return {
    kind: 'series',
    commodity_id: item.commodity_id,
    series_type: 'open_interest',
    frequency: 'weekly',
    unit: 'contracts',
    ...(item.source !== undefined ? { source: item.source } : {}),
    point: { date: item.record.report_date, value: item.record.open_interest },
    ...(item.record.published_at !== undefined
      ? { published: { at: item.record.published_at, estimated: item.record.published_at_estimated === true } }
      : {}),
  };
}

/** Each position field split once into its group and side ('commercial.long' → commercial, long). */
const POSITIONS: Record<CotFormat, readonly { field: string; group: string; side: string }[]> = {
  legacy: splitFields('legacy'),
  disaggregated: splitFields('disaggregated'),
};

function splitFields(format: CotFormat): { field: string; group: string; side: string }[] {
  return Object.keys(positionFields(format)).map((field) => {
    const [group, side] = field.split('.') as [string, string];
    return { field, group, side };
  });
}

/** All logical fields of a format with their accepted column names. */
export function allFields(format: CotFormat): [string, readonly string[]][] {
  return [...Object.entries(COMMON_FIELDS), ...Object.entries(positionFields(format))];
}
