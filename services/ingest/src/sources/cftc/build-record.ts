import { COT_DATASETS, cotReportProvenance, type CotDataset, type CotFormat, type CotScope } from '@cds/contracts';
import type { CatalogIndex } from '../../catalog/index.ts';
import { byCftcCode } from './lookup.ts';
import { cftcOf } from './mapping.ts';
import type { CotItem, RejectedItem, SeriesItem, SourceItem } from '../types.ts';
import { cotItem, rejected } from '../common/records.ts';
import { cotReportStamp } from '../common/published.ts';
import { countFailedCheck, countSkip, type ParseStats } from '../common/stats.ts';
import { isoDatePrefix, readInt, usDateToIso } from '../common/values.ts';
import {
  COMMON_FIELDS,
  CROP_YEAR_CHECKS,
  CROP_YEAR_FIELDS,
  positionFields,
  SCOPE_COLUMN,
  scopeOfCell,
} from './fields.ts';

/** Reads one raw value by logical field name (e.g. 'open_interest', 'commercial.long', 'open_interest@old'). */
export type FieldReader = (field: string) => string | undefined;

/** Where a row is and what it is read as. */
export interface CotRowContext {
  file: string;
  line: number;
  catalog: CatalogIndex;
  stats?: ParseStats;
  /** The dataset the input reads (its format and scope): a row of the other scope is rejected. */
  dataset: CotDataset;
  /**
   * The row check's sums (CROP_YEAR_CHECKS) whose every figure has an Old and an Other column in
   * the source (read as `<field>@old`, `<field>@other`); absent: no check.
   */
  cropYears?: readonly (readonly string[])[];
}

/**
 * How far Old + Other may be from All, per figure summed: the combined reports round their
 * delta-adjusted options to whole contracts, column by column.
 */
export const CROP_YEAR_TOLERANCE: Readonly<Record<CotScope, number>> = { futures_only: 0, futures_and_options: 1 };

/** A scope in words, for messages. */
export const SCOPE_WORDS: Record<CotScope, string> = {
  futures_only: 'futures-only',
  futures_and_options: 'futures-and-options',
};

/**
 * Maps one COT row onto a record of the catalog commodity that owns its contract market code.
 * Returns undefined for a row skipped on purpose (code not in the catalog, or, in the CIT
 * supplement, not one of the catalog's CIT markets), counting it. A row whose FutOnly_or_Combined
 * names the other scope is rejected. A row whose Old + Other crop years do not add up to All (the
 * row check) is kept, its record naming `old_plus_other_equals_all` in `failed_checks`.
 */
export function buildCotItem(read: FieldReader, ctx: CotRowContext): CotItem | RejectedItem | undefined {
  const { format, scope } = COT_DATASETS[ctx.dataset];
  const scopeCell = read('scope')?.trim();
  if (scopeCell !== undefined && scopeCell !== '') {
    const rowScope = scopeOfCell(scopeCell);
    if (rowScope !== scope)
      return rejected(
        ctx.file,
        ctx.line,
        rowScope === undefined
          ? `FutOnly_or_Combined is "${scopeCell}", neither FutOnly nor Combined`
          : `a ${SCOPE_WORDS[rowScope]} row (FutOnly_or_Combined "${scopeCell}") in the ${SCOPE_WORDS[scope]} ${format} report`,
        ctx.stats,
      );
  }
  const code = (read('contract_code') ?? '').trim();
  if (code === '') return rejected(ctx.file, ctx.line, 'missing CFTC contract market code', ctx.stats);
  const commodity = byCftcCode(ctx.catalog, code);
  if (!commodity || (format === 'cit' && cftcOf(commodity)?.cit !== true)) {
    if (ctx.stats) countSkip(ctx.stats, 'unknown_commodity');
    return undefined;
  }
  const rawDate = read('report_date');
  const report_date = isoDatePrefix(rawDate) ?? usDateToIso(rawDate);
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
  const failed = ctx.cropYears !== undefined && !cropYearsAddUp(read, ctx.cropYears, CROP_YEAR_TOLERANCE[scope]);
  if (failed) record.failed_checks = ['old_plus_other_equals_all'];
  Object.assign(record, cotReportStamp(report_date));
  for (const { field, group, side } of POSITIONS[format]) {
    ((record[group] ??= {}) as Record<string, number>)[side] = num(field);
  }
  if (problems !== undefined) return rejected(ctx.file, ctx.line, problems.join('; '), ctx.stats);

  const where = { file: ctx.file, line: ctx.line, ...(ctx.stats ? { stats: ctx.stats } : {}) };
  const item = cotItem(format, commodity.entry.id, record, where, cotReportProvenance(ctx.dataset, code), scope);
  if (failed && item.kind === 'cot' && ctx.stats) countFailedCheck(ctx.stats, 'old_plus_other_equals_all');
  return item;
}

/**
 * The row check `old_plus_other_equals_all`: for each sum of figures, |Old + Other - All| <= the
 * tolerance per figure times the figures summed. A sum with a cell that is not an integer (`.`:
 * missing) is not checked.
 */
export function cropYearsAddUp(
  read: FieldReader,
  checks: readonly (readonly string[])[],
  tolerancePerFigure: number,
): boolean {
  for (const fields of checks) {
    let diff = 0;
    let readable = true;
    for (const field of fields) {
      const all = readInt(read(field));
      const old = readInt(read(`${field}@old`));
      const other = readInt(read(`${field}@other`));
      if (!all.ok || !old.ok || !other.ok) {
        readable = false;
        break;
      }
      diff += old.value + other.value - all.value;
    }
    if (readable && Math.abs(diff) > tolerancePerFigure * fields.length) return false;
  }
  return true;
}

/**
 * The open interest of a legacy report as a point of the commodity's weekly `open_interest`
 * series (futures only, the CFTC's own figure, in contracts), with the report's provenance. The
 * disaggregated report carries the same number, so only the legacy one feeds the series; the
 * combined reports (futures and options) never do.
 */
export function openInterestOf(item: SourceItem): SeriesItem | undefined {
  if (item.kind !== 'cot' || item.format !== 'legacy' || item.scope !== undefined) return undefined;
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
  cit: splitFields('cit'),
};

function splitFields(format: CotFormat): { field: string; group: string; side: string }[] {
  return Object.keys(positionFields(format)).map((field) => {
    const [group, side] = field.split('.') as [string, string];
    return { field, group, side };
  });
}

/** All logical fields of a format's record with their accepted column names (every one required). */
export function allFields(format: CotFormat): [string, readonly string[]][] {
  return [...Object.entries(COMMON_FIELDS), ...Object.entries(positionFields(format))];
}

/**
 * The columns a row is also read from when the source has them: `scope` (FutOnly_or_Combined) and
 * the Old and Other columns of each figure the row check covers (`<field>@old`, `<field>@other`).
 */
export function optionalFields(format: CotFormat): [string, readonly string[]][] {
  return [
    ['scope', [SCOPE_COLUMN]],
    ...CROP_YEAR_FIELDS[format].flatMap(({ field, old, other }): [string, readonly string[]][] => [
      [`${field}@old`, old],
      [`${field}@other`, other],
    ]),
  ];
}

/** The row check's sums a source's columns allow: those whose every figure has an Old and an Other column. */
export function cropYearsPresent(format: CotFormat, has: (field: string) => boolean): (readonly string[])[] {
  return CROP_YEAR_CHECKS[format].filter((fields) => fields.every((f) => has(`${f}@old`) && has(`${f}@other`)));
}
