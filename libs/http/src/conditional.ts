import { createHash } from 'node:crypto';
import { isOws, trimOws } from './ows.ts';

/**
 * Conditional GET and HEAD (RFC 9110 §8.8 and §13): entity-tags, HTTP-dates and the evaluation of
 * If-None-Match / If-Modified-Since to "not modified" (304) or "send" (200). Pure: the clock is
 * passed in. The caller evaluates only for a GET or HEAD whose answer would be a 200 (a precondition
 * is ignored on any other answer, §13.2.1).
 *
 * Malformed fields never produce a 304: the server can only claim that the client's copy is current
 * when it understood what the client holds. So an If-None-Match that is not `*` or a list of
 * entity-tags matches nothing (send), and because it is present, If-Modified-Since is not consulted
 * either (§13.1.3); an If-Modified-Since that is not an HTTP-date, or lies in the future, is ignored.
 */

/** An entity-tag (§8.8.3): `opaque` is the quoted string as sent, quotes included. */
export interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/** A parsed If-None-Match: `*`, a list of entity-tags (possibly empty), or a value outside the grammar. */
export type IfNoneMatch =
  | { readonly kind: 'any' }
  | { readonly kind: 'tags'; readonly tags: readonly EntityTag[] }
  | { readonly kind: 'malformed' };

/** A header as Node gives it: a string, several lines of a repeated field, or absent. */
export type HeaderValue = string | readonly string[] | undefined;

const MALFORMED: IfNoneMatch = { kind: 'malformed' };

/** etagc = %x21 / %x23-7E / obs-text (%x80-FF): any visible character but `"`, and no space or control. */
function isEtagc(code: number): boolean {
  return code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
}

/**
 * Parses If-None-Match: `"*"` / `#entity-tag` (§13.1.2). List rules (§5.6.1): elements separated by
 * commas with optional spaces or tabs around them, empty elements ignored. `W/` is case-sensitive
 * and a tag must be quoted; a comma inside the quotes belongs to the tag. Several field lines are
 * one list. Returns undefined when the field is absent.
 */
export function parseIfNoneMatch(value: HeaderValue): IfNoneMatch | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : value.join(', ');
  if (trimOws(text) === '*') return { kind: 'any' };
  const tags: EntityTag[] = [];
  let i = 0;
  const n = text.length;
  for (;;) {
    while (i < n && (isOws(text.charCodeAt(i)) || text.charCodeAt(i) === 0x2c)) i++;
    if (i >= n) return { kind: 'tags', tags };
    let weak = false;
    if (text.startsWith('W/', i)) {
      weak = true;
      i += 2;
    }
    if (text.charCodeAt(i) !== 0x22) return MALFORMED;
    const start = i;
    i++;
    while (i < n && isEtagc(text.charCodeAt(i))) i++;
    if (i >= n || text.charCodeAt(i) !== 0x22) return MALFORMED;
    i++;
    tags.push({ weak, opaque: text.slice(start, i) });
    while (i < n && isOws(text.charCodeAt(i))) i++;
    if (i < n && text.charCodeAt(i) !== 0x2c) return MALFORMED;
  }
}

/** Parses one entity-tag as a server would send it (`"…"` or `W/"…"`); undefined when it is not one. */
export function parseEntityTag(value: string): EntityTag | undefined {
  const parsed = parseIfNoneMatch(value);
  return parsed?.kind === 'tags' && parsed.tags.length === 1 ? parsed.tags[0] : undefined;
}

/** Weak comparison (§8.8.3.2): the opaque tags are equal, whether either is weak or not. */
export function weakMatch(a: EntityTag, b: EntityTag): boolean {
  return a.opaque === b.opaque;
}

/** Strong comparison (§8.8.3.2): neither is weak and the opaque tags are equal. */
export function strongMatch(a: EntityTag, b: EntityTag): boolean {
  return !a.weak && !b.weak && a.opaque === b.opaque;
}

/** The representations whose ETags must differ for the same data. */
export type EtagVariant = 'json' | 'csv';

/**
 * A strong ETag from a content hash: `"<base64url of SHA-256>"` (43 characters in the quotes) over
 * the variant's name and the content, so the JSON and CSV forms of one answer get different tags
 * even when the caller hashes the same bytes for both (for example the cached JSON body, from which
 * the CSV is derived). Equal content and variant give equal tags; any change of a byte changes it.
 */
export function strongEtag(content: string | Uint8Array | Iterable<string | Uint8Array>, variant: EtagVariant): string {
  const hash = createHash('sha256').update(`${variant}\n`);
  if (typeof content === 'string' || content instanceof Uint8Array) hash.update(content);
  else for (const chunk of content) hash.update(chunk);
  return `"${hash.digest('base64url')}"`;
}

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const LONG_DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const DAY = DAY_NAMES.join('|');
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** Sun, 06 Nov 1994 08:49:37 GMT */
const IMF_FIXDATE = new RegExp(`^(?:${DAY}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
/** Sunday, 06-Nov-94 08:49:37 GMT (obsolete) */
const RFC850_DATE = new RegExp(`^(?:${LONG_DAY_NAMES.join('|')}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
/** Sun Nov  6 08:49:37 1994 (obsolete; a one-digit day is padded with a space) */
const ASCTIME_DATE = new RegExp(`^(?:${DAY}) (${MONTH}) ((?:\\d| )\\d) ${TIME} (\\d{4})$`);

/** Characters of the longest HTTP-date: `Wednesday, 06-Nov-94 08:49:37 GMT`. */
const MAX_HTTP_DATE_LENGTH = 33;

function instant(year: number, month: string, day: number, h: string, m: string, s: string): Date | undefined {
  const mon = MONTHS.indexOf(month as (typeof MONTHS)[number]);
  const [hh, mm, ss] = [Number(h), Number(m), Number(s)];
  if (hh > 23 || mm > 59 || ss > 60) return undefined;
  // A leap second (:60) is the last second of its minute; Date cannot hold it.
  const ms = Date.UTC(year, mon, day, hh, mm, Math.min(ss, 59));
  const at = new Date(ms);
  // Date.UTC rolls over (Feb 30 → Mar 2): a day that is not in its month is no date.
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== mon || at.getUTCDate() !== day) return undefined;
  return at;
}

/**
 * Parses an HTTP-date (§5.6.7) in any of its three formats: IMF-fixdate, and the obsolete
 * rfc850-date and asctime-date, which recipients must accept. Case-sensitive, as the grammar is;
 * the day name must be a day name but is not checked against the date. An rfc850 two-digit year
 * that would lie more than 50 years after `now` is the latest past year with those digits.
 * Returns undefined for anything else, including impossible dates (31 Apr) and surrounding spaces
 * beyond the field's own trimming.
 */
export function parseHttpDate(value: string, now: Date): Date | undefined {
  const text = trimOws(value);
  // The longest HTTP-date (an rfc850-date) has 33 characters: anything longer is none, unread.
  if (text.length > MAX_HTTP_DATE_LENGTH) return undefined;
  let m = IMF_FIXDATE.exec(text);
  if (m !== null) return instant(Number(m[3]), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  m = RFC850_DATE.exec(text);
  if (m !== null) {
    const yy = Number(m[3]);
    const thisYear = now.getUTCFullYear();
    let year = thisYear - (thisYear % 100) + yy;
    if (year > thisYear + 50) year -= 100;
    else if (year < thisYear - 50) year += 100;
    return instant(year, m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  }
  m = ASCTIME_DATE.exec(text);
  if (m !== null) return instant(Number(m[6]), m[1]!, Number(m[2]!.trim()), m[3]!, m[4]!, m[5]!);
  return undefined;
}

/** The IMF-fixdate of an instant, for Last-Modified and Date: `Tue, 24 Nov 2026 06:02:50 GMT` (seconds truncated). */
export function formatHttpDate(at: Date): string {
  const ms = at.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('formatHttpDate: invalid date');
  const y = at.getUTCFullYear();
  if (y < 1000 || y > 9999) throw new RangeError(`formatHttpDate: year ${y} has no HTTP-date`);
  const two = (v: number) => String(v).padStart(2, '0');
  return (
    `${DAY_NAMES[at.getUTCDay()]}, ${two(at.getUTCDate())} ${MONTHS[at.getUTCMonth()]} ${y} ` +
    `${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())} GMT`
  );
}

/** The validators of the representation the server would send with a 200. */
export interface Validators {
  /** The ETag the 200 would carry (a strong one from strongEtag); absent: no tag matches but `*`. */
  readonly etag?: string | undefined;
  /** The Last-Modified the 200 would carry; compared at second precision, as it is sent. */
  readonly lastModified?: Date | undefined;
  /** The server's current time: an If-Modified-Since later than it is invalid (§13.1.3). */
  readonly now: Date;
}

/** Request headers by lower-case name, as Node's IncomingMessage has them. */
export type ConditionalHeaders = Readonly<Record<string, HeaderValue>>;

/**
 * RFC 9110 §13.2.2 for a GET or HEAD whose answer would be a 200, steps 3 and 4:
 * - If-None-Match present: `*` → not-modified (the representation exists); a list → not-modified
 *   when one of its tags matches the ETag weakly (§13.1.2); malformed or no match → send.
 *   If-Modified-Since is then not consulted.
 * - Else If-Modified-Since: not-modified when it is a valid HTTP-date, not later than `now`, and
 *   Last-Modified (to the second) is not later than it; otherwise (invalid, future, several field
 *   lines, no Last-Modified) send.
 * - Neither: send.
 */
export function evaluateConditional(headers: ConditionalHeaders, validators: Validators): 'not-modified' | 'send' {
  const inm = parseIfNoneMatch(headers['if-none-match']);
  if (inm !== undefined) {
    if (inm.kind === 'any') return 'not-modified';
    if (inm.kind === 'malformed' || validators.etag === undefined) return 'send';
    const current = parseEntityTag(validators.etag);
    if (current === undefined) throw new Error(`evaluateConditional: ${validators.etag} is not an entity-tag`);
    return inm.tags.some((t) => weakMatch(t, current)) ? 'not-modified' : 'send';
  }
  const ims = headers['if-modified-since'];
  if (ims === undefined || validators.lastModified === undefined) return 'send';
  const lines = typeof ims === 'string' ? [ims] : ims;
  if (lines.length !== 1) return 'send';
  const since = parseHttpDate(lines[0]!, validators.now);
  if (since === undefined || since.getTime() > validators.now.getTime()) return 'send';
  const modifiedSecond = Math.floor(validators.lastModified.getTime() / 1000) * 1000;
  return modifiedSecond <= since.getTime() ? 'not-modified' : 'send';
}

/**
 * Header fields a 304 carries when the 200 would have (§15.4.5), beside the rate limit headers and
 * X-Request-Id the gateway adds to every answer; a 304 has no body and no Content-Length of its own.
 */
export const NOT_MODIFIED_HEADERS = ['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary'] as const;
