import { describe, expect, it } from 'vitest';
import { evaluateConditional, parseHttpDate, parseIfNoneMatch } from './conditional.ts';
import { BOUNDED_HEADERS, MAX_NEGOTIATION_HEADER_LENGTH, overlongHeader } from './header-bounds.ts';
import { negotiate, parseAccept } from './negotiate.ts';
import { trimOws } from './ows.ts';
import { createQueryStringParser } from './query-string.ts';
import { costRatio } from './testing.ts';

// Every parser of a request header or the query string costs time linear in its input: an input
// ten times longer costs about ten times more (a quadratic parser: a hundred). Pathological
// shapes: long runs of inner whitespace (what a regex trim backtracks on), thousands of list
// elements, many quoted ETags, long dates. Ratios of CPU time with a wide margin, never a clock bound.
const LINEAR = 30;

const NOW = new Date('2026-12-06T12:00:00Z');
const ETAG = `"${'A'.repeat(43)}"`;

/** `n` spaces between two characters: `x<spaces>y` (the shape a regex trim is quadratic on). */
const inner = (n: number, ws = ' ') => `x${ws.repeat(n)}y`;
/** `n` list elements. */
const list = (n: number, element: string, sep = ', ') => Array.from({ length: n }, () => element).join(sep);

describe('linear-time parsing of request headers', () => {
  it.each([
    ['trimOws, inner spaces', trimOws, inner(800), inner(8000)],
    ['trimOws, inner tabs', trimOws, inner(800, '\t'), inner(8000, '\t')],
    ['Accept, one element with 8 KB of inner spaces', negotiate, inner(800), inner(8000)],
    [
      'Accept, a media range with spaces before its parameters',
      negotiate,
      `text/csv${' '.repeat(800)};q=0.5`,
      `text/csv${' '.repeat(8000)};q=0.5`,
    ],
    ['Accept, spaces inside a parameter', negotiate, `text/csv;a=${inner(800)}`, `text/csv;a=${inner(8000)}`],
    [
      'Accept, an unclosed quoted parameter',
      negotiate,
      `text/csv;a="${'\\"'.repeat(400)}`,
      `text/csv;a="${'\\"'.repeat(4000)}`,
    ],
    ['Accept, thousands of elements', negotiate, list(100, 'text/html;q=0.5'), list(1000, 'text/html;q=0.5')],
    ['Accept, thousands of empty elements', negotiate, list(400, '', ' ,'), list(4000, '', ' ,')],
    ['Accept, many parameters', negotiate, `text/csv${';a=b'.repeat(200)}`, `text/csv${';a=b'.repeat(2000)}`],
    [
      'parseAccept, spaces around commas',
      parseAccept,
      list(100, 'a/b', `${' '.repeat(8)},${' '.repeat(8)}`),
      list(1000, 'a/b', `${' '.repeat(8)},${' '.repeat(8)}`),
    ],
    ['If-None-Match, inner spaces', parseIfNoneMatch, `"a"${' '.repeat(800)}"b"`, `"a"${' '.repeat(8000)}"b"`],
    ['If-None-Match, many quoted ETags', parseIfNoneMatch, list(20, ETAG), list(200, ETAG)],
    [
      'If-None-Match, many weak ETags without spaces',
      parseIfNoneMatch,
      list(40, `W/${ETAG}`, ','),
      list(400, `W/${ETAG}`, ','),
    ],
    ['If-None-Match, an unclosed tag', parseIfNoneMatch, `"${'a'.repeat(800)}`, `"${'a'.repeat(8000)}`],
    [
      'If-Modified-Since, a long date',
      (v: string) => parseHttpDate(v, NOW),
      `Sun, 06 Nov 1994 08:49:37 GMT${' '.repeat(800)}x`,
      `Sun, 06 Nov 1994 08:49:37 GMT${' '.repeat(8000)}x`,
    ],
    ['If-Modified-Since, inner spaces', (v: string) => parseHttpDate(v, NOW), inner(800), inner(8000)],
    [
      'a conditional evaluation over many tags',
      (v: string) => evaluateConditional({ 'if-none-match': v }, { etag: `"${'B'.repeat(43)}"`, now: NOW }),
      list(20, ETAG),
      list(200, ETAG),
    ],
  ] as const)('%s', (_, parse, short, long) => {
    expect(long.length / short.length).toBeGreaterThan(9);
    expect(costRatio(parse as (v: string) => unknown, short, long)).toBeLessThan(LINEAR);
  });

  it('reads the query string in linear time (the parser behind the URL bound)', () => {
    const parse = createQueryStringParser();
    // Longer than 256 characters: never remembered, parsed on each call.
    const qs = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=${'%20'.repeat(4)}`).join('&');
    expect(costRatio(parse, qs(100), qs(1000))).toBeLessThan(LINEAR);
  });

  it('still parses what the grammar allows, whatever the whitespace', () => {
    expect(negotiate(`text/csv${' '.repeat(5000)};${' '.repeat(5000)}q=1`)).toBe('csv');
    expect(negotiate(`${' '.repeat(5000)}text/csv${'\t'.repeat(5000)}`)).toBe('csv');
    expect(negotiate(inner(8000))).toBe('json'); // no readable element: the default
    expect(negotiate('text/csv;a="b\\"c";q=0.5, application/json;q=0.4')).toBe('csv');
    expect(parseAccept('text/csv;a="b\\"c\\\\"')[0]?.params.get('a')).toBe('b"c\\');
    expect(parseAccept('text/csv;a="b\\"')).toEqual([]); // the closing quote is escaped
    expect(parseAccept('text/csv;a="b"c"')).toEqual([]); // a bare quote inside
    const tags = parseIfNoneMatch(`${' '.repeat(3000)}${list(500, ETAG)}${' '.repeat(3000)}`);
    expect(tags).toMatchObject({ kind: 'tags' });
    expect(tags?.kind === 'tags' && tags.tags.length).toBe(500);
    expect(parseIfNoneMatch(`${' '.repeat(3000)}*\t`)).toEqual({ kind: 'any' });
    expect(parseHttpDate(`  Sun, 06 Nov 1994 08:49:37 GMT\t`, NOW)?.toISOString()).toBe('1994-11-06T08:49:37.000Z');
    expect(parseHttpDate(`Sun, 06 Nov 1994 08:49:37 GMT${' '.repeat(10)}x`, NOW)).toBeUndefined();
  });
});

describe('header bounds', () => {
  it('refuses each negotiation and conditional header over 1 KiB, naming it, and nothing at the bound', () => {
    for (const [name, param] of BOUNDED_HEADERS) {
      expect(overlongHeader({ [name]: 'a'.repeat(MAX_NEGOTIATION_HEADER_LENGTH) })).toBeUndefined();
      const error = overlongHeader({ [name]: 'a'.repeat(MAX_NEGOTIATION_HEADER_LENGTH + 1) });
      expect(error).toMatchObject({ code: 'invalid_parameter', statusCode: 400, param });
      expect(error?.message).toContain(`${MAX_NEGOTIATION_HEADER_LENGTH}`);
    }
    // Several field lines together (a field Node keeps as an array).
    const half = 'a'.repeat(600);
    expect(overlongHeader({ accept: [half, half] })).toMatchObject({ param: 'Accept' });
    // Other headers are bounded only by the request head (Node's maxHeaderSize).
    expect(overlongHeader({ 'user-agent': 'a'.repeat(5000), host: 'x' })).toBeUndefined();
  });
});
