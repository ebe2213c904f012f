/**
 * Proactive negotiation of the data endpoints' format from `Accept` (RFC 9110 §12.5.1): JSON (the
 * default) or CSV. Pure; the caller answers 406 in the error shape when nothing is acceptable and
 * sends `Vary: Accept` on every answer of these endpoints.
 *
 * Lenient by decision: a missing or empty Accept, and one of which no element parses, ask for the
 * default (JSON), as a client that sends no usable preference is best served the documented format;
 * a malformed element inside an otherwise readable list is skipped and the rest decides. A
 * well-formed Accept that allows neither format (`application/xml`, or every type at q=0) is the 406.
 */

import { trimOws } from './ows.ts';

/** The formats the data endpoints serve. */
export type DataFormat = 'json' | 'csv';

/** The Content-Type of each format. CSV's `header=present` is RFC 4180's parameter: the first row names the columns. */
export const DATA_CONTENT_TYPES: Readonly<Record<DataFormat, string>> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
};

/** One element of Accept: a media range (lower-cased), its parameters other than q (names lower-cased), and its weight. */
export interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/** Splits on `sep` outside quoted strings (a backslash escapes the next character inside quotes). */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === sep) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * A parameter value: a token, or a quoted-string unquoted (closed, escapes resolved); undefined when
 * neither (an unescaped `"` inside, or a closing quote that is escaped). One pass.
 */
function paramValue(raw: string): string | undefined {
  if (TOKEN.test(raw)) return raw;
  const last = raw.length - 1;
  if (last < 1 || raw.charCodeAt(0) !== 0x22 || raw.charCodeAt(last) !== 0x22) return undefined;
  let out = '';
  let from = 1;
  for (let i = 1; i < last; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x22) return undefined;
    if (c === 0x5c) {
      if (i + 1 >= last) return undefined;
      out += raw.slice(from, i);
      from = i + 1;
      i++;
    }
  }
  return out + raw.slice(from, last);
}

/** One Accept element, or undefined when it is malformed (the caller skips it). */
function parseElement(element: string): MediaRange | undefined {
  const [range, ...rawParams] = splitOutsideQuotes(element, ';');
  const slash = trimOws(range!).split('/');
  if (slash.length !== 2) return undefined;
  const [type, subtype] = slash as [string, string];
  if (!TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) return undefined;
  const params = new Map<string, string>();
  let q = 1;
  for (const raw of rawParams) {
    const p = trimOws(raw);
    if (p === '') continue;
    const eq = p.indexOf('=');
    if (eq <= 0) return undefined;
    const name = p.slice(0, eq).toLowerCase();
    const value = paramValue(p.slice(eq + 1));
    if (!TOKEN.test(name) || value === undefined) return undefined;
    if (name === 'q') {
      if (!QVALUE.test(value)) return undefined;
      q = Number(value);
    } else params.set(name, value);
  }
  return { type: type.toLowerCase(), subtype: subtype.toLowerCase(), params, q };
}

/**
 * The well-formed elements of an Accept field (several field lines are one list); empty elements and
 * malformed ones are skipped. Type, subtype and parameter names are case-insensitive (lower-cased);
 * weights follow `qvalue` (0 to 1, at most three decimals).
 */
export function parseAccept(value: string | readonly string[] | undefined): MediaRange[] {
  if (value === undefined) return [];
  const text = typeof value === 'string' ? value : value.join(', ');
  return splitOutsideQuotes(text, ',')
    .filter((e) => trimOws(e) !== '')
    .map(parseElement)
    .filter((r): r is MediaRange => r !== undefined);
}

const ALL_FORMATS: readonly DataFormat[] = ['json', 'csv'];

const OFFERS: readonly { format: DataFormat; type: string; subtype: string }[] = [
  { format: 'json', type: 'application', subtype: 'json' },
  { format: 'csv', type: 'text', subtype: 'csv' },
];

/**
 * Whether a range covers an offer. Both formats are UTF-8 only, so a range naming another charset
 * does not cover it; other parameters (`header`, `version`, …) do not narrow the match.
 */
function covers(r: MediaRange, offer: { type: string; subtype: string }): boolean {
  if (r.type !== '*' && (r.type !== offer.type || (r.subtype !== '*' && r.subtype !== offer.subtype))) return false;
  const charset = r.params.get('charset');
  return charset === undefined || charset.toLowerCase() === 'utf-8';
}

// Specificity: any/any 0, type/any 1, type/subtype 2, with parameters 3; the most specific covering range sets the weight.
function specificity(r: MediaRange): number {
  if (r.type === '*') return 0;
  if (r.subtype === '*') return 1;
  return r.params.size > 0 ? 3 : 2;
}

/** The weight Accept gives an offer: that of its most specific covering range (the highest among equals), 0 if none. */
function weightOf(ranges: readonly MediaRange[], offer: { type: string; subtype: string }): number {
  let best = -1;
  let q = 0;
  for (const r of ranges) {
    if (!covers(r, offer)) continue;
    const s = specificity(r);
    if (s > best) [best, q] = [s, r.q];
    else if (s === best && r.q > q) q = r.q;
  }
  return q;
}

/**
 * The format to answer a data request in: the acceptable one (weight above 0) with the higher
 * weight, JSON on a tie; undefined when Accept allows neither (→ 406). A missing or empty Accept,
 * or one with no well-formed element, is JSON. `text/*` reaches CSV only, `application/*` JSON only.
 */
export function negotiate(
  accept: string | readonly string[] | undefined,
  /** The formats the endpoint serves (default both); e.g. `['json']` for an endpoint without CSV. */
  formats: readonly DataFormat[] = ALL_FORMATS,
): DataFormat | undefined {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return formats.includes('json') ? 'json' : formats[0];
  let chosen: DataFormat | undefined;
  let chosenQ = 0;
  for (const offer of OFFERS) {
    if (!formats.includes(offer.format)) continue;
    const q = weightOf(ranges, offer);
    if (q > chosenQ) [chosen, chosenQ] = [offer.format, q];
  }
  return chosen;
}

/** The message of the 406 answer (error code `not_acceptable`) of an endpoint serving JSON and CSV. */
export const NOT_ACCEPTABLE_MESSAGE =
  'The Accept header allows neither application/json nor text/csv (UTF-8): send Accept: application/json, ' +
  'Accept: text/csv, or no Accept header for JSON.';

/** The message of the 406 answer of an endpoint serving JSON only. */
export const NOT_ACCEPTABLE_JSON_ONLY_MESSAGE =
  'The Accept header does not allow application/json (UTF-8), the only format of this endpoint: send ' +
  'Accept: application/json or no Accept header.';
