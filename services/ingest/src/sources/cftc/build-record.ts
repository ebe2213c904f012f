import type { CotFormat } from '@cds/contracts';
import type { CatalogIndex } from '../../catalog/index.ts';
import type { CotItem, RejectedItem } from '../types.ts';
import { disaggregatedCotItem, legacyCotItem, rejected } from '../common/records.ts';
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
  const commodity = ctx.catalog.byCftcCode(code);
  if (!commodity) {
    if (ctx.stats) countSkip(ctx.stats, 'unknown_commodity');
    return undefined;
  }
  const rawDate = read('report_date');
  const report_date = isoDatePrefix(rawDate);
  if (!report_date) return rejected(ctx.file, ctx.line, `invalid report date "${rawDate ?? ''}"`, ctx.stats);

  const problems: string[] = [];
  const num = (field: string): number => {
    const cell = readInt(read(field));
    if (cell.ok) return cell.value;
    problems.push(cell.missing ? `${field}: missing value "${cell.raw}"` : `${field}: not an integer "${cell.raw}"`);
    return 0;
  };
  const open_interest = num('open_interest');
  const groups: Record<string, Record<string, number>> = {};
  for (const field of Object.keys(positionFields(format))) {
    const [group, side] = field.split('.') as [string, string];
    (groups[group] ??= {})[side] = num(field);
  }
  if (problems.length > 0) return rejected(ctx.file, ctx.line, problems.join('; '), ctx.stats);

  const record = {
    report_date,
    ...(commodity.entry.exchange ? { exchange: commodity.entry.exchange } : {}),
    contract_code: code,
    open_interest,
    ...groups,
  };
  const where = { file: ctx.file, line: ctx.line, ...(ctx.stats ? { stats: ctx.stats } : {}) };
  return format === 'legacy'
    ? legacyCotItem(commodity.entry.id, record, where)
    : disaggregatedCotItem(commodity.entry.id, record, where);
}

/** All logical fields of a format with their accepted column names. */
export function allFields(format: CotFormat): [string, readonly string[]][] {
  return [...Object.entries(COMMON_FIELDS), ...Object.entries(positionFields(format))];
}
