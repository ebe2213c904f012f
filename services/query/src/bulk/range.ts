import { isOws, parseEntityTag, strongMatch } from '@cds/http';

/** What a download answers: the whole file, one byte range of it (inclusive), or 416. */
export type RangeAnswer =
  { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

const WHOLE: RangeAnswer = { kind: 'whole' };

/**
 * `bytes OWS = OWS [first] OWS - OWS [last] OWS` (unit case-insensitive), the two digit strings, or
 * undefined. One pass with an index: a regex of this shape (`[ \t]*(\d*)[ \t]*$`) backtracks
 * quadratically on a run of spaces not followed by the end.
 */
function rangeSpec(text: string): [first: string, last: string] | undefined {
  const n = text.length;
  if (n < 6 || text.slice(0, 5).toLowerCase() !== 'bytes') return undefined;
  let i = 5;
  const skipOws = (): void => {
    while (i < n && isOws(text.charCodeAt(i))) i++;
  };
  const digits = (): string => {
    const from = i;
    while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    return text.slice(from, i);
  };
  skipOws();
  if (text.charCodeAt(i) !== 0x3d) return undefined;
  i++;
  skipOws();
  const first = digits();
  skipOws();
  if (text.charCodeAt(i) !== 0x2d) return undefined;
  i++;
  skipOws();
  const last = digits();
  skipOws();
  return i === n ? [first, last] : undefined;
}

/**
 * The Range header of a GET of a file of `size` bytes (RFC 9110 §14.2), served for one range only:
 * `bytes=first-last` (last past the end is the end), `bytes=first-`, `bytes=-suffix` (the last
 * suffix bytes). A range that starts past the end, or a zero suffix, is unsatisfiable (416). A
 * header that is absent, malformed, of another unit, or asks for several ranges is ignored: the
 * whole file is sent, as the RFC allows.
 */
export function parseRange(header: string | readonly string[] | undefined, size: number): RangeAnswer {
  if (typeof header !== 'string') return WHOLE;
  const spec = rangeSpec(header.trim());
  if (spec === undefined) return WHOLE;
  const [first, last] = spec;
  if (first === '' && last === '') return WHOLE;
  if (first === '') {
    const suffix = Number(last);
    if (!Number.isSafeInteger(suffix)) return WHOLE;
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return WHOLE;
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}

/**
 * Whether a range request's If-Range lets the range apply (RFC 9110 §13.1.5): absent, or the
 * current strong entity tag, or an HTTP-date equal to Last-Modified (to the second). Otherwise the
 * copy the client continues is not the current file and the whole file is sent.
 */
export function ifRangeHolds(
  header: string | readonly string[] | undefined,
  current: { etag: string; lastModified: Date },
): boolean {
  if (header === undefined) return true;
  if (typeof header !== 'string') return false;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/')) {
    const tag = parseEntityTag(value);
    const ours = parseEntityTag(current.etag);
    return tag !== undefined && ours !== undefined && strongMatch(tag, ours);
  }
  const date = Date.parse(value);
  return Number.isFinite(date) && Math.floor(current.lastModified.getTime() / 1000) * 1000 === date;
}
