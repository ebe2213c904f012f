import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunked, collect, realFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { createCatalogIndex, COMMODITIES } from '../../catalog/index.ts';
import { parseCsvRecord } from '../common/csv.ts';
import { createParseStats } from '../common/stats.ts';
import type { SeriesItem, SourceItem } from '../types.ts';
import { nassPeriodDate } from './map-row.ts';
import { parseNassCsv, parseNassJson } from './parse.ts';

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
    const items = await collect(parseNassCsv(chunked(CORN_CSV), { file: 'corn.csv', stats }));
    expect(items).toEqual([]);
    expect(stats.rows).toBe(13);
    expect(stats.skippedByReason).toEqual({ other_location: 13 });
  });

  it('maps one chosen state: the final YEAR row becomes yield on YYYY-12-31, forecasts are skipped', async () => {
    const stats = createParseStats();
    const items = series(
      await collect(
        parseNassCsv(chunked(CORN_CSV, 50), { file: 'corn.csv', stats, filter: { level: 'STATE', state: 'IOWA' } }),
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
      parseNassJson(chunked(API_JSON, 256), { file: 'api.json', stats, filter: { level: 'STATE', state: 'VA' } }),
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
      },
    ]);
    expect(items[0]).toMatchObject({ point: { date: '2012-12-31', value: 161.2 } });
  });
});
