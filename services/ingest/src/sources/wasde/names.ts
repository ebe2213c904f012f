import { isMarketingYear, SNAKE_CASE_PATTERN } from '@cds/contracts';
import { squash } from './cells.ts';

/**
 * How WASDE's printed names become the API's: a row name or a region in snake_case, without its
 * footnote marks (`2/`, `*`) or a unit in parentheses (`($/bu)`), whitespace (CRLF and the leading
 * spaces of sub-rows included) squashed; a few names USDA prints two ways are one attribute.
 */

/** Footnote marks (`2/`, `/3`), asterisks and a parenthesised unit or note: `Avg. Farm Price ($/bu)  4/` → `Avg. Farm Price`. */
export function withoutMarks(name: string): string {
  return squash(
    squash(name)
      .replace(/\([^)]*\)/g, ' ')
      .replace(/(?:^|\s)\d+\/(?=\s|$)/g, ' ')
      .replace(/(?:^|\s)\/\d+(?=\s|$)/g, ' ')
      .replace(/\*/g, ' '),
  );
}

/** snake_case of a name: lower case, `&` and punctuation dropped, words joined by `_`. */
export function snake(name: string): string {
  return withoutMarks(name)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** Names USDA prints two ways (and the one the API says shortly), after snake_case. */
const ATTRIBUTE_ALIASES: Readonly<Record<string, string>> = {
  yield_per_harvested_acre: 'yield',
  supply_total: 'supply_total',
  total_supply: 'supply_total',
  use_total: 'use_total',
  total_use: 'use_total',
  domestic_total: 'domestic_total',
  total_domestic: 'domestic_total',
  ending_stocks_total: 'ending_stocks',
  exports_total: 'exports',
  // the cotton table prints `Area` over its `Planted` and `Harvested` rows
  planted: 'area_planted',
  harvested: 'area_harvested',
};

/** The attribute of a row name, or undefined when nothing of it is a name (a number, a blank filler). */
export function attributeOf(rowName: string): string | undefined {
  const s = snake(rowName);
  const name = ATTRIBUTE_ALIASES[s] ?? s;
  return SNAKE_CASE_PATTERN.test(name) && name.length <= 60 ? name : undefined;
}

const REGION_ALIASES: Readonly<Record<string, string>> = {
  european_union: 'eu',
  eu_27: 'eu',
  eu_28: 'eu',
  u_s: 'united_states',
  us: 'united_states',
};

/** The region of a world table's row name (`World  3/` → world, `European Union 5/` → eu), or undefined. */
export function regionOf(name: string): string | undefined {
  const s = snake(name);
  const region = REGION_ALIASES[s] ?? s;
  return SNAKE_CASE_PATTERN.test(region) && region.length <= 60 ? region : undefined;
}

/** A unit stated in a row name: `($/bu)`, `(c/lb)`, `($/s.t.)`, `($/cwt)`, `(%)` (rice's milling yield). */
const UNITS_IN_NAMES: readonly [RegExp, string][] = [
  [/\(\s*\$\s*\/\s*bu\.?\s*\)/i, 'Dollars per Bushel'],
  [/\(\s*\$\s*\/\s*cwt\.?\s*\)/i, 'Dollars per Hundredweight'],
  [/\(\s*c(?:ents)?\s*\/\s*lb\.?\s*\)/i, 'Cents per Pound'],
  [/\(\s*\$\s*\/\s*s\.?\s*t\.?\s*\)/i, 'Dollars per Short Ton'],
  [/\(\s*\$\s*\/\s*lb\.?\s*\)/i, 'Dollars per Pound'],
  [/\(\s*%\s*\)/, 'Percent'],
];

export function unitInName(rowName: string): string | undefined {
  return UNITS_IN_NAMES.find(([re]) => re.test(rowName))?.[1];
}

/**
 * A cell's number: thousands commas and trailing marks (`106.2 *`, `1,551`, `12.5 2/`) dropped; undefined for
 * an empty cell, `NA` or anything else that is not a number.
 */
export function cellNumber(raw: string): number | undefined {
  const s = raw.replace(/\s+\d\/\s*$/, '').replace(/[,*\s]/g, '');
  if (!/^[-+]?(?:\d+\.?\d*|\.\d+)$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/** A calendar year (the meats table): `2026 Proj.` → { year: 2026, projection }; `2025 Est.`, `2024` → estimate. */
export function calendarYearOf(raw: string): { year: string; status: 'estimate' | 'projection' } | undefined {
  const m = /^(\d{4})\s*\(?\s*(Est|Proj)?\.?\s*\)?$/i.exec(squash(raw));
  if (m === null || !isMarketingYear(m[1]!)) return undefined;
  return { year: m[1]!, status: m[2]?.toLowerCase() === 'proj' ? 'projection' : 'estimate' };
}

/**
 * `2026/27 Proj.` → { year: 2026/27, projection }; `2025/26 Est.`, `2024/25` → estimate; undefined otherwise.
 * The US cotton tables of 2010-2013 print a three-digit second year (`2010/011 Proj.`, `2011/012`):
 * read when it is the first year + 1 (mod 1000), as `2010/11`.
 */
export function marketingYearOf(raw: string): { year: string; status: 'estimate' | 'projection' } | undefined {
  const m = /^(\d{4})\/(\d{2}|\d{3})\s*\(?\s*(Est|Proj)?\.?\s*\)?$/i.exec(squash(raw));
  if (m === null) return undefined;
  const [first, second, status] = [m[1]!, m[2]!, m[3]];
  if (second.length === 3 && Number(second) !== (Number(first) + 1) % 1000) return undefined;
  const year = `${first}/${second.slice(-2)}`;
  if (!isMarketingYear(year)) return undefined;
  return { year, status: status?.toLowerCase() === 'proj' ? 'projection' : 'estimate' };
}
