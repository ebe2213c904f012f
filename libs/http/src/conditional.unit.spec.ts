import { describe, expect, it } from 'vitest';
import {
  evaluateConditional,
  formatHttpDate,
  parseEntityTag,
  parseHttpDate,
  parseIfNoneMatch,
  strongEtag,
  strongMatch,
  weakMatch,
} from './conditional.ts';

const NOW = new Date('2026-11-24T06:00:00Z');

describe('parseIfNoneMatch', () => {
  it('absent field → undefined (no precondition)', () => {
    expect(parseIfNoneMatch(undefined)).toBeUndefined();
  });

  it('`*`, also with spaces or tabs around it, is "any"', () => {
    expect(parseIfNoneMatch('*')).toEqual({ kind: 'any' });
    expect(parseIfNoneMatch(' \t* ')).toEqual({ kind: 'any' });
  });

  it('one strong tag, one weak tag; the quotes belong to the opaque tag', () => {
    expect(parseIfNoneMatch('"abc"')).toEqual({ kind: 'tags', tags: [{ weak: false, opaque: '"abc"' }] });
    expect(parseIfNoneMatch('W/"abc"')).toEqual({ kind: 'tags', tags: [{ weak: true, opaque: '"abc"' }] });
  });

  it('a list with spaces, tabs and empty elements (§5.6.1 says ignore them)', () => {
    expect(parseIfNoneMatch(' , "a" ,\tW/"b",, ,"c",')).toEqual({
      kind: 'tags',
      tags: [
        { weak: false, opaque: '"a"' },
        { weak: true, opaque: '"b"' },
        { weak: false, opaque: '"c"' },
      ],
    });
  });

  it('a comma inside the quotes belongs to the tag, not to the list', () => {
    expect(parseIfNoneMatch('"a,b", "c"')).toEqual({
      kind: 'tags',
      tags: [
        { weak: false, opaque: '"a,b"' },
        { weak: false, opaque: '"c"' },
      ],
    });
  });

  it('the empty tag `""` and obs-text (Latin-1 bytes) are valid tags', () => {
    expect(parseIfNoneMatch('""')).toEqual({ kind: 'tags', tags: [{ weak: false, opaque: '""' }] });
    expect(parseIfNoneMatch('"caf\u00e9"')).toEqual({ kind: 'tags', tags: [{ weak: false, opaque: '"caf\u00e9"' }] });
  });

  it('several field lines are one list', () => {
    expect(parseIfNoneMatch(['"a"', 'W/"b"'])).toEqual({
      kind: 'tags',
      tags: [
        { weak: false, opaque: '"a"' },
        { weak: true, opaque: '"b"' },
      ],
    });
  });

  it('an empty field, or one of only commas and spaces, is an empty list (matches nothing)', () => {
    expect(parseIfNoneMatch('')).toEqual({ kind: 'tags', tags: [] });
    expect(parseIfNoneMatch(' , ,')).toEqual({ kind: 'tags', tags: [] });
  });

  it.each([
    ['an unquoted tag', 'abc'],
    ['a lower-case weak prefix (W/ is case-sensitive)', 'w/"abc"'],
    ['a space between W/ and the quote', 'W/ "abc"'],
    ['an unterminated quote', '"abc'],
    ['a space inside the quotes', '"a b"'],
    ['a control character inside the quotes', '"a\u0001b"'],
    ['a character above Latin-1 inside the quotes', '"a\u20acb"'],
    ['two tags without a comma', '"a" "b"'],
    ['text after a tag', '"a"x'],
    ['`*` in a list', '*, "a"'],
    ['`*` twice', '*, *'],
    ['a garbage element after a valid one', '"a", garbage'],
  ])('%s is malformed', (_, value) => {
    expect(parseIfNoneMatch(value)).toEqual({ kind: 'malformed' });
  });
});

describe('entity-tag comparison (§8.8.3.2)', () => {
  const strong = parseEntityTag('"1"')!;
  const weak = parseEntityTag('W/"1"')!;
  const other = parseEntityTag('"2"')!;

  it('weak comparison ignores the weak flag on either side', () => {
    expect(weakMatch(strong, strong)).toBe(true);
    expect(weakMatch(weak, strong)).toBe(true);
    expect(weakMatch(strong, weak)).toBe(true);
    expect(weakMatch(weak, weak)).toBe(true);
    expect(weakMatch(strong, other)).toBe(false);
  });

  it('strong comparison needs both strong and equal', () => {
    expect(strongMatch(strong, strong)).toBe(true);
    expect(strongMatch(weak, strong)).toBe(false);
    expect(strongMatch(weak, weak)).toBe(false);
    expect(strongMatch(strong, other)).toBe(false);
  });

  it('parseEntityTag takes exactly one tag', () => {
    expect(parseEntityTag('"a", "b"')).toBeUndefined();
    expect(parseEntityTag('*')).toBeUndefined();
    expect(parseEntityTag('a')).toBeUndefined();
  });
});

describe('strongEtag', () => {
  it('is a quoted base64url SHA-256: 43 characters in the quotes, a valid strong entity-tag', () => {
    const tag = strongEtag('{"data":[]}', 'json');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(parseEntityTag(tag)).toEqual({ weak: false, opaque: tag });
  });

  it('the same data gives different tags for JSON and CSV', () => {
    expect(strongEtag('same bytes', 'json')).not.toBe(strongEtag('same bytes', 'csv'));
  });

  it('equal content gives equal tags however it is chunked or encoded', () => {
    const whole = strongEtag('héllo world', 'csv');
    expect(strongEtag(Buffer.from('héllo world'), 'csv')).toBe(whole);
    expect(strongEtag(['hél', Buffer.from('lo '), 'world'], 'csv')).toBe(whole);
  });

  it('one changed byte changes the tag', () => {
    expect(strongEtag('{"value":1}', 'json')).not.toBe(strongEtag('{"value":2}', 'json'));
  });
});

describe('parseHttpDate', () => {
  const expected = new Date('1994-11-06T08:49:37Z');

  it('reads the three formats of §5.6.7 to the same instant', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toEqual(expected);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toEqual(expected);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW)).toEqual(expected);
  });

  it('asctime with a two-digit day', () => {
    expect(parseHttpDate('Thu Nov 12 08:49:37 2026', NOW)).toEqual(new Date('2026-11-12T08:49:37Z'));
  });

  it('rfc850 two-digit years: more than 50 years ahead of now is the previous century', () => {
    // now is 2026: 76 → 2076 is exactly 50 years ahead (kept); 77 → 2077 is more (1977).
    expect(parseHttpDate('Monday, 02-Jan-76 00:00:00 GMT', NOW)?.getUTCFullYear()).toBe(2076);
    expect(parseHttpDate('Saturday, 01-Jan-77 00:00:00 GMT', NOW)?.getUTCFullYear()).toBe(1977);
    expect(parseHttpDate('Tuesday, 24-Nov-26 00:00:00 GMT', NOW)?.getUTCFullYear()).toBe(2026);
  });

  it('spaces around the value are the field’s own and are trimmed', () => {
    expect(parseHttpDate('  Sun, 06 Nov 1994 08:49:37 GMT\t', NOW)).toEqual(expected);
  });

  it('a leap second :60 reads as :59 of that minute', () => {
    expect(parseHttpDate('Wed, 31 Dec 2016 23:59:60 GMT', NOW)).toEqual(new Date('2016-12-31T23:59:59Z'));
  });

  it.each([
    ['an ISO date', '1994-11-06T08:49:37Z'],
    ['a zone other than GMT', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['lower-case month (HTTP-date is case-sensitive)', 'Sun, 06 nov 1994 08:49:37 GMT'],
    ['an unknown day name', 'Sux, 06 Nov 1994 08:49:37 GMT'],
    ['a one-digit day in IMF-fixdate', 'Sun, 6 Nov 1994 08:49:37 GMT'],
    ['31 April', 'Thu, 31 Apr 2026 08:49:37 GMT'],
    ['29 February of a common year', 'Sun, 29 Feb 2026 00:00:00 GMT'],
    ['hour 24', 'Sun, 06 Nov 1994 24:00:00 GMT'],
    ['minute 60', 'Sun, 06 Nov 1994 08:60:00 GMT'],
    ['two dates (more than one member)', 'Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT'],
    ['a number', '784111777'],
    ['empty', ''],
  ])('%s → undefined', (_, value) => {
    expect(parseHttpDate(value, NOW)).toBeUndefined();
  });

  it('29 February of a leap year is a date', () => {
    expect(parseHttpDate('Thu, 29 Feb 2024 12:00:00 GMT', NOW)).toEqual(new Date('2024-02-29T12:00:00Z'));
  });
});

describe('formatHttpDate', () => {
  it('writes IMF-fixdate, seconds truncated', () => {
    expect(formatHttpDate(new Date('1994-11-06T08:49:37.999Z'))).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
    expect(formatHttpDate(new Date('2026-01-05T00:00:00Z'))).toBe('Mon, 05 Jan 2026 00:00:00 GMT');
  });

  it('round-trips through parseHttpDate', () => {
    const at = new Date('2026-11-24T06:02:50Z');
    expect(parseHttpDate(formatHttpDate(at), NOW)).toEqual(at);
  });

  it('refuses an invalid date and years without four digits', () => {
    expect(() => formatHttpDate(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => formatHttpDate(new Date('+010000-01-01T00:00:00Z'))).toThrow(RangeError);
  });
});

describe('evaluateConditional', () => {
  const etag = strongEtag('answer', 'json');
  const opaque = etag.slice(1, -1);
  const lastModified = new Date('2026-11-20T20:35:12.640Z');
  const validators = { etag, lastModified, now: NOW };
  const at = (iso: string) => formatHttpDate(new Date(iso));

  it('no conditional header → send', () => {
    expect(evaluateConditional({}, validators)).toBe('send');
  });

  it('If-None-Match with the current strong tag → not-modified', () => {
    expect(evaluateConditional({ 'if-none-match': etag }, validators)).toBe('not-modified');
  });

  it('If-None-Match with the current tag marked weak → not-modified (weak comparison)', () => {
    expect(evaluateConditional({ 'if-none-match': `W/${etag}` }, validators)).toBe('not-modified');
  });

  it('If-None-Match `*` → not-modified (the representation exists)', () => {
    expect(evaluateConditional({ 'if-none-match': '*' }, validators)).toBe('not-modified');
    expect(evaluateConditional({ 'if-none-match': '*' }, { now: NOW })).toBe('not-modified');
  });

  it('a list holding the current tag anywhere → not-modified; a list without it → send', () => {
    expect(evaluateConditional({ 'if-none-match': `"x", W/"y", ${etag}` }, validators)).toBe('not-modified');
    expect(evaluateConditional({ 'if-none-match': ['"x"', etag] }, validators)).toBe('not-modified');
    expect(evaluateConditional({ 'if-none-match': '"x", W/"y"' }, validators)).toBe('send');
  });

  it('the tag of the other variant (CSV for a JSON answer) → send', () => {
    expect(evaluateConditional({ 'if-none-match': strongEtag('answer', 'csv') }, validators)).toBe('send');
  });

  it('the opaque tag without quotes is malformed → send, never a 304', () => {
    expect(evaluateConditional({ 'if-none-match': opaque }, validators)).toBe('send');
  });

  it('garbage after the matching tag makes the field malformed → send', () => {
    expect(evaluateConditional({ 'if-none-match': `${etag}, garbage` }, validators)).toBe('send');
  });

  it('an empty If-None-Match matches nothing → send', () => {
    expect(evaluateConditional({ 'if-none-match': '' }, validators)).toBe('send');
  });

  it('no ETag on the answer: a tag list cannot match → send', () => {
    expect(evaluateConditional({ 'if-none-match': etag }, { lastModified, now: NOW })).toBe('send');
  });

  it('If-Modified-Since at or after Last-Modified (to the second) → not-modified', () => {
    expect(evaluateConditional({ 'if-modified-since': formatHttpDate(lastModified) }, validators)).toBe('not-modified');
    expect(evaluateConditional({ 'if-modified-since': at('2026-11-23T00:00:00Z') }, validators)).toBe('not-modified');
  });

  it('If-Modified-Since one second before Last-Modified → send', () => {
    expect(evaluateConditional({ 'if-modified-since': at('2026-11-20T20:35:11Z') }, validators)).toBe('send');
  });

  it('If-Modified-Since is ignored when If-None-Match is present, even a non-matching or malformed one', () => {
    const ims = at('2026-11-23T00:00:00Z');
    expect(evaluateConditional({ 'if-none-match': '"other"', 'if-modified-since': ims }, validators)).toBe('send');
    expect(evaluateConditional({ 'if-none-match': 'garbage', 'if-modified-since': ims }, validators)).toBe('send');
  });

  it('a matching If-None-Match wins over an old If-Modified-Since', () => {
    const old = at('2020-01-01T00:00:00Z');
    expect(evaluateConditional({ 'if-none-match': etag, 'if-modified-since': old }, validators)).toBe('not-modified');
  });

  it('If-Modified-Since in the future (later than now) is invalid → send', () => {
    expect(evaluateConditional({ 'if-modified-since': at('2026-11-24T06:00:01Z') }, validators)).toBe('send');
    expect(evaluateConditional({ 'if-modified-since': at('2026-11-24T06:00:00Z') }, validators)).toBe('not-modified');
  });

  it('If-Modified-Since that is not an HTTP-date → send', () => {
    expect(evaluateConditional({ 'if-modified-since': '2026-11-23' }, validators)).toBe('send');
    expect(evaluateConditional({ 'if-modified-since': 'yesterday' }, validators)).toBe('send');
  });

  it('If-Modified-Since on several field lines (more than one member) → send', () => {
    const d = at('2026-11-23T00:00:00Z');
    expect(evaluateConditional({ 'if-modified-since': [d, d] }, validators)).toBe('send');
  });

  it('If-Modified-Since in the obsolete formats works too', () => {
    expect(evaluateConditional({ 'if-modified-since': 'Mon Nov 23 00:00:00 2026' }, validators)).toBe('not-modified');
    expect(evaluateConditional({ 'if-modified-since': 'Monday, 23-Nov-26 00:00:00 GMT' }, validators)).toBe(
      'not-modified',
    );
  });

  it('no Last-Modified on the answer → If-Modified-Since cannot hold → send', () => {
    expect(evaluateConditional({ 'if-modified-since': at('2026-11-23T00:00:00Z') }, { etag, now: NOW })).toBe('send');
  });

  it('a server ETag that is not an entity-tag is a programming error, not a 304', () => {
    expect(() => evaluateConditional({ 'if-none-match': '"a"' }, { etag: 'a', now: NOW })).toThrow(/entity-tag/);
  });
});
