import { describe, expect, it } from 'vitest';
import { CotQuery, ListCommoditiesQuery, SeriesQuery } from '@cds/contracts';
import { parseParams } from './params.ts';

describe('ListCommoditiesQuery', () => {
  it('applies the defaults', () => {
    expect(parseParams(ListCommoditiesQuery, {})).toEqual({
      ok: true,
      value: { sort_order: 'asc', page: 1, per_page: 25 },
    });
  });
  it('parses every parameter', () => {
    const r = parseParams(ListCommoditiesQuery, {
      category: 'energy',
      search: 'oil',
      sort_order: 'desc',
      page: '3',
      per_page: '100',
    });
    expect(r).toEqual({
      ok: true,
      value: { category: 'energy', search: 'oil', sort_order: 'desc', page: 3, per_page: 100 },
    });
  });
  it.each([
    [{ per_page: '0' }, 'per_page'],
    [{ per_page: '101' }, 'per_page'],
    [{ page: '0' }, 'page'],
    [{ page: '1e309' }, 'page'],
    [{ page: '1.5' }, 'page'],
    [{ page: '+1' }, 'page'],
    [{ page: ' 1' }, 'page'],
    [{ page: '' }, 'page'],
    [{ page: '99999999999999999999' }, 'page'],
    [{ page: '9007199254740992' }, 'page'],
    [{ category: 'crypto' }, 'category'],
    [{ sort_order: 'up' }, 'sort_order'],
    [{ search: 'x'.repeat(101) }, 'search'],
    [{ foo: 'bar' }, 'foo'],
    [{ page: ['1', '2'] }, 'page'],
  ])('rejects %j naming %s', (raw, param) => {
    const r = parseParams(ListCommoditiesQuery, raw);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.param).toBe(param);
      expect(r.message).toContain(param);
    }
  });
  it('accepts any page up to 2^53 - 1 (a far page is answered empty, not refused)', () => {
    expect(parseParams(ListCommoditiesQuery, { page: '248583618' })).toMatchObject({
      ok: true,
      value: { page: 248583618 },
    });
    expect(parseParams(ListCommoditiesQuery, { page: '9007199254740991' })).toMatchObject({
      ok: true,
      value: { page: Number.MAX_SAFE_INTEGER },
    });
  });
  it('accepts an empty search (no filter: the handler drops it)', () => {
    expect(parseParams(ListCommoditiesQuery, { search: '' })).toMatchObject({ ok: true, value: { search: '' } });
  });
  it("names the query string as a whole when a parameter has no name ('?=false')", () => {
    for (const raw of [{ '': 'false' }, { '': '' }, { category: 'energy', '': 'x' }]) {
      expect(parseParams(ListCommoditiesQuery, raw)).toEqual({
        ok: false,
        param: 'query',
        message: 'a query parameter has an empty name',
      });
    }
  });
  it('takes regex and operator characters as plain text', () => {
    const r = parseParams(ListCommoditiesQuery, { search: '.*$ne{}[' });
    expect(r).toMatchObject({ ok: true, value: { search: '.*$ne{}[' } });
  });
  it('ignores the parameters it is told to (api_key)', () => {
    expect(parseParams(ListCommoditiesQuery, { api_key: 'k' }, { ignore: ['api_key'] }).ok).toBe(true);
    expect(parseParams(ListCommoditiesQuery, { api_key: 'k' })).toMatchObject({ ok: false, param: 'api_key' });
  });
});

describe('SeriesQuery', () => {
  it('requires type and defaults transform and sort_order', () => {
    expect(parseParams(SeriesQuery, {})).toEqual({ ok: false, param: 'type', message: "'type' is required" });
    expect(parseParams(SeriesQuery, { type: 'price' })).toEqual({
      ok: true,
      value: { type: 'price', transform: 'none', sort_order: 'asc' },
    });
  });
  it('limit is 1..10000', () => {
    expect(parseParams(SeriesQuery, { type: 'price', limit: '10000' })).toMatchObject({
      ok: true,
      value: { limit: 10000 },
    });
    expect(parseParams(SeriesQuery, { type: 'price', limit: '1' })).toMatchObject({ ok: true, value: { limit: 1 } });
    expect(parseParams(SeriesQuery, { type: 'price', limit: '10001' })).toMatchObject({ ok: false, param: 'limit' });
    expect(parseParams(SeriesQuery, { type: 'price', limit: '0' })).toMatchObject({ ok: false, param: 'limit' });
  });
  it.each([
    [{ type: 'weather' }, 'type'],
    [{ type: 'cot_legacy' }, 'type'],
    [{ type: 'price', start_date: '2024-02-30' }, 'start_date'],
    [{ type: 'price', end_date: '2024/01/01' }, 'end_date'],
    [{ type: 'price', frequency: 'hourly' }, 'frequency'],
    [{ type: 'price', transform: 'log' }, 'transform'],
    [{ type: 'price', start_date: '2024-03-02', end_date: '2024-03-01' }, 'start_date'],
  ])('rejects %j naming %s', (raw, param) => {
    expect(parseParams(SeriesQuery, raw)).toMatchObject({ ok: false, param });
  });
  it('a date error says what shape is expected', () => {
    expect(parseParams(SeriesQuery, { type: 'price', start_date: '2024-02-30' })).toMatchObject({
      message: expect.stringContaining('YYYY-MM-DD'),
    });
  });
  it('accepts start_date equal to end_date', () => {
    expect(parseParams(SeriesQuery, { type: 'price', start_date: '2024-03-01', end_date: '2024-03-01' }).ok).toBe(true);
  });
});

describe('CotQuery', () => {
  it('defaults to legacy, newest first, page 1 of 25', () => {
    expect(parseParams(CotQuery, {})).toEqual({
      ok: true,
      value: { format: 'legacy', sort_order: 'desc', page: 1, per_page: 25, index_weeks: 156 },
    });
  });
  it('include: distinct known analytics in any order, normalized; anything else is a 400 on include', () => {
    expect(parseParams(CotQuery, { include: 'cot_index,changes' })).toMatchObject({
      ok: true,
      value: { include: ['changes', 'cot_index'] },
    });
    for (const include of ['', ',', 'changes,', ',changes', 'changes,changes', 'net', 'CHANGES', 'changes pct_of_oi']) {
      expect(parseParams(CotQuery, { include }), include).toMatchObject({ ok: false, param: 'include' });
    }
    expect(parseParams(CotQuery, { include: ['changes', 'pct_of_oi'] })).toMatchObject({ ok: false, param: 'include' });
  });
  it('index_weeks: a whole number from 26 to 520', () => {
    expect(parseParams(CotQuery, { index_weeks: '26' })).toMatchObject({ ok: true, value: { index_weeks: 26 } });
    expect(parseParams(CotQuery, { index_weeks: '520' })).toMatchObject({ ok: true, value: { index_weeks: 520 } });
    for (const index_weeks of ['25', '521', '52.0', '-52', '', '1e2']) {
      expect(parseParams(CotQuery, { index_weeks }), index_weeks).toMatchObject({ ok: false, param: 'index_weeks' });
    }
  });
  it('rejects an unknown format and a reversed range', () => {
    expect(parseParams(CotQuery, { format: 'tff' })).toMatchObject({ ok: false, param: 'format' });
    expect(parseParams(CotQuery, { start_date: '2024-01-02', end_date: '2024-01-01' })).toMatchObject({
      ok: false,
      param: 'start_date',
    });
  });
});
