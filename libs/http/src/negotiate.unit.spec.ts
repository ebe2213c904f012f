import { describe, expect, it } from 'vitest';
import { DATA_CONTENT_TYPES, negotiate, parseAccept } from './negotiate.ts';

describe('negotiate', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['only spaces and commas', ' , ,\t'],
  ])('%s Accept → json (the default)', (_, accept) => {
    expect(negotiate(accept)).toBe('json');
  });

  it.each([
    ['application/json', 'json'],
    ['text/csv', 'csv'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['text/*', 'csv'],
  ] as const)('%s → %s', (accept, format) => {
    expect(negotiate(accept)).toBe(format);
  });

  it('type, subtype and parameter names are case-insensitive', () => {
    expect(negotiate('TEXT/CSV')).toBe('csv');
    expect(negotiate('Text/Csv; Q=1, application/json; q=0.5')).toBe('csv');
    expect(negotiate('Application/JSON')).toBe('json');
  });

  it('the higher weight wins', () => {
    expect(negotiate('application/json;q=0.5, text/csv')).toBe('csv');
    expect(negotiate('text/csv;q=0.4, application/json;q=0.9')).toBe('json');
    expect(negotiate('text/csv;q=0.001, application/json;q=0')).toBe('csv');
  });

  it('ties → json, whatever the order', () => {
    expect(negotiate('text/csv, application/json')).toBe('json');
    expect(negotiate('text/csv;q=0.5, application/json;q=0.5')).toBe('json');
    expect(negotiate('text/csv, */*')).toBe('json');
  });

  it('q=0 means not acceptable', () => {
    expect(negotiate('text/csv;q=0')).toBeUndefined();
    expect(negotiate('*/*;q=0')).toBeUndefined();
    expect(negotiate('application/json;q=0, text/csv;q=0.0')).toBeUndefined();
    expect(negotiate('application/json;q=0, */*')).toBe('csv');
  });

  it('a more specific range overrides a less specific one (§12.5.1)', () => {
    expect(negotiate('text/*;q=0.9, text/csv;q=0, application/json;q=0.1')).toBe('json');
    expect(negotiate('*/*, application/json;q=0')).toBe('csv');
    expect(negotiate('*/*;q=0, text/csv;q=0.2')).toBe('csv');
    expect(negotiate('text/csv;q=0.2, text/csv;header=present;q=0.9, application/json;q=0.5')).toBe('csv');
  });

  it('among equally specific ranges the highest weight counts', () => {
    expect(negotiate('text/csv;q=0.2, text/csv;q=0.8, application/json;q=0.5')).toBe('csv');
  });

  it('charset: utf-8 (any case, quoted or not) is served; another charset does not cover the type', () => {
    expect(negotiate('text/csv; charset=utf-8')).toBe('csv');
    expect(negotiate('text/csv; charset="UTF-8"')).toBe('csv');
    expect(negotiate('text/csv; charset=iso-8859-1')).toBeUndefined();
    expect(negotiate('text/csv; charset=iso-8859-1, application/json;q=0.1')).toBe('json');
  });

  it('other parameters do not narrow the match (header, quoted values with commas and semicolons)', () => {
    expect(negotiate('text/csv; header=present')).toBe('csv');
    expect(negotiate('text/csv; x="a,b;c", application/json;q=0.5')).toBe('csv');
  });

  it('formats the data endpoints do not serve → undefined (406)', () => {
    expect(negotiate('application/xml')).toBeUndefined();
    expect(negotiate('text/html')).toBeUndefined();
    expect(negotiate('image/*')).toBeUndefined();
    expect(negotiate('application/xml, text/plain;q=0.5')).toBeUndefined();
  });

  it('a browser Accept → json (through */*)', () => {
    expect(negotiate('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe('json');
  });

  it('several field lines are one list', () => {
    expect(negotiate(['application/json;q=0.1', 'text/csv'])).toBe('csv');
  });

  it('spaces and tabs around elements and parameters', () => {
    expect(negotiate(' \ttext/csv \t; \tq=0.9 , application/json ; q=0.3 ')).toBe('csv');
  });

  it.each([
    ['no slash', 'csv'],
    ['a wildcard type with a subtype', '*/csv'],
    ['two slashes', 'text/csv/x'],
    ['a space inside the range', 'text /csv'],
    ['q above 1', 'text/csv;q=2'],
    ['q with four decimals', 'text/csv;q=0.1234'],
    ['q not a number', 'text/csv;q=high'],
    ['q negative', 'text/csv;q=-1'],
    ['a parameter without a value', 'text/csv;charset'],
    ['an unterminated quoted value', 'text/csv;x="abc'],
  ])('malformed element alone (%s) → json (lenient)', (_, accept) => {
    expect(negotiate(accept)).toBe('json');
  });

  it('a malformed element beside well-formed ones is skipped; the rest decides', () => {
    expect(negotiate('text/csv;q=2, application/xml')).toBeUndefined();
    expect(negotiate('garbage, text/csv')).toBe('csv');
    expect(negotiate('text/csv;q=high, application/json;q=0.1')).toBe('json');
  });

  it('empty parameters (a trailing semicolon) are allowed', () => {
    expect(negotiate('text/csv;')).toBe('csv');
    expect(negotiate('text/csv; ;q=1')).toBe('csv');
  });
});

describe('parseAccept', () => {
  it('reads ranges, parameters and weights, lower-casing names', () => {
    const [csv, json] = parseAccept('Text/CSV; Charset="UTF-8"; Q=0.5, application/json');
    expect(csv).toEqual({ type: 'text', subtype: 'csv', params: new Map([['charset', 'UTF-8']]), q: 0.5 });
    expect(json).toEqual({ type: 'application', subtype: 'json', params: new Map(), q: 1 });
  });

  it('unquotes quoted parameter values and their escapes', () => {
    expect(parseAccept('text/csv; x="a\\"b,c"')[0]?.params.get('x')).toBe('a"b,c');
  });

  it('q accepts 1.000 and 0. (qvalue grammar) but not 1.001', () => {
    expect(parseAccept('a/b;q=1.000')[0]?.q).toBe(1);
    expect(parseAccept('a/b;q=0.')[0]?.q).toBe(0);
    expect(parseAccept('a/b;q=1.001')).toEqual([]);
  });
});

describe('DATA_CONTENT_TYPES', () => {
  it('the CSV type says UTF-8 and that a header row is present (RFC 4180)', () => {
    expect(DATA_CONTENT_TYPES.csv).toBe('text/csv; charset=utf-8; header=present');
    expect(DATA_CONTENT_TYPES.json).toBe('application/json; charset=utf-8');
  });

  it('each content type negotiates to its own format', () => {
    expect(negotiate(DATA_CONTENT_TYPES.csv)).toBe('csv');
    expect(negotiate(DATA_CONTENT_TYPES.json)).toBe('json');
  });
});
