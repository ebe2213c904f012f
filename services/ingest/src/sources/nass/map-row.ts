import type { CatalogIndex } from '../../catalog/index.ts';
import { byNassCommodity, byNassItem } from './lookup.ts';
import type { RejectedItem, SeriesItem } from '../types.ts';
import { easternStamp } from '../common/published.ts';
import { rejected, seriesItem } from '../common/records.ts';
import { countSkip, type ParseStats } from '../common/stats.ts';
import { daysInMonth, readDecimal } from '../common/values.ts';

/** The Quick Stats fields we read, under the API's names and the web export's headers (normalized). */
export const NASS_FIELDS = {
  program: ['source_desc', 'program'],
  year: ['year'],
  period: ['reference_period_desc', 'period'],
  level: ['agg_level_desc', 'geo_level'],
  state: ['state_name', 'state'],
  state_alpha: ['state_alpha'],
  county: ['county_name', 'county'],
  commodity: ['commodity_desc', 'commodity'],
  item: ['short_desc', 'data_item'],
  domain: ['domain_desc', 'domain'],
  value: ['value'],
  /** When Quick Stats loaded the row (US Eastern wall clock): its publication. */
  load_time: ['load_time'],
} as const;
export type NassField = keyof typeof NASS_FIELDS;
export const REQUIRED_NASS_FIELDS: NassField[] = ['program', 'year', 'period', 'level', 'commodity', 'item', 'value'];

/**
 * Which rows map onto a commodity's series. By default only NATIONAL rows of the SURVEY program:
 * state and county rows would otherwise all land on the same national series. Pick one state
 * (or county) to ingest that location's figures instead.
 */
export interface NassFilter {
  level?: 'NATIONAL' | 'STATE' | 'COUNTY';
  /** State name (IOWA) or, in API rows, alpha code (IA); required for STATE/COUNTY. */
  state?: string;
  county?: string;
  /** source_desc / Program values accepted (default ['SURVEY']; CENSUS is the 5-yearly census). */
  programs?: string[];
}

/** Last day of a month, YYYY-MM-DD: monthly values are dated at the end of their period. */
function monthEnd(year: number, month: number): string {
  return `${year}-${String(month).padStart(2, '0')}-${String(daysInMonth(year, month)).padStart(2, '0')}`;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** What kind of item a period belongs to: a monthly price series, or an annual/point-in-time one. */
export type NassPeriodKind = 'price' | 'other';

/**
 * Dates a NASS reference period. Annual values (`YEAR`) have no day of their own: they are
 * published with frequency monthly, dated YYYY-12-31 (the contracts know no annual frequency).
 * Point-in-time stocks (`FIRST OF MAR`) are dated on that day, YYYY-03-01. Forecasts
 * (`YEAR - AUG FORECAST`), marketing years and weekly periods are not mapped.
 *
 * A price item (`kind` 'price', PRICE RECEIVED) is a monthly series: `JAN`..`DEC` are dated at
 * the month's last day (2024-01-31, as EIA monthly periods), and its annual figures (`YEAR`,
 * `MARKETING YEAR` averages) are skipped, so the monthly series never mixes in an annual average.
 */
export function nassPeriodDate(
  year: number,
  period: string,
  kind: NassPeriodKind = 'other',
): { date: string } | { skip: string } {
  const p = period.trim().toUpperCase();
  if (kind === 'price') {
    const m = MONTHS.indexOf(p) + 1;
    if (m > 0) return { date: monthEnd(year, m) };
    return { skip: p.includes('FORECAST') ? 'forecast' : 'other_period' };
  }
  if (p === 'YEAR') return { date: `${year}-12-31` };
  const first = /^FIRST OF ([A-Z]{3})$/.exec(p);
  if (first) {
    const m = MONTHS.indexOf(first[1]!) + 1;
    if (m > 0) return { date: `${year}-${String(m).padStart(2, '0')}-01` };
  }
  if (p.includes('FORECAST')) return { skip: 'forecast' };
  return { skip: 'other_period' };
}

export function mapNassRow(
  read: (f: NassField) => string | undefined,
  ctx: { file: string; line: number; catalog: CatalogIndex; filter: NassFilter; stats?: ParseStats },
): SeriesItem | RejectedItem | undefined {
  const { stats, filter } = ctx;
  const skip = (reason: string): undefined => {
    if (stats) countSkip(stats, reason);
    return undefined;
  };
  const up = (f: NassField) => (read(f) ?? '').trim().toUpperCase();
  if (byNassCommodity(ctx.catalog, up('commodity')).length === 0) return skip('unknown_commodity');
  const mapping = byNassItem(ctx.catalog, up('item'));
  if (!mapping) return skip('unmapped_item');
  if (!(filter.programs ?? ['SURVEY']).includes(up('program'))) return skip('other_program');
  const domain = up('domain');
  if (domain !== '' && domain !== 'TOTAL') return skip('other_domain');
  const level = filter.level ?? 'NATIONAL';
  if (up('level') !== level) return skip('other_location');
  if (level !== 'NATIONAL') {
    const want = (filter.state ?? '').toUpperCase();
    if (up('state') !== want && up('state_alpha') !== want) return skip('other_location');
    if (level === 'COUNTY' && up('county') !== (filter.county ?? '').toUpperCase()) return skip('other_location');
  }
  const yearRaw = (read('year') ?? '').trim();
  if (!/^\d{4}$/.test(yearRaw)) return rejected(ctx.file, ctx.line, `invalid year "${yearRaw}"`, stats);
  const dated = nassPeriodDate(
    Number(yearRaw),
    read('period') ?? '',
    mapping.item.type === 'price' ? 'price' : 'other',
  );
  if ('skip' in dated) return skip(dated.skip);
  const cell = readDecimal(read('value'));
  if (!cell.ok) {
    if (cell.missing) return skip('withheld');
    return rejected(ctx.file, ctx.line, `value is not a number "${cell.raw}"`, stats);
  }
  const { commodity, item } = mapping;
  // load_time is Eastern time: the rows of a report load minutes after its 12:00 ET release (8:30
  // ET until 2013), and as UTC they would predate it; a row without a readable one gets none
  const loaded = read('load_time');
  const published = loaded === undefined || loaded.trim() === '' ? undefined : easternStamp(loaded);
  return seriesItem(
    commodity.entry.id,
    item.type,
    'monthly',
    item.unit,
    { date: dated.date, value: cell.value },
    {
      file: ctx.file,
      line: ctx.line,
      ...(stats ? { stats } : {}),
    },
    `nass:${item.short_desc}`,
    item.basis,
    published,
  );
}
