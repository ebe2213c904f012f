import { describe, expect, it } from 'vitest';
import { CotQuery, parseAsOf, SeriesQuery } from './params.ts';

/** The parameter a failed parse names (the first issue's path), or the parsed value. */
function parsed(schema: typeof SeriesQuery | typeof CotQuery, raw: Record<string, string>) {
  const r = schema.safeParse(raw);
  return r.success ? { ok: true as const, value: r.data } : { ok: false as const, param: r.error.issues[0]?.path[0] };
}

describe('parseAsOf', () => {
  it('reads a date as the end of that day in UTC', () => {
    expect(parseAsOf('2025-03-07')).toBe('2025-03-07T23:59:59.999Z');
    expect(parseAsOf('2024-02-29')).toBe('2024-02-29T23:59:59.999Z');
  });

  it('reads an RFC 3339 date-time as its instant, in UTC with milliseconds', () => {
    expect(parseAsOf('2025-03-07T20:31:00Z')).toBe('2025-03-07T20:31:00.000Z');
    expect(parseAsOf('2025-03-07T15:31:00-05:00')).toBe('2025-03-07T20:31:00.000Z');
    expect(parseAsOf('2025-03-08T01:31:00.5+05:00')).toBe('2025-03-07T20:31:00.500Z');
  });

  it('refuses anything else', () => {
    for (const raw of [
      '',
      'yesterday',
      '2025-02-30',
      '2025-3-7',
      '20250307',
      '2025-03-07T20:31:00', // no offset: which zone is unknown
      '2025-03-07 20:31:00Z',
      '2025-03-07T25:00:00Z',
      '1741379460000',
    ]) {
      expect(parseAsOf(raw), raw).toBeUndefined();
    }
  });
});

describe('SeriesQuery point in time', () => {
  it('normalizes as_of and reads first_release and include', () => {
    expect(
      parsed(SeriesQuery, { type: 'price', as_of: '2022-01-31', first_release: 'true', include: 'revisions' }),
    ).toMatchObject({
      ok: true,
      value: { as_of: '2022-01-31T23:59:59.999Z', first_release: true, include: 'revisions' },
    });
    expect(parsed(SeriesQuery, { type: 'price', first_release: 'false' })).toMatchObject({
      ok: true,
      value: { first_release: false },
    });
    const plain = SeriesQuery.parse({ type: 'price' });
    expect([plain.as_of, plain.first_release, plain.include]).toEqual([undefined, undefined, undefined]);
  });

  it('names the parameter of a malformed value', () => {
    expect(parsed(SeriesQuery, { type: 'price', as_of: '2022-13-01' })).toEqual({ ok: false, param: 'as_of' });
    expect(parsed(SeriesQuery, { type: 'price', first_release: 'yes' })).toEqual({ ok: false, param: 'first_release' });
    expect(parsed(SeriesQuery, { type: 'price', include: 'changes' })).toEqual({ ok: false, param: 'include' });
  });

  it('refuses include=revisions with a transform, naming include', () => {
    expect(parsed(SeriesQuery, { type: 'price', include: 'revisions', transform: 'change' })).toEqual({
      ok: false,
      param: 'include',
    });
    expect(parsed(SeriesQuery, { type: 'price', include: 'revisions', transform: 'none' }).ok).toBe(true);
  });
});

describe('CotQuery point in time', () => {
  it('takes as_of (normalized) but neither first_release nor include=revisions', () => {
    expect(parsed(CotQuery, { as_of: '2025-03-07T15:29:00-05:00' })).toMatchObject({
      ok: true,
      value: { as_of: '2025-03-07T20:29:00.000Z' },
    });
    expect(parsed(CotQuery, { as_of: '07/03/2025' })).toEqual({ ok: false, param: 'as_of' });
    expect(parsed(CotQuery, { first_release: 'true' }).ok).toBe(false);
    expect(parsed(CotQuery, { include: 'revisions' })).toEqual({ ok: false, param: 'include' });
  });
});

describe('CotQuery scope and format=cit', () => {
  it('scope is optional (the format decides its default) and takes futures_only or futures_and_options', () => {
    expect(parsed(CotQuery, {})).toMatchObject({ ok: true, value: { format: 'legacy' } });
    expect(parsed(CotQuery, {}).ok && 'scope' in (parsed(CotQuery, {}) as { value: object }).value).toBe(false);
    for (const scope of ['futures_only', 'futures_and_options']) {
      expect(parsed(CotQuery, { format: 'disaggregated', scope })).toMatchObject({ ok: true, value: { scope } });
    }
    expect(parsed(CotQuery, { format: 'cit' })).toMatchObject({ ok: true, value: { format: 'cit' } });
    expect(parsed(CotQuery, { format: 'cit', scope: 'futures_and_options' }).ok).toBe(true);
  });

  it('an unknown scope, and cit with futures_only, are refused naming scope', () => {
    for (const scope of ['options', 'combined', 'FUTURES_ONLY', '']) {
      expect(parsed(CotQuery, { scope })).toEqual({ ok: false, param: 'scope' });
    }
    expect(parsed(CotQuery, { format: 'cit', scope: 'futures_only' })).toEqual({ ok: false, param: 'scope' });
    expect(parsed(CotQuery, { format: 'financial' })).toEqual({ ok: false, param: 'format' });
  });
});
