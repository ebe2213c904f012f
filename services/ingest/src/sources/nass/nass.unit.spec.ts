import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunked, collect, ownFixturePath, realFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { createCatalogIndex } from '../../catalog/index.ts';
import { COMMODITIES } from '../registry.ts';
import { parseCsvRecord } from '../common/csv.ts';
import { createParseStats } from '../common/stats.ts';
import type { SeriesItem, SourceItem } from '../types.ts';
import { nassPeriodDate } from './map-row.ts';
import { nassQueryUrl } from './fetch.ts';
import { parseNassCsv, parseNassJson } from './parse.ts';
import { CATALOG } from '../registry.ts';

const API_JSON = realFixturePath('nass_quickstats_api_corn_yield_va_2012.json');
const CORN_CSV = realFixturePath('nass_quickstats_corn_yield_states_2025_excerpt.csv');
const SOY_CSV = realFixturePath('nass_quickstats_soybeans_acres_planted_county_2023_excerpt.csv');
const series = (items: SourceItem[]) => items.filter((i): i is SeriesItem => i.kind === 'series');

describe('NASS periods', () => {
  it('dates annual values at year end, point-in-time stocks on their day, and skips forecasts', () => {
    expect(nassPeriodDate(2025, 'YEAR')).toEqual({ date: '2025-12-31' });
    expect(nassPeriodDate(2024, 'FIRST OF MAR')).toEqual({ date: '2024-03-01' });
    expect(nassPeriodDate(2025, 'YEAR - AUG FORECAST')).toEqual({ skip: 'forecast' });
    expect(nassPeriodDate(2025, 'MARKETING YEAR')).toEqual({ skip: 'other_period' });
  });
});

describe('NASS Quick Stats CSV (real excerpts)', () => {
  it('maps national rows only by default: the state-level corn file yields nothing, every row counted', async () => {
    const stats = createParseStats();
    const items = await collect(parseNassCsv(chunked(CORN_CSV), { catalog: CATALOG, file: 'corn.csv', stats }));
    expect(items).toEqual([]);
    expect(stats.rows).toBe(13);
    expect(stats.skippedByReason).toEqual({ other_location: 13 });
  });

  it('maps one chosen state: the final YEAR row becomes yield on YYYY-12-31, forecasts are skipped', async () => {
    const stats = createParseStats();
    const items = series(
      await collect(
        parseNassCsv(chunked(CORN_CSV, 50), {
          catalog: CATALOG,
          file: 'corn.csv',
          stats,
          filter: { level: 'STATE', state: 'IOWA' },
        }),
      ),
    );
    const raw = readFileSync(CORN_CSV, 'utf8')
      .split('\n')
      .filter((l) => l.includes(',IOWA,') && l.includes(',YEAR,'));
    expect(raw).toHaveLength(1);
    const cells = parseCsvRecord(raw[0]!)!;
    expect(items).toEqual([
      {
        kind: 'series',
        commodity_id: 'CORN',
        series_type: 'yield',
        frequency: 'monthly',
        unit: 'bu/acre',
        source: 'nass:CORN, GRAIN - YIELD, MEASURED IN BU / ACRE',
        point: { date: `${cells[1]}-12-31`, value: Number(cells[19]) },
      },
    ]);
    expect(items[0]!.point).toEqual({ date: '2025-12-31', value: 210 });
    expect(stats.skippedByReason).toEqual({ other_location: 9, forecast: 3 });
  });

  it('reads the fully quoted web export with thousands separators ("11,100")', async () => {
    const items = series(
      await collect(
        parseNassCsv(chunked(SOY_CSV, 64), {
          catalog: CATALOG,
          file: 'soy.csv',
          filter: { level: 'COUNTY', state: 'ALABAMA', county: 'DALLAS' },
        }),
      ),
    );
    expect(items).toEqual([
      {
        kind: 'series',
        commodity_id: 'SOYBEANS',
        series_type: 'planted_acres',
        frequency: 'monthly',
        unit: 'acres',
        source: 'nass:SOYBEANS - ACRES PLANTED',
        point: { date: '2023-12-31', value: 11100 },
      },
    ]);
  });

  it('skips withheld values like (D) and rejects malformed rows with their line', async () => {
    const [header, row] = readFileSync(SOY_CSV, 'utf8').split('\n');
    const withheld = row!.replace('"DALLAS","047"', '"ELMORE","051"').replace('"11,100"', '"(D)"');
    const bad = row!.replace('"11,100"', '"11.1.1"');
    const short = '"SURVEY","2023"';
    const stats = createParseStats();
    const items = await collect(
      parseNassCsv([[header, withheld, bad, short, row].join('\r\n')], {
        catalog: CATALOG,
        file: 's.csv',
        stats,
        filter: { level: 'COUNTY', state: 'ALABAMA', county: 'DALLAS' },
      }),
    );
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([
      { kind: 'rejected', file: 's.csv', line: 3, reason: 'value is not a number "11.1.1"' },
      { kind: 'rejected', file: 's.csv', line: 4, reason: 'expected 21 fields, got 2' },
    ]);
    expect(series(items)).toHaveLength(1);
    expect(stats.skippedByReason).toEqual({ other_location: 1 });

    const stats2 = createParseStats();
    await collect(
      parseNassCsv([[header, withheld].join('\n')], {
        catalog: CATALOG,
        file: 's.csv',
        stats: stats2,
        filter: { level: 'COUNTY', state: 'ALABAMA', county: 'ELMORE' },
      }),
    );
    expect(stats2.skippedByReason).toEqual({ withheld: 1 });
  });
});

describe('NASS Quick Stats API JSON (real response)', () => {
  it('skips census and forecast rows by default, counting why', async () => {
    const stats = createParseStats();
    const items = await collect(
      parseNassJson(chunked(API_JSON, 256), {
        catalog: CATALOG,
        file: 'api.json',
        stats,
        filter: { level: 'STATE', state: 'VA' },
      }),
    );
    expect(items).toEqual([]);
    expect(stats.rows).toBe(10);
    // CORN, GRAIN / SILAGE by irrigation practice are data items the catalog does not map
    expect(stats.skippedByReason).toEqual({ unmapped_item: 6, forecast: 4 });
  });

  it('maps a census item field by field when the catalog and filter ask for it', async () => {
    const irrigated = 'CORN, GRAIN, IRRIGATED, ENTIRE CROP - YIELD, MEASURED IN BU / ACRE';
    const catalog = createCatalogIndex(
      COMMODITIES.map((c) =>
        c.entry.id === 'CORN'
          ? {
              ...c,
              sources: {
                ...c.sources,
                nass: {
                  commodity_desc: 'CORN',
                  items: [
                    {
                      short_desc: irrigated,
                      statisticcat_desc: 'YIELD',
                      unit_desc: 'BU / ACRE',
                      type: 'yield',
                      unit: 'bu/acre',
                    },
                  ],
                },
              },
            }
          : c,
      ),
    );
    const raw = (JSON.parse(readFileSync(API_JSON, 'utf8')) as { data: Record<string, string>[] }).data.find(
      (r) => r.short_desc === irrigated,
    )!;
    const items = await collect(
      parseNassJson(chunked(API_JSON), {
        file: 'api.json',
        catalog,
        filter: { level: 'STATE', state: 'VIRGINIA', programs: ['CENSUS'] },
      }),
    );
    expect(items).toEqual([
      {
        kind: 'series',
        commodity_id: 'CORN',
        series_type: 'yield',
        frequency: 'monthly',
        unit: 'bu/acre',
        source: 'nass:CORN, GRAIN, IRRIGATED, ENTIRE CROP - YIELD, MEASURED IN BU / ACRE',
        point: { date: `${raw.year}-12-31`, value: Number(raw.Value) },
        // its load_time, 2012-12-31 00:00:00 New York time (EST), as the source states it
        published: { at: '2012-12-31T05:00:00.000Z', estimated: false },
      },
    ]);
    expect(raw.load_time).toBe('2012-12-31 00:00:00');
    expect(items[0]).toMatchObject({ point: { date: '2012-12-31', value: 161.2 } });
  });
});

// Monthly prices received: a real Quick Stats API record set (Iowa, corn, 2025-2026), see
// test/fixtures/README.md. Quick Stats publishes the national series in the same shape.
const PRICE_CSV = ownFixturePath('nass_price_received_corn_iowa_monthly_2025_2026_excerpt.csv');
const IOWA = { level: 'STATE', state: 'IOWA' } as const;
// The national series with its annual rows, as Quick Stats answers without freq_desc (README).
const NATIONAL_PRICE_CSV = ownFixturePath('nass_price_received_corn_national_2025_2026_excerpt.csv');

/** A CSV line from cells, quoting the ones that hold a comma (as the fixture does). */
const csvLine = (cells: string[]) => cells.map((c) => (c.includes(',') ? `"${c}"` : c)).join(',');

describe('NASS prices received (monthly)', () => {
  it('dates JAN..DEC of a price item at the month end and skips its annual averages', () => {
    expect(nassPeriodDate(2024, 'JAN', 'price')).toEqual({ date: '2024-01-31' });
    expect(nassPeriodDate(2024, 'FEB', 'price')).toEqual({ date: '2024-02-29' });
    expect(nassPeriodDate(2025, 'FEB', 'price')).toEqual({ date: '2025-02-28' });
    expect(nassPeriodDate(2025, 'DEC', 'price')).toEqual({ date: '2025-12-31' });
    expect(nassPeriodDate(2025, 'MARKETING YEAR', 'price')).toEqual({ skip: 'other_period' });
    expect(nassPeriodDate(2025, 'YEAR', 'price')).toEqual({ skip: 'other_period' });
    // production, yield... keep their annual rule, and a month means nothing to them
    expect(nassPeriodDate(2025, 'YEAR')).toEqual({ date: '2025-12-31' });
    expect(nassPeriodDate(2025, 'JAN')).toEqual({ skip: 'other_period' });
  });

  it('maps every monthly row of the real excerpt to the price series, at month end, with its basis', async () => {
    const stats = createParseStats();
    const items = series(
      await collect(parseNassCsv(chunked(PRICE_CSV, 61), { catalog: CATALOG, file: 'p.csv', stats, filter: IOWA })),
    );
    // the expectation is read from the raw cells, not from the parser
    const [head, ...rows] = readFileSync(PRICE_CSV, 'utf8').trimEnd().split('\n');
    const h = parseCsvRecord(head!)!;
    const col = (name: string) => h.indexOf(name);
    const month = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
    const expected = rows.map((line) => {
      const c = parseCsvRecord(line)!;
      const y = Number(c[col('year')]);
      const m = month.indexOf(c[col('reference_period_desc')]!) + 1;
      const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
      return { date: `${y}-${String(m).padStart(2, '0')}-${last}`, value: Number(c[col('Value')]) };
    });
    expect(rows).toHaveLength(17);
    expect(items.map((i) => i.point)).toEqual(expected);
    expect(items[0]).toEqual({
      kind: 'series',
      commodity_id: 'CORN',
      series_type: 'price',
      frequency: 'monthly',
      unit: 'USD/bu',
      source: 'nass:CORN, GRAIN - PRICE RECEIVED, MEASURED IN $ / BU',
      price_basis: 'received_by_farmers',
      point: { date: '2026-01-31', value: 4.13 },
      // load_time 2026-02-27 15:00 New York time: the Agricultural Prices report's 3 p.m. ET release
      published: { at: '2026-02-27T20:00:00.000Z', estimated: false },
    });
    expect(items.map((i) => i.point.date)).toContain('2025-02-28');
    expect(stats).toMatchObject({ rows: 17, emitted: 17, skipped: 0, rejected: 0 });
  });

  it('maps the national series of the real national excerpt and skips its MARKETING YEAR and YEAR rows', async () => {
    const stats = createParseStats();
    const items = series(
      await collect(parseNassCsv(chunked(NATIONAL_PRICE_CSV, 83), { catalog: CATALOG, file: 'n.csv', stats })),
    );
    expect(stats).toMatchObject({ rows: 20, emitted: 18, skippedByReason: { other_period: 2 } });
    expect(items.map((i) => `${i.point.date} ${i.point.value}`)).toEqual([
      '2026-01-31 4.1',
      '2026-02-28 4.11',
      '2026-03-31 4.27',
      '2026-04-30 4.31',
      '2026-05-31 4.48',
      '2026-06-30 4.28',
      // 2025 MARKETING YEAR (4.1) and YEAR (4.29) rows sit here in the file: skipped
      '2025-01-31 4.29',
      '2025-02-28 4.58',
      '2025-03-31 4.57',
      '2025-04-30 4.62',
      '2025-05-31 4.64',
      '2025-06-30 4.47',
      '2025-07-31 4.29',
      '2025-08-31 3.96',
      '2025-09-30 4',
      '2025-10-31 3.93',
      '2025-11-30 3.98',
      '2025-12-31 4.1', // DEC, not an annual figure
    ]);
    expect(
      new Set(items.map((i) => `${i.commodity_id} ${i.frequency} ${i.unit} ${i.price_basis} ${i.source}`)),
    ).toEqual(
      new Set(['CORN monthly USD/bu received_by_farmers nass:CORN, GRAIN - PRICE RECEIVED, MEASURED IN $ / BU']),
    );
  });

  it('maps national rows only by default: every state row of the excerpt is skipped and counted', async () => {
    const stats = createParseStats();
    expect(await collect(parseNassCsv(chunked(PRICE_CSV), { catalog: CATALOG, file: 'p.csv', stats }))).toEqual([]);
    expect(stats.skippedByReason).toEqual({ other_location: 17 });
  });

  it('skips withheld values, the YEAR and MARKETING YEAR averages, and an item in another unit', async () => {
    const [head, first] = readFileSync(PRICE_CSV, 'utf8').split('\n');
    const h = parseCsvRecord(head!)!;
    const cells = parseCsvRecord(first!)!;
    const variant = (changes: Record<string, string>) => csvLine(cells.map((v, i) => changes[h[i]!] ?? v));
    const lines = [
      head!,
      first!, // 2026 JAN, 4.13: mapped
      variant({ Value: '(NA)', reference_period_desc: 'FEB', begin_code: '02', end_code: '02' }),
      variant({ Value: '(D)', reference_period_desc: 'MAR', begin_code: '03', end_code: '03' }),
      variant({
        Value: '4.24',
        reference_period_desc: 'MARKETING YEAR',
        freq_desc: 'ANNUAL',
        begin_code: '09',
        end_code: '08',
      }),
      variant({ Value: '4.30', reference_period_desc: 'YEAR', freq_desc: 'ANNUAL', begin_code: '00', end_code: '00' }),
      // the same price quoted per hundredweight is another data item: not mapped, never converted
      variant({
        Value: '7.38',
        unit_desc: '$ / CWT',
        short_desc: 'CORN, GRAIN - PRICE RECEIVED, MEASURED IN $ / CWT',
      }),
    ];
    const stats = createParseStats();
    const items = await collect(
      parseNassCsv([lines.join('\n')], { catalog: CATALOG, file: 'p.csv', stats, filter: IOWA }),
    );
    expect(series(items).map((i) => [i.point, i.unit])).toEqual([[{ date: '2026-01-31', value: 4.13 }, 'USD/bu']]);
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([]);
    expect(stats.skippedByReason).toEqual({ withheld: 2, other_period: 2, unmapped_item: 1 });
  });

  it('asks Quick Stats for the monthly figures of a price item only', () => {
    const price = nassQueryUrl({ apiKey: 'k', fromYear: 2024 }, 'OATS - PRICE RECEIVED, MEASURED IN $ / BU', {
      type: 'price',
    });
    expect(price.searchParams.get('freq_desc')).toBe('MONTHLY');
    expect(price.searchParams.get('agg_level_desc')).toBe('NATIONAL');
    const yieldUrl = nassQueryUrl({ apiKey: 'k' }, 'OATS - YIELD, MEASURED IN BU / ACRE', { type: 'yield' });
    expect(yieldUrl.searchParams.has('freq_desc')).toBe(false);
  });
});
