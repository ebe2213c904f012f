import { easternInstant } from '@cds/schedule';
import { byAmsReport } from './lookup.ts';
import type { PublicationStamp, SourceItem } from '../types.ts';
import { rejected, seriesItem, type ParseOptions } from '../common/records.ts';
import { countSkip } from '../common/stats.ts';
import type { TextInput } from '../common/text.ts';
import { InputBoundError, MiB } from '../common/bounds.ts';
import { daysInMonth, monthNumber, readDecimal, usDateToIso } from '../common/values.ts';
import { AMS_REPORTS, amsReport, requiredAmsFields, type AmsReportSpec } from './reports.ts';

export interface AmsOptions extends ParseOptions {
  /** The report the body answers for: LM_CT150, LM_HG201 or FMMO_CLASS. */
  report: string;
}

/**
 * The answer no longer has the shape we read (no `results`, a field of the series renamed or
 * missing). Thrown before anything is yielded, so nothing of the body is published.
 */
export class AmsSchemaError extends Error {
  override readonly name = 'AmsSchemaError';
}

/**
 * A datamart answer of a 180-day window is a few MB; anything far larger is not one (read whole:
 * JSON.parse). Also the largest file `backfill --source ams` reads.
 */
export const AMS_MAX_BYTES = 32 * MiB;
const MAX_BODY_CHARS = AMS_MAX_BYTES;

async function readBounded(input: TextInput, file: string): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let out = '';
  for await (const chunk of input) {
    out += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (out.length > MAX_BODY_CHARS)
      throw new InputBoundError(
        `${file}: more than the ${MAX_BODY_CHARS} characters read: not one datamart answer (ask a shorter date range)`,
      );
  }
  return out + decoder.decode();
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first of `names` the row has, and its value. */
function field(row: Record<string, unknown>, names: readonly string[]): unknown {
  for (const n of names) if (n in row) return row[n];
  return undefined;
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/**
 * The rows of the report's section in a datamart answer, in any of its three shapes: the array of
 * sections `allSections=true` returns (`[{reportSection, reportSections, stats, results}, ...]`),
 * one section (`{reportSection, results}`, `/reports/<slug>/<section>`), or the bare
 * `{results: [...]}` of older answers, whose rows name their section in `label`. An answer saying
 * "No Results Found" has no rows. A changed layout throws an AmsSchemaError naming what changed:
 * a row of the section without a field that picks the series or dates it, no row of the series
 * having the value field (renamed; a row without it is a withheld value), or rows in the section of
 * which none is the series (a renamed category, e.g. another `purchase_type` spelling).
 */
export function amsSectionRows(
  doc: unknown,
  spec: AmsReportSpec,
  what = `ams ${spec.report}`,
): { rows: Record<string, unknown>[]; otherSection: number } {
  const sections: { name: string | undefined; results: unknown }[] = [];
  if (Array.isArray(doc)) {
    doc.forEach((s, i) => {
      if (!isObject(s) || !('results' in s) || typeof s.reportSection !== 'string')
        throw new AmsSchemaError(
          `${what}: element ${i + 1} of the answer is not a report section (reportSection, results)`,
        );
      sections.push({ name: s.reportSection, results: s.results });
    });
  } else if (isObject(doc) && 'results' in doc) {
    sections.push({
      name: typeof doc.reportSection === 'string' ? doc.reportSection : undefined,
      results: doc.results,
    });
  } else if (isObject(doc) && /no results/i.test(text(doc.message))) {
    return { rows: [], otherSection: 0 };
  } else {
    const keys = isObject(doc) ? Object.keys(doc).join(', ') : typeof doc;
    throw new AmsSchemaError(`${what}: the answer has no "results" (it has: ${keys}); nothing was published`);
  }
  const want = spec.section.toLowerCase();
  const rows: Record<string, unknown>[] = [];
  let otherSection = 0;
  for (const s of sections) {
    if (s.name !== undefined && s.name.toLowerCase() !== want) continue;
    if (s.results === null) continue;
    if (!Array.isArray(s.results))
      throw new AmsSchemaError(`${what}: "results" of section ${s.name ?? '(unnamed)'} is not an array`);
    for (const r of s.results) {
      if (!isObject(r)) throw new AmsSchemaError(`${what}: a row of section ${spec.section} is not an object`);
      if (s.name === undefined && typeof r.label === 'string' && r.label.toLowerCase() !== want) {
        otherSection++;
        continue;
      }
      rows.push(r);
    }
  }
  const required = requiredAmsFields(spec);
  const schemaChanged = (i: number, missing: (readonly string[])[], row: Record<string, unknown>) =>
    new AmsSchemaError(
      `${what}: the source's schema changed: row ${i + 1} of section "${spec.section}" has no ${missing
        .map((m) => `"${m.join('" or "')}"`)
        .join(', ')} field (fields: ${Object.keys(row).join(', ')}); nothing was published`,
    );
  rows.forEach((row, i) => {
    const missing = required.filter((names) => names.every((n) => !(n in row)));
    if (missing.length > 0) throw schemaChanged(i, missing, row);
  });
  // A row of the series without its value field is a withheld value (older answers drop null
  // fields); no row of the series having it means the field was renamed.
  const series = rows.map((row, i) => ({ row, i })).filter(({ row }) => isSeriesRow(row, spec));
  if (rows.length > 0 && series.length === 0)
    throw new AmsSchemaError(
      `${what}: none of the ${rows.length} rows of section "${spec.section}" is the series (${spec.match
        .map((m) => `${m.field[0]} = "${m.equals}"`)
        .join(', ')}); nothing was published`,
    );
  if (series.length > 0 && series.every(({ row }) => spec.value.every((n) => !(n in row))))
    throw schemaChanged(series[0]!.i, [spec.value], series[0]!.row);
  return { rows, otherSection };
}

/** True for a row that is the report's series (each match field equals its value, any case). */
export function isSeriesRow(row: Record<string, unknown>, spec: AmsReportSpec): boolean {
  return spec.match.every((m) => text(field(row, m.field)).toLowerCase() === m.equals.toLowerCase());
}

/** The month end of an FMMO year and month (`January`, `Jan`, `1`, `01`), or undefined. */
function monthEndOf(yearRaw: string, monthRaw: string): string | undefined {
  if (!/^\d{4}$/.test(yearRaw)) return undefined;
  const m = /^\d{1,2}$/.test(monthRaw) ? Number(monthRaw) : (monthNumber(monthRaw) ?? 0);
  if (!(m >= 1 && m <= 12)) return undefined;
  const y = Number(yearRaw);
  return `${yearRaw}-${String(m).padStart(2, '0')}-${String(daysInMonth(y, m)).padStart(2, '0')}`;
}

function rowDate(row: Record<string, unknown>, spec: AmsReportSpec): { date: string } | { bad: string } {
  if (spec.date.kind === 'us_date') {
    const raw = text(field(row, spec.date.field));
    const date = usDateToIso(raw);
    return date ? { date } : { bad: `${spec.date.field[0]}: not a MM/DD/YYYY date "${raw}"` };
  }
  const y = text(field(row, spec.date.year));
  const m = text(field(row, spec.date.month));
  const date = monthEndOf(y, m);
  return date ? { date } : { bad: `${spec.date.year[0]}/${spec.date.month[0]}: not a year and month "${y}" "${m}"` };
}

/** The row's publication: its report date at the report's hour, Eastern (estimated); none when the row does not say. */
function publishedOf(row: Record<string, unknown>, spec: AmsReportSpec): PublicationStamp | undefined {
  if (spec.published === undefined) return undefined;
  const day = usDateToIso(text(field(row, spec.published.field)));
  return day === undefined
    ? undefined
    : { at: easternInstant(day, spec.published.time).toISOString(), estimated: true };
}

/**
 * Streams the series points of a USDA AMS datamart answer (JSON) for one report: the rows of the
 * report's section that are its series (AMS_REPORTS: LM_CT150 live steers, LM_HG201 negotiated
 * barrows and gilts, FMMO Class III), dated and valued as the spec says, mapped onto every catalog
 * series of the report (`byAmsReport`) as `ams:<REPORT>` with the mapping's price basis.
 * Other rows are skipped (`other_series`, `other_section`), a row without a value is skipped
 * (`missing_value`), a repeated date is skipped (`duplicate_date`); a bad date or number is
 * rejected with the row's number in its section. A renamed or missing field throws AmsSchemaError
 * before anything is yielded. The body is read whole (one answer is a bounded date range).
 */
export async function* parseAmsJson(input: TextInput, options: AmsOptions): AsyncGenerator<SourceItem> {
  const { file, stats } = options;
  const spec = amsReport(options.report);
  if (!spec) throw new Error(`ams: unknown report ${options.report} (known: ${Object.keys(AMS_REPORTS).join(', ')})`);
  const { catalog } = options;
  const body = await readBounded(input, file);
  let doc: unknown;
  try {
    doc = JSON.parse(body) as unknown;
  } catch (err) {
    yield rejected(file, 1, `invalid JSON: ${(err as Error).message}`, stats);
    return;
  }
  const { rows, otherSection } = amsSectionRows(doc, spec, `${file}`);
  const skip = (reason: string) => {
    if (stats) countSkip(stats, reason);
  };
  if (stats) stats.rows += otherSection;
  for (let i = 0; i < otherSection; i++) skip('other_section');
  const mappings = byAmsReport(catalog, spec.report);
  const seen = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const line = i + 1;
    if (stats) stats.rows++;
    if (!isSeriesRow(row, spec)) {
      skip('other_series');
      continue;
    }
    const dated = rowDate(row, spec);
    if ('bad' in dated) {
      yield rejected(file, line, dated.bad, stats);
      continue;
    }
    const raw = field(row, spec.value);
    const cell = readDecimal(
      raw === null || raw === undefined || typeof raw === 'number' || typeof raw === 'string'
        ? raw
        : JSON.stringify(raw),
    );
    if (!cell.ok) {
      if (cell.missing) skip('missing_value');
      else yield rejected(file, line, `${spec.value[0]}: not a number "${cell.raw}"`, stats);
      continue;
    }
    if (seen.has(dated.date)) {
      skip('duplicate_date');
      continue;
    }
    seen.add(dated.date);
    if (mappings.length === 0) {
      skip('unknown_series');
      continue;
    }
    const published = publishedOf(row, spec);
    for (const { commodity, series } of mappings)
      yield seriesItem(
        commodity.entry.id,
        series.type,
        series.frequency,
        series.unit,
        { date: dated.date, value: cell.value },
        { file, line, ...(stats ? { stats } : {}) },
        `ams:${spec.report}`,
        series.basis ?? 'cash',
        published,
      );
  }
}
