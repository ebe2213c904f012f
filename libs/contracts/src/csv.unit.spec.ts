import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import {
  contentDisposition,
  cotCsvColumns,
  csvChunks,
  csvField,
  csvFileName,
  DEFAULT_CSV_CHUNK_ROWS,
  listCsvColumns,
  MAX_CSV_FILE_NAME,
  seriesCsvColumns,
  type CsvColumn,
} from './csv.ts';
import { COT_INCLUDES } from './params.ts';
import { CommodityListResponse, CotResponse, SeriesResponse } from './resources.ts';

const meta = { page: 1, per_page: 25, total: 4, total_pages: 1, request_id: 'req_1' };

/** Sample answers, each accepted by its response schema, with the awkward values CSV must carry. */
const list = CommodityListResponse.parse({
  data: [
    {
      id: 'CORN',
      name: 'Corn, "No. 2" Yellow',
      symbol: 'ZC',
      category: 'agriculture',
      exchange: 'CBOT',
      unit: 'USc/bu',
    },
    { id: 'CRUDE_OIL_WTI', name: 'Crude oil\r\nWest Texas\nIntermediate', category: 'energy', unit: 'USD/bbl' },
    { id: 'GOLD', name: 'Gold — fine, 99.5 % (Troy oz)', symbol: 'GC', category: 'metals', exchange: 'COMEX' },
    { id: 'SILVER', name: 'Silver\nspot', symbol: 'SI"', category: 'metals', exchange: ' COMEX ' },
  ],
  meta,
});

const seriesMeta = {
  commodity_id: 'CORN',
  type: 'price',
  frequency: 'daily',
  transform: 'none',
  count: 4,
  request_id: 'req_2',
};
const priceSeries = SeriesResponse.parse({
  data: [
    { date: '2025-01-02', value: 456.25, open: 450, high: 460.5, low: 449.75, close: 456.25, volume: 123456 },
    { date: '2025-01-03', value: 0.30000000000000004, open: 1e21, high: 1e-7, low: -0, close: 0.1, volume: 0 },
    { date: '2025-01-06', value: 9007199254740991 },
    { date: '2025-01-07', value: -12.5, close: -12.5 },
  ],
  meta: seriesMeta,
});
const transformedSeries = SeriesResponse.parse({
  data: [
    { date: '2025-01-03', value: -0.000001 },
    { date: '2025-01-06', value: 123.456789 },
  ],
  meta: { ...seriesMeta, transform: 'pct_change', unit: 'percent', count: 2 },
});

const legacyGroups = {
  commercial: { long: 120, short: 240, net: -120 },
  non_commercial: { long: 300, short: 100, spreading: 50, net: 200 },
  non_reportable: { long: 30, short: 110, net: -80 },
};
const legacyCot = CotResponse.parse({
  data: [
    {
      report_date: '2025-01-07',
      commodity: 'CORN',
      exchange: 'CBOT',
      format: 'legacy',
      open_interest: 500,
      ...legacyGroups,
      changes: {
        open_interest: -20,
        commercial: { long: 20, short: -10, net: 30 },
        non_commercial: { long: -5, short: 0, spreading: 7, net: -5 },
        non_reportable: { long: 0, short: 3, net: -3 },
      },
      pct_of_oi: {
        commercial: { long: 24, short: 48 },
        non_commercial: { long: 60, short: 20, spreading: 10 },
        non_reportable: { long: 6, short: 22 },
      },
      cot_index: { commercial: 33.3, non_commercial: null, non_reportable: 100 },
      source: 'cftc:legacy:002602',
      last_updated: '2025-01-10T20:35:12.640Z',
    },
    // The first report of the commodity: no changes, no index yet; open interest 0: no percents.
    { report_date: '2024-12-31', commodity: 'CORN', format: 'legacy', open_interest: 0, ...legacyGroups },
  ],
  meta: { ...meta, total: 2 },
});
const disaggregatedCot = CotResponse.parse({
  data: [
    {
      report_date: '2025-01-07',
      commodity: 'GOLD',
      format: 'disaggregated',
      open_interest: 1000,
      producer_merchant: { long: 10, short: 20, net: -10 },
      swap_dealer: { long: 30, short: 40, spreading: 5, net: -10 },
      managed_money: { long: 400, short: 50, spreading: 60, net: 350 },
      other_reportable: { long: 70, short: 80, spreading: 90, net: -10 },
      pct_of_oi: {
        producer_merchant: { long: 1, short: 2 },
        swap_dealer: { long: 3, short: 4, spreading: 0.5 },
        managed_money: { long: 40, short: 5, spreading: 6 },
        other_reportable: { long: 7, short: 8, spreading: 9 },
      },
      source: 'cftc:disaggregated:088691',
    },
  ],
  meta: { ...meta, total: 1 },
});

// A combined legacy answer and a CIT one: each report names its scope; a failed check is JSON only.
const combinedCot = CotResponse.parse({
  data: [
    {
      ...legacyCot.data[0],
      scope: 'futures_and_options',
      failed_checks: ['combined_oi_at_least_futures_only'],
    },
  ],
  meta: { ...meta, total: 1 },
});
const citCot = CotResponse.parse({
  data: [
    {
      report_date: '2025-01-07',
      commodity: 'CORN',
      format: 'cit',
      scope: 'futures_and_options',
      open_interest: 1000,
      commercial: { long: 100, short: 300, net: -200 },
      non_commercial: { long: 250, short: 100, spreading: 40, net: 150 },
      index_traders: { long: 300, short: 20, net: 280 },
      non_reportable: { long: 60, short: 90, net: -30 },
      changes: {
        open_interest: 10,
        commercial: { long: 1, short: 2, net: -1 },
        non_commercial: { long: 3, short: 4, spreading: 5, net: -1 },
        index_traders: { long: 6, short: 7, net: -1 },
        non_reportable: { long: 8, short: 9, net: -1 },
      },
      cot_index: { commercial: 12.5, non_commercial: 50, index_traders: null, non_reportable: 100 },
      source: 'cftc:cit:002602',
    },
  ],
  meta: { ...meta, total: 1 },
});

function csvOf(columns: readonly CsvColumn[], rows: Iterable<unknown>, rowsPerChunk?: number): string {
  return [...csvChunks(columns, rows, rowsPerChunk === undefined ? {} : { rowsPerChunk })].join('');
}

/** Every leaf of a JSON value with its path, as the client receives it (after JSON serialization). */
function leaves(value: unknown, path: string[] = []): [string[], unknown][] {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  }
  return [[path, value]];
}

/**
 * Parses the CSV with csv-parse and checks it against the JSON the service would send: the header
 * is the columns; every leaf of every item sits in its column exactly as JSON prints it (numbers
 * read back to the same value); every other cell is empty.
 */
function expectCsvEqualsJson(columns: readonly CsvColumn[], data: readonly unknown[], csv: string) {
  // Any line break ends a record here, as in readers that split on LF: only quoting keeps one in a value.
  const records: string[][] = parse(csv, { record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: false });
  expect(records[0]).toEqual(columns.map((c) => c.name));
  expect(records).toHaveLength(data.length + 1);
  const json = JSON.parse(JSON.stringify(data)) as unknown[];
  json.forEach((item, i) => {
    const row = records[i + 1]!;
    const byName = new Map(columns.map((c, j) => [c.name, row[j]!]));
    const expected = new Map(columns.map((c) => [c.name, '']));
    for (const [path, value] of leaves(item)) {
      const name = path.join('_');
      expect(byName.has(name), `column ${name} exists`).toBe(true);
      if (typeof value === 'number') {
        expect(Number(byName.get(name)), name).toBe(value);
        expected.set(name, JSON.stringify(value));
      } else if (typeof value === 'string') {
        expected.set(name, value);
      } else {
        expect(value, name).toBeNull(); // the answers hold no booleans
        expected.set(name, '');
      }
    }
    expect(Object.fromEntries(byName)).toEqual(Object.fromEntries(expected));
  });
}

describe('columns, derived from the contract schemas', () => {
  it('list: every field of a commodity summary', () => {
    expect(listCsvColumns().map((c) => c.name)).toEqual(['id', 'name', 'symbol', 'category', 'exchange', 'unit']);
  });

  it('series: date and value; untransformed price adds open, high, low, close, volume', () => {
    expect(seriesCsvColumns({ type: 'price', transform: 'none' }).map((c) => c.name)).toEqual([
      'date',
      'value',
      'open',
      'high',
      'low',
      'close',
      'volume',
    ]);
    expect(seriesCsvColumns({ type: 'price', transform: 'change' }).map((c) => c.name)).toEqual(['date', 'value']);
    expect(seriesCsvColumns({ type: 'stocks', transform: 'none' }).map((c) => c.name)).toEqual(['date', 'value']);
  });

  it('COT legacy without analytics: base fields, groups flattened (spreading only where the group has it), provenance', () => {
    expect(cotCsvColumns({ format: 'legacy' }).map((c) => c.name)).toEqual([
      'report_date',
      'commodity',
      'format',
      'exchange',
      'open_interest',
      'commercial_long',
      'commercial_short',
      'commercial_net',
      'non_commercial_long',
      'non_commercial_short',
      'non_commercial_spreading',
      'non_commercial_net',
      'non_reportable_long',
      'non_reportable_short',
      'non_reportable_net',
      'source',
      'last_updated',
    ]);
  });

  it('COT in scope futures_and_options: scope follows format; futures_only (or none) keeps the columns as they were', () => {
    const plain = cotCsvColumns({ format: 'legacy' }).map((c) => c.name);
    expect(cotCsvColumns({ format: 'legacy', scope: 'futures_only' }).map((c) => c.name)).toEqual(plain);
    expect(plain).not.toContain('scope');
    const combined = cotCsvColumns({ format: 'legacy', scope: 'futures_and_options' }).map((c) => c.name);
    expect(combined).toEqual([...plain.slice(0, 3), 'scope', ...plain.slice(3)]);
    const dis = cotCsvColumns({ format: 'disaggregated', scope: 'futures_and_options', include: ['changes'] });
    expect(dis.map((c) => c.name).slice(0, 6)).toEqual([
      'report_date',
      'commodity',
      'format',
      'scope',
      'exchange',
      'open_interest',
    ]);
    for (const names of [plain, combined]) expect(names.some((n) => n.startsWith('failed_checks'))).toBe(false);
  });

  it('COT cit: scope always (its only scope is combined), then its four groups and their analytics', () => {
    const names = cotCsvColumns({ format: 'cit', include: ['changes', 'pct_of_oi', 'cot_index'] }).map((c) => c.name);
    expect(cotCsvColumns({ format: 'cit', scope: 'futures_and_options' })).toEqual(cotCsvColumns({ format: 'cit' }));
    expect(names.slice(0, 23)).toEqual([
      'report_date',
      'commodity',
      'format',
      'scope',
      'exchange',
      'open_interest',
      'commercial_long',
      'commercial_short',
      'commercial_net',
      'non_commercial_long',
      'non_commercial_short',
      'non_commercial_spreading',
      'non_commercial_net',
      'index_traders_long',
      'index_traders_short',
      'index_traders_net',
      'non_reportable_long',
      'non_reportable_short',
      'non_reportable_net',
      'changes_open_interest',
      'changes_commercial_long',
      'changes_commercial_short',
      'changes_commercial_net',
    ]);
    expect(names).toContain('pct_of_oi_index_traders_long');
    expect(names).toContain('cot_index_index_traders');
    expect(names.slice(-2)).toEqual(['source', 'last_updated']);
  });

  it('COT disaggregated with every analytic: changes, pct_of_oi, cot_index columns in that order, whatever the include order', () => {
    const names = cotCsvColumns({ format: 'disaggregated', include: ['cot_index', 'changes', 'pct_of_oi'] }).map(
      (c) => c.name,
    );
    expect(names.slice(5, 9)).toEqual([
      'producer_merchant_long',
      'producer_merchant_short',
      'producer_merchant_net',
      'swap_dealer_long',
    ]);
    const analytics = names.filter((n) => /^(changes|pct_of_oi|cot_index)_/.test(n));
    expect(analytics).toEqual([
      'changes_open_interest',
      'changes_producer_merchant_long',
      'changes_producer_merchant_short',
      'changes_producer_merchant_net',
      'changes_swap_dealer_long',
      'changes_swap_dealer_short',
      'changes_swap_dealer_spreading',
      'changes_swap_dealer_net',
      'changes_managed_money_long',
      'changes_managed_money_short',
      'changes_managed_money_spreading',
      'changes_managed_money_net',
      'changes_other_reportable_long',
      'changes_other_reportable_short',
      'changes_other_reportable_spreading',
      'changes_other_reportable_net',
      'pct_of_oi_producer_merchant_long',
      'pct_of_oi_producer_merchant_short',
      'pct_of_oi_swap_dealer_long',
      'pct_of_oi_swap_dealer_short',
      'pct_of_oi_swap_dealer_spreading',
      'pct_of_oi_managed_money_long',
      'pct_of_oi_managed_money_short',
      'pct_of_oi_managed_money_spreading',
      'pct_of_oi_other_reportable_long',
      'pct_of_oi_other_reportable_short',
      'pct_of_oi_other_reportable_spreading',
      'cot_index_producer_merchant',
      'cot_index_swap_dealer',
      'cot_index_managed_money',
      'cot_index_other_reportable',
    ]);
    expect(names.slice(-2)).toEqual(['source', 'last_updated']);
    expect(new Set(names).size).toBe(names.length);
  });

  it('COT: only the included analytics get columns', () => {
    const names = cotCsvColumns({ format: 'legacy', include: ['pct_of_oi'] }).map((c) => c.name);
    expect(names.some((n) => n.startsWith('pct_of_oi_'))).toBe(true);
    expect(names.some((n) => n.startsWith('changes_') || n.startsWith('cot_index_'))).toBe(false);
    expect(cotCsvColumns({ format: 'legacy', include: [] })).toEqual(cotCsvColumns({ format: 'legacy' }));
  });
});

describe('csvField', () => {
  it('null and undefined → empty field', () => {
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });

  it.each([
    [0, '0'],
    [-0, '0'],
    [456.25, '456.25'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [-12.5, '-12.5'],
    [9007199254740991, '9007199254740991'],
  ])('number %s prints as JSON.stringify prints it: %s', (n, text) => {
    expect(csvField(n)).toBe(text);
    expect(csvField(n)).toBe(JSON.stringify(n));
  });

  it('non-finite numbers (JSON null) → empty field', () => {
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(Number.POSITIVE_INFINITY)).toBe('');
  });

  it('strings are bare unless they hold a quote, comma, CR or LF; quotes are doubled', () => {
    expect(csvField('plain text; with spaces')).toBe('plain text; with spaces');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('')).toBe('');
    expect(csvField('"')).toBe('""""');
  });

  it('booleans print true/false; objects and bigints are refused (a column must point at a leaf)', () => {
    expect(csvField(true)).toBe('true');
    expect(csvField(false)).toBe('false');
    expect(() => csvField({ long: 1 })).toThrow(TypeError);
    expect(() => csvField(1n)).toThrow(TypeError);
  });
});

describe('CSV answers read back by a real parser (csv-parse) equal the JSON, value for value', () => {
  it('list, with quotes, commas, CRLF, a lone LF, spaces at the ends and non-ASCII in values, and absent fields', () => {
    expectCsvEqualsJson(listCsvColumns(), list.data, csvOf(listCsvColumns(), list.data));
  });

  it('untransformed price series with float noise, 1e21, 1e-7, -0, 2^53-1 and missing OHLCV fields', () => {
    const columns = seriesCsvColumns({ type: 'price', transform: 'none' });
    expectCsvEqualsJson(columns, priceSeries.data, csvOf(columns, priceSeries.data));
  });

  it('transformed series: date and value only', () => {
    const columns = seriesCsvColumns({ type: 'price', transform: 'pct_change' });
    expectCsvEqualsJson(columns, transformedSeries.data, csvOf(columns, transformedSeries.data));
  });

  it('COT legacy with every analytic, a null index, a first report without analytics', () => {
    const columns = cotCsvColumns({ format: 'legacy', include: [...COT_INCLUDES] });
    expectCsvEqualsJson(columns, legacyCot.data, csvOf(columns, legacyCot.data));
  });

  it('COT disaggregated with pct_of_oi only', () => {
    const columns = cotCsvColumns({ format: 'disaggregated', include: ['pct_of_oi'] });
    expectCsvEqualsJson(columns, disaggregatedCot.data, csvOf(columns, disaggregatedCot.data));
  });

  it("COT legacy combined: the scope column carries each report's scope; failed_checks is JSON only", () => {
    const columns = cotCsvColumns({ format: 'legacy', scope: 'futures_and_options', include: [...COT_INCLUDES] });
    const text = csvOf(columns, combinedCot.data);
    const { failed_checks: _f, ...withoutChecks } = combinedCot.data[0]!;
    expectCsvEqualsJson(columns, [withoutChecks], text);
    expect(text).not.toContain('combined_oi_at_least_futures_only');
  });

  it('COT cit with changes and cot_index, a null index', () => {
    const columns = cotCsvColumns({ format: 'cit', include: ['changes', 'cot_index'] });
    expectCsvEqualsJson(columns, citCot.data, csvOf(columns, citCot.data));
  });

  it('a data array with no items gives the header row only', () => {
    const csv = csvOf(listCsvColumns(), []);
    expect(csv).toBe('id,name,symbol,category,exchange,unit\r\n');
    expectCsvEqualsJson(listCsvColumns(), [], csv);
  });

  it('records end in CRLF, including the last; a LF inside a quoted name is data', () => {
    const csv = csvOf(listCsvColumns(), list.data);
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv).toContain('"Crude oil\r\nWest Texas\nIntermediate"');
    expect(csv.split('\r\n')).toHaveLength(list.data.length + 3); // one record holds an inner CRLF
  });
});

describe('csvChunks streams', () => {
  const columns = seriesCsvColumns({ type: 'price', transform: 'none' });
  const point = (i: number) => ({
    date: new Date(Date.UTC(2000, 0, 1 + i)).toISOString().slice(0, 10),
    value: i / 8,
    open: i,
    high: i + 1,
    low: i - 1,
    close: i / 8,
    volume: i * 10,
  });

  it('a 10,000-point series: the header comes first alone, then one chunk per rowsPerChunk rows, pulling rows lazily', () => {
    let pulled = 0;
    function* source() {
      for (let i = 0; i < 10_000; i++) {
        pulled++;
        yield point(i);
      }
    }
    const chunks = csvChunks(columns, source(), { rowsPerChunk: 500 });
    expect(chunks.next().value).toBe('date,value,open,high,low,close,volume\r\n');
    expect(pulled).toBe(0);
    const first = chunks.next().value!;
    expect(pulled).toBe(500);
    expect(first.split('\r\n')).toHaveLength(501);
    const rest = [...chunks];
    expect(rest).toHaveLength(19);
    expect(pulled).toBe(10_000);
    const records = parse(['date,value,open,high,low,close,volume\r\n', first, ...rest].join(''), { columns: true });
    expect(records).toHaveLength(10_000);
    expect(records[9_999]).toEqual({
      date: '2027-05-18',
      value: '1249.875',
      open: '9999',
      high: '10000',
      low: '9998',
      close: '1249.875',
      volume: '99990',
    });
  });

  it('a partial last chunk is sent; the default chunk size applies when none is given', () => {
    const points = Array.from({ length: DEFAULT_CSV_CHUNK_ROWS + 3 }, (_, i) => point(i));
    const chunks = [...csvChunks(columns, points)];
    expect(chunks).toHaveLength(3);
    expect(chunks[2]!.split('\r\n')).toHaveLength(4);
  });

  it('through Readable.from, the first bytes arrive before the source is exhausted', async () => {
    let pulled = 0;
    function* source() {
      for (let i = 0; i < 10_000; i++) {
        pulled++;
        yield point(i);
      }
    }
    const stream = Readable.from(csvChunks(columns, source(), { rowsPerChunk: 100 }), { highWaterMark: 1 });
    const received: string[] = [];
    for await (const chunk of stream) {
      received.push(chunk as string);
      if (received.length === 2) {
        expect(pulled).toBeLessThan(10_000);
        expect(pulled).toBeGreaterThanOrEqual(100);
      }
    }
    expect(received).toHaveLength(101);
    expect(parse(received.join(''), { columns: true })).toHaveLength(10_000);
  });

  it('rowsPerChunk must be a positive integer', () => {
    expect(() => [...csvChunks(columns, [], { rowsPerChunk: 0 })]).toThrow(RangeError);
    expect(() => [...csvChunks(columns, [], { rowsPerChunk: 1.5 })]).toThrow(RangeError);
  });
});

describe('csvFileName', () => {
  it('series: commodity, type and dates', () => {
    expect(
      csvFileName({
        endpoint: 'series',
        commodity: 'CORN',
        type: 'price',
        start_date: '2025-01-01',
        end_date: '2025-12-31',
      }),
    ).toBe('CORN-series-price-2025-01-01_2025-12-31.csv');
  });

  it('series: frequency and a transform other than none are named; none is not', () => {
    const base = {
      endpoint: 'series',
      commodity: 'CORN',
      type: 'price',
      start_date: '2025-01-01',
      end_date: '2025-12-31',
    } as const;
    expect(csvFileName({ ...base, frequency: 'weekly', transform: 'pct_change' })).toBe(
      'CORN-series-price-weekly-pct_change-2025-01-01_2025-12-31.csv',
    );
    expect(csvFileName({ ...base, transform: 'none' })).toBe('CORN-series-price-2025-01-01_2025-12-31.csv');
  });

  it('cot: the dataset names the file (combined and cit apart from futures-only)', () => {
    expect(csvFileName({ endpoint: 'cot', commodity: 'CORN', format: 'legacy_combined' })).toBe(
      'CORN-cot-legacy_combined.csv',
    );
    expect(csvFileName({ endpoint: 'cot', commodity: 'CORN', format: 'cit', page: 2 })).toBe('CORN-cot-cit-page-2.csv');
    expect(
      csvFileName({ endpoint: 'cot', commodity: 'CORN', format: 'disaggregated_combined', start_date: '2024-01-01' }),
    ).toBe('CORN-cot-disaggregated_combined-from-2024-01-01.csv');
  });

  it('cot: format, open-ended date ranges, pages after the first', () => {
    expect(csvFileName({ endpoint: 'cot', commodity: 'GOLD', format: 'legacy' })).toBe('GOLD-cot-legacy.csv');
    expect(csvFileName({ endpoint: 'cot', commodity: 'GOLD', format: 'legacy', start_date: '2024-01-01' })).toBe(
      'GOLD-cot-legacy-from-2024-01-01.csv',
    );
    expect(
      csvFileName({ endpoint: 'cot', commodity: 'GOLD', format: 'disaggregated', end_date: '2024-12-31', page: 2 }),
    ).toBe('GOLD-cot-disaggregated-to-2024-12-31-page-2.csv');
    expect(csvFileName({ endpoint: 'cot', commodity: 'GOLD', format: 'legacy', page: 1 })).toBe('GOLD-cot-legacy.csv');
  });

  it('point in time: the as_of instant (without colons) and first_release are named', () => {
    const base = {
      endpoint: 'series',
      commodity: 'CORN',
      type: 'price',
      start_date: '2025-01-01',
      end_date: '2025-12-31',
    } as const;
    expect(csvFileName({ ...base, as_of: '2025-11-20T23:59:59.999Z', first_release: true })).toBe(
      'CORN-series-price-2025-01-01_2025-12-31-asof-2025-11-20T235959.999Z-first-release.csv',
    );
    expect(csvFileName({ ...base, first_release: false })).toBe('CORN-series-price-2025-01-01_2025-12-31.csv');
    expect(
      csvFileName({ endpoint: 'cot', commodity: 'GOLD', format: 'legacy', as_of: '2025-01-31T20:31:00.000Z', page: 2 }),
    ).toBe('GOLD-cot-legacy-asof-2025-01-31T203100.000Z-page-2.csv');
  });

  it('list: category and page', () => {
    expect(csvFileName({ endpoint: 'list' })).toBe('commodities.csv');
    expect(csvFileName({ endpoint: 'list', category: 'energy', page: 3 })).toBe('commodities-energy-page-3.csv');
  });

  it('characters outside [A-Za-z0-9._-] in a part become _', () => {
    expect(csvFileName({ endpoint: 'cot', commodity: 'A/B "C"', format: 'x\r\ny' })).toBe('A_B_C_-cot-x_y.csv');
  });
});

describe('contentDisposition (RFC 6266)', () => {
  it('an attachment with the quoted file name', () => {
    expect(contentDisposition('CORN-series-price-2025-01-01_2025-12-31.csv')).toBe(
      'attachment; filename="CORN-series-price-2025-01-01_2025-12-31.csv"',
    );
  });

  it.each([
    ['path separators and dot-dot', '../../etc/passwd', 'attachment; filename="etc_passwd.csv"'],
    ['quotes and backslashes', 'a"b\\c.csv', 'attachment; filename="a_b_c.csv"'],
    ['CR LF (header injection)', 'x\r\nSet-Cookie: a=b', 'attachment; filename="x_Set-Cookie_a_b.csv"'],
    ['non-ASCII', 'café-données', 'attachment; filename="caf_-donn_es.csv"'],
    ['nothing usable', '"""', 'attachment; filename="data.csv"'],
    ['empty', '', 'attachment; filename="data.csv"'],
    ['no .csv extension', 'prices', 'attachment; filename="prices.csv"'],
    ['an upper-case extension', 'prices.CSV', 'attachment; filename="prices.csv"'],
  ])('%s are made safe', (_, name, header) => {
    expect(contentDisposition(name)).toBe(header);
  });

  it('every result is printable ASCII from the safe set and at most MAX_CSV_FILE_NAME long', () => {
    const long = contentDisposition(`${'X'.repeat(500)}.csv`);
    const name = /^attachment; filename="([A-Za-z0-9._-]+)"$/.exec(long)![1]!;
    expect(name).toHaveLength(MAX_CSV_FILE_NAME);
    expect(name.endsWith('.csv')).toBe(true);
  });
});
