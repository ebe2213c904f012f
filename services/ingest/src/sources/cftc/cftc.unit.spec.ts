import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DisaggregatedCotRecord, LegacyCotRecord } from '@cds/contracts';
import {
  chunked,
  collect,
  netOf,
  ownFixturePath,
  rawCotRows,
  realFixturePath,
} from '../../../test/helpers/source-fixtures.ts';
import { createCatalogIndex } from '../../catalog/index.ts';
import { COMMODITIES } from '../registry.ts';
import { createParseStats } from '../common/stats.ts';
import type { CotItem, SourceItem } from '../types.ts';
import { parseCftcCotCsv, parseCftcDisaggregatedCsv, parseCftcLegacyCsv } from './parse-annual.ts';
import { parseCftcSocrataJson } from './parse-socrata.ts';
import { CATALOG } from '../registry.ts';

const LEGACY = realFixturePath('cftc_legacy_fut_annual_2025_excerpt.txt');
const DISAGG = realFixturePath('cftc_disagg_fut_f_year_2021_excerpt.txt');

const cots = (items: SourceItem[]) => items.filter((i): i is CotItem => i.kind === 'cot');
const int = (s: string | undefined) => Number(s!.trim());

describe('CFTC legacy annual file (real excerpt)', () => {
  it('maps every catalog row, field by field against the raw row, and skips the market outside the catalog', async () => {
    const stats = createParseStats();
    const items = await collect(parseCftcLegacyCsv(chunked(LEGACY), { catalog: CATALOG, file: 'annual.txt', stats }));
    const { header, rows } = rawCotRows(LEGACY);
    const col = (name: string) => header.indexOf(name);
    expect(col('Open Interest (All)')).toBeGreaterThan(0);

    expect(stats).toMatchObject({ rows: 31, emitted: 30, rejected: 0, skipped: 1 });
    expect(stats.skippedByReason).toEqual({ unknown_commodity: 1 });
    // each report, then the weekly open interest point it gives (the CFTC's own figure)
    expect(items.map((i) => i.kind)).toEqual(items.flatMap((i) => (i.kind === 'cot' ? ['cot', 'series'] : [])));
    for (const [i, item] of items.entries()) {
      if (item.kind !== 'cot' || item.format !== 'legacy') continue;
      expect(items[i + 1]).toEqual({
        kind: 'series',
        commodity_id: item.commodity_id,
        series_type: 'open_interest',
        frequency: 'weekly',
        unit: 'contracts',
        source: item.source,
        point: { date: item.record.report_date, value: item.record.open_interest },
        published: { at: item.record.published_at, estimated: true },
      });
    }
    // each report published on its Friday, 15:30 New York time (EST: 20:30Z), by the release calendar
    const fridays: Record<string, string> = {
      '2025-01-07': '2025-01-10T20:30:00.000Z',
      '2025-01-14': '2025-01-17T20:30:00.000Z',
      '2025-01-21': '2025-01-24T20:30:00.000Z',
      '2025-01-28': '2025-01-31T20:30:00.000Z',
      '2025-02-04': '2025-02-07T20:30:00.000Z',
    };
    for (const { record } of cots(items)) {
      expect(record.published_at, record.report_date).toBe(fridays[record.report_date]);
      expect(record.published_at_estimated).toBe(true);
    }

    const out = cots(items);
    const catalogRows = rows.filter((r) => r.cells[3] !== '021397');
    expect(out).toHaveLength(catalogRows.length);
    for (const [i, raw] of catalogRows.entries()) {
      const item = out[i]!;
      if (item.format !== 'legacy') throw new Error('expected legacy');
      const r = item.record;
      const c = (name: string) => int(raw.cells[col(name)]);
      expect(LegacyCotRecord.parse(r)).toEqual(r);
      expect(r.report_date).toBe(raw.cells[col('As of Date in Form YYYY-MM-DD')]);
      expect(r.contract_code).toBe(raw.cells[col('CFTC Contract Market Code')]!.trim());
      expect(r.open_interest).toBe(c('Open Interest (All)'));
      expect(r.commercial).toEqual({
        long: c('Commercial Positions-Long (All)'),
        short: c('Commercial Positions-Short (All)'),
      });
      expect(r.non_commercial).toEqual({
        long: c('Noncommercial Positions-Long (All)'),
        short: c('Noncommercial Positions-Short (All)'),
        spreading: c('Noncommercial Positions-Spreading (All)'),
      });
      expect(r.non_reportable).toEqual({
        long: c('Nonreportable Positions-Long (All)'),
        short: c('Nonreportable Positions-Short (All)'),
      });
      // net = long - short, per group
      expect(netOf(r.commercial)).toBe(c('Commercial Positions-Long (All)') - c('Commercial Positions-Short (All)'));
      expect(netOf(r.non_commercial)).toBe(
        c('Noncommercial Positions-Long (All)') - c('Noncommercial Positions-Short (All)'),
      );
      expect(netOf(r.non_reportable)).toBe(
        c('Nonreportable Positions-Long (All)') - c('Nonreportable Positions-Short (All)'),
      );
      // the legacy identity holds on the real data: OI = comm + noncomm + spreading + nonrept, both sides
      expect(r.commercial.long + r.non_commercial.long + r.non_commercial.spreading + r.non_reportable.long).toBe(
        r.open_interest,
      );
      expect(r.commercial.short + r.non_commercial.short + r.non_commercial.spreading + r.non_reportable.short).toBe(
        r.open_interest,
      );
    }
  });

  it('reads the WTI row of 2025-01-07 as the file states it', async () => {
    const out = cots(await collect(parseCftcLegacyCsv(chunked(LEGACY), { catalog: CATALOG, file: 'annual.txt' })));
    const wti = out.find((i) => i.commodity_id === 'CRUDE_OIL_WTI' && i.record.report_date === '2025-01-07');
    expect(wti).toMatchObject({
      format: 'legacy',
      record: {
        exchange: 'NYMEX',
        contract_code: '067651',
        open_interest: 1958411,
        non_commercial: { long: 411623, short: 132056, spreading: 741920 },
        commercial: { long: 734563, short: 1020693 },
        non_reportable: { long: 70305, short: 63742 },
      },
    });
    const commercial = (wti!.record as { commercial: { long: number; short: number } }).commercial;
    expect(netOf(commercial)).toBe(734563 - 1020693);
  });

  it('ignores `.` in columns it does not read (the marine fuel row, whose ten "Change in" fields are `.`)', async () => {
    const raw = rawCotRows(LEGACY).rows.find((r) => r.cells[3] === '021397')!;
    expect(raw.cells.filter((c) => c === '.')).toHaveLength(10);
    const catalog = createCatalogIndex([
      ...COMMODITIES,
      {
        entry: { id: 'MARINE_FUEL_USGC', name: 'Marine fuel 0.5% USGC', category: 'energy', exchange: 'ICE' },
        sources: {
          cftc: { codes: ['021397'] },
          demo: { start_price: 1, volatility: 0.1, volume: 1, open_interest: 1, fundamentals: [] },
        },
      },
    ]);
    const out = cots(await collect(parseCftcLegacyCsv(chunked(LEGACY), { file: 'annual.txt', catalog })));
    const marine = out.find((i) => i.commodity_id === 'MARINE_FUEL_USGC');
    expect(marine?.record).toMatchObject({
      report_date: '2025-01-28',
      open_interest: 3702,
      non_commercial: { long: 93, short: 63, spreading: 157 },
      commercial: { long: 3451, short: 3440 },
      non_reportable: { long: 1, short: 42 },
    });
  });

  it('rejects malformed rows with file, line and reason and still parses the rest', async () => {
    const stats = createParseStats();
    const items = await collect(
      parseCftcLegacyCsv(chunked(ownFixturePath('cftc_legacy_malformed_rows.txt')), {
        catalog: CATALOG,
        file: 'bad.txt',
        stats,
      }),
    );
    const rejected = items.filter((i) => i.kind === 'rejected');
    expect(rejected).toEqual([
      { kind: 'rejected', file: 'bad.txt', line: 3, reason: expect.stringMatching(/expected \d+ fields, got 12/) },
      { kind: 'rejected', file: 'bad.txt', line: 4, reason: 'open_interest: missing value "."' },
      { kind: 'rejected', file: 'bad.txt', line: 5, reason: 'non_commercial.long: not an integer "12x45"' },
      { kind: 'rejected', file: 'bad.txt', line: 7, reason: 'missing CFTC contract market code' },
    ]);
    expect(cots(items).map((i) => [i.commodity_id, i.record.report_date, i.record.open_interest])).toEqual([
      ['GOLD', '2025-01-07', 477043],
      ['GOLD', '2025-01-14', expect.any(Number)],
    ]);
    expect(stats).toMatchObject({ rows: 6, emitted: 2, rejected: 4 });
  });

  it('rejects a file of the other format at its header', async () => {
    const items = await collect(parseCftcLegacyCsv(chunked(DISAGG), { catalog: CATALOG, file: 'f_year.txt' }));
    expect(items).toEqual([
      { kind: 'rejected', file: 'f_year.txt', line: 1, reason: 'header is a disaggregated COT file, expected legacy' },
    ]);
  });
});

describe('CFTC disaggregated annual file (real excerpt, CRLF)', () => {
  it('maps every row field by field, including the double-underscore swap columns', async () => {
    const stats = createParseStats();
    const items = await collect(
      parseCftcDisaggregatedCsv(chunked(DISAGG, 211), { catalog: CATALOG, file: 'f_year.txt', stats }),
    );
    expect(stats).toMatchObject({ rows: 30, emitted: 30, rejected: 0, skipped: 0 });
    const text = readFileSync(DISAGG, 'utf8');
    expect(text.includes('\r\n')).toBe(true);
    const { header, rows } = rawCotRows(DISAGG);
    const col = (name: string) => header.indexOf(name);
    const out = cots(items);
    expect(out).toHaveLength(rows.length);
    for (const [i, raw] of rows.entries()) {
      const item = out[i]!;
      if (item.format !== 'disaggregated') throw new Error('expected disaggregated');
      const r = item.record;
      const c = (name: string) => int(raw.cells[col(name)]);
      expect(DisaggregatedCotRecord.parse(r)).toEqual(r);
      expect(r.report_date).toBe(raw.cells[col('Report_Date_as_YYYY-MM-DD')]);
      expect(r.open_interest).toBe(c('Open_Interest_All'));
      expect(r.producer_merchant).toEqual({
        long: c('Prod_Merc_Positions_Long_All'),
        short: c('Prod_Merc_Positions_Short_All'),
      });
      expect(r.swap_dealer).toEqual({
        long: c('Swap_Positions_Long_All'),
        short: c('Swap__Positions_Short_All'),
        spreading: c('Swap__Positions_Spread_All'),
      });
      expect(r.managed_money).toEqual({
        long: c('M_Money_Positions_Long_All'),
        short: c('M_Money_Positions_Short_All'),
        spreading: c('M_Money_Positions_Spread_All'),
      });
      expect(r.other_reportable).toEqual({
        long: c('Other_Rept_Positions_Long_All'),
        short: c('Other_Rept_Positions_Short_All'),
        spreading: c('Other_Rept_Positions_Spread_All'),
      });
      for (const [g, prefix] of [
        [r.producer_merchant, 'Prod_Merc_Positions'],
        [r.swap_dealer, 'Swap'],
        [r.managed_money, 'M_Money_Positions'],
        [r.other_reportable, 'Other_Rept_Positions'],
      ] as const) {
        const shortCol = prefix === 'Swap' ? 'Swap__Positions_Short_All' : `${prefix}_Short_All`;
        const longCol = prefix === 'Swap' ? 'Swap_Positions_Long_All' : `${prefix}_Long_All`;
        expect(netOf(g)).toBe(c(longCol) - c(shortCol));
      }
      // reportable long side + non-reportable long = open interest
      const longSide =
        r.producer_merchant.long +
        r.swap_dealer.long +
        r.swap_dealer.spreading +
        r.managed_money.long +
        r.managed_money.spreading +
        r.other_reportable.long +
        r.other_reportable.spreading;
      expect(longSide).toBe(c('Tot_Rept_Positions_Long_All'));
      expect(longSide + c('NonRept_Positions_Long_All')).toBe(r.open_interest);
    }
  });

  it('keeps parsing the WHEAT-SRW rows whose trader-count column holds `.`', async () => {
    const { rows } = rawCotRows(DISAGG);
    const wheatRaw = rows.filter((r) => r.cells[3] === '001602');
    expect(wheatRaw.length).toBe(5);
    expect(wheatRaw.every((r) => r.cells.includes('.'))).toBe(true);
    const out = cots(await collect(parseCftcCotCsv(chunked(DISAGG), { catalog: CATALOG, file: 'f_year.txt' })));
    expect(out.filter((i) => i.commodity_id === 'WHEAT_SRW')).toHaveLength(5);
  });

  it('keys on the contract market code across market-name changes (067651 in 2021 and 2025)', async () => {
    const { rows: rows2021 } = rawCotRows(DISAGG);
    const { rows: rows2025 } = rawCotRows(LEGACY);
    expect(rows2021.find((r) => r.cells[3] === '067651')!.name).toBe(
      'CRUDE OIL, LIGHT SWEET - NEW YORK MERCANTILE EXCHANGE',
    );
    expect(rows2025.find((r) => r.cells[3] === '067651')!.name).toBe('WTI-PHYSICAL - NEW YORK MERCANTILE EXCHANGE');
    const a = cots(await collect(parseCftcCotCsv(chunked(DISAGG), { catalog: CATALOG, file: 'f_year.txt' })));
    const b = cots(await collect(parseCftcCotCsv(chunked(LEGACY), { catalog: CATALOG, file: 'annual.txt' })));
    const wti2021 = a.filter((i) => i.record.contract_code === '067651');
    const wti2025 = b.filter((i) => i.record.contract_code === '067651');
    expect(wti2021).toHaveLength(5);
    expect(wti2025).toHaveLength(5);
    expect(new Set([...wti2021, ...wti2025].map((i) => i.commodity_id))).toEqual(new Set(['CRUDE_OIL_WTI']));
  });
});

describe('CFTC public reporting (Socrata) JSON', () => {
  it('maps the legacy API field names, skips unknown codes and rejects a row without open interest', async () => {
    const stats = createParseStats();
    const items = await collect(
      parseCftcSocrataJson(chunked(ownFixturePath('cftc_socrata_legacy_sample.json'), 64), {
        catalog: CATALOG,
        file: 'socrata',
        format: 'legacy',
        stats,
      }),
    );
    expect(items).toEqual([
      {
        kind: 'cot',
        commodity_id: 'CRUDE_OIL_WTI',
        format: 'legacy',
        source: 'cftc:legacy:067651',
        record: {
          report_date: '2025-01-07',
          exchange: 'NYMEX',
          contract_code: '067651',
          open_interest: 1958411,
          commercial: { long: 734563, short: 1020693 },
          non_commercial: { long: 411623, short: 132056, spreading: 741920 },
          non_reportable: { long: 70305, short: 63742 },
          published_at: '2025-01-10T20:30:00.000Z',
          published_at_estimated: true,
        },
      },
      {
        kind: 'series',
        commodity_id: 'CRUDE_OIL_WTI',
        series_type: 'open_interest',
        frequency: 'weekly',
        unit: 'contracts',
        source: 'cftc:legacy:067651',
        point: { date: '2025-01-07', value: 1958411 },
        published: { at: '2025-01-10T20:30:00.000Z', estimated: true },
      },
      { kind: 'rejected', file: 'socrata', line: 3, reason: 'open_interest: missing value ""' },
    ]);
    expect(stats).toMatchObject({ rows: 3, emitted: 1, skipped: 1, rejected: 1 });
  });

  it('maps the disaggregated API field names (prod_merc_positions_long, m_money_positions_spread, swap__...)', async () => {
    const items = await collect(
      parseCftcSocrataJson(chunked(ownFixturePath('cftc_socrata_disaggregated_sample.json'), 50), {
        catalog: CATALOG,
        file: 'socrata',
        format: 'disaggregated',
      }),
    );
    const fromCsv = cots(
      await collect(parseCftcDisaggregatedCsv(chunked(DISAGG), { catalog: CATALOG, file: 'f_year.txt' })),
    ).find((i) => i.commodity_id === 'CRUDE_OIL_WTI' && i.record.report_date === '2021-03-16');
    expect(items).toHaveLength(1);
    expect((items[0] as CotItem).record).toEqual(fromCsv!.record);
  });

  it('reports a truncated document', async () => {
    const items = await collect(
      parseCftcSocrataJson(['[{"a":"1"}, {"b":'], { catalog: CATALOG, file: 'cut', format: 'legacy' }),
    );
    expect(items.at(-1)).toEqual({ kind: 'rejected', file: 'cut', line: 2, reason: 'truncated JSON document' });
  });
});
