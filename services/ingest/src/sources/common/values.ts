/** Outcome of reading one numeric cell. */
export type NumberCell =
  { ok: true; value: number } | { ok: false; missing: true; raw: string } | { ok: false; missing: false; raw: string };

const INT = /^-?\d+$/;
const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Values a source uses for "no value": empty, `.` (CFTC), `NA`, and NASS's withheld codes like `(D)`. */
export function isMissing(trimmed: string): boolean {
  return trimmed === '' || trimmed === '.' || trimmed === 'NA' || trimmed === 'N/A' || /^\([A-Z]{1,3}\)$/.test(trimmed);
}

/**
 * The common case of readInt without a regex or a trimmed copy: optional spaces, an optional `-`,
 * 1 to 15 ASCII digits (exact as a double, as Number() reads them), optional spaces. Anything
 * else returns undefined and takes the general path.
 */
function plainInt(raw: string): number | undefined {
  let i = 0;
  let end = raw.length;
  while (i < end && raw.charCodeAt(i) === 32) i++;
  while (end > i && raw.charCodeAt(end - 1) === 32) end--;
  const negative = raw.charCodeAt(i) === 45;
  if (negative) i++;
  if (end - i < 1 || end - i > 15) return undefined;
  let value = 0;
  for (let k = i; k < end; k++) {
    const d = raw.charCodeAt(k) - 48;
    if (d < 0 || d > 9) return undefined;
    value = value * 10 + d;
  }
  return negative ? -value : value;
}

/** A space-padded integer cell (CFTC counts). Thousands separators are accepted. */
export function readInt(raw: string | undefined): NumberCell {
  if (raw !== undefined) {
    const value = plainInt(raw);
    if (value !== undefined) return { ok: true, value };
  }
  const s = (raw ?? '').trim();
  if (INT.test(s)) return { ok: true, value: Number(s) };
  if (isMissing(s)) return { ok: false, missing: true, raw: s };
  const noCommas = s.replace(/,/g, '');
  if (/^-?\d{1,3}(?:,\d{3})+$/.test(s) && INT.test(noCommas)) return { ok: true, value: Number(noCommas) };
  return { ok: false, missing: false, raw: s };
}

/** A decimal cell; thousands separators (`"11,100"`) are accepted. */
export function readDecimal(raw: string | number | null | undefined): NumberCell {
  if (typeof raw === 'number') {
    return Number.isFinite(raw) ? { ok: true, value: raw } : { ok: false, missing: false, raw: String(raw) };
  }
  if (raw === null || raw === undefined) return { ok: false, missing: true, raw: '' };
  const s = raw.trim();
  if (DECIMAL.test(s)) return { ok: true, value: Number(s) };
  if (isMissing(s)) return { ok: false, missing: true, raw: s };
  if (/^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(s)) return { ok: true, value: Number(s.replace(/,/g, '')) };
  return { ok: false, missing: false, raw: s };
}

/** `YYYY-MM-DD` (optionally followed by a time, as Socrata sends) to `YYYY-MM-DD`, or undefined. */
export function isoDatePrefix(raw: string | undefined): string | undefined {
  const m = /^\s*(\d{4}-\d{2}-\d{2})(?:[T ][\d:.]*Z?)?\s*$/.exec(raw ?? '');
  return m && isRealDate(m[1]!) ? m[1] : undefined;
}

/** `M/D/YYYY` or `MM/DD/YYYY` (EIA CSV downloads) to `YYYY-MM-DD`, or undefined. */
export function usDateToIso(raw: string | undefined): string | undefined {
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(raw ?? '');
  if (!m) return undefined;
  const iso = `${m[3]}-${m[1]!.padStart(2, '0')}-${m[2]!.padStart(2, '0')}`;
  return isRealDate(iso) ? iso : undefined;
}

/** True for a real calendar date `YYYY-MM-DD` (2024-02-30 is not). */
export function isRealDate(iso: string): boolean {
  const y = Number(iso.slice(0, 4));
  const m = Number(iso.slice(5, 7));
  const d = Number(iso.slice(8, 10));
  if (!(m >= 1 && m <= 12 && d >= 1)) return false;
  return d <= daysInMonth(y, m);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days of a month of the proleptic Gregorian calendar (the contracts' date rule; year 0 is a leap year). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return DAYS_IN_MONTH[month - 1]!;
}

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/**
 * The number (1-12) of an English month name: the full name or any start of it of three letters or
 * more (`Jun`, `Sept`), any case, with or without a closing dot (`Jun.`); else undefined.
 */
export function monthNumber(name: string): number | undefined {
  const n = name.trim().toLowerCase().replace(/\.$/, '');
  if (n.length < 3) return undefined;
  const i = MONTH_NAMES.findIndex((full) => full.startsWith(n));
  return i === -1 ? undefined : i + 1;
}
