import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunked, collect, ownFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { CATALOG_WITH_LM_CT150 as CATALOG } from '../../../test/helpers/ams-catalog.ts';
import { byAmsReport } from './lookup.ts';
import { CATALOG as CURATED } from '../registry.ts';
import { stampFromCalendar } from '../common/published.ts';
import { createParseStats } from '../common/stats.ts';
import type { SeriesItem, SourceItem } from '../types.ts';
import { amsQueryUrls } from './fetch.ts';
import { AmsSchemaError, parseAmsJson } from './parse.ts';

// Real: LM_HG201 Barrows/Gilts rows recorded from the LMR datamart (test/fixtures/README.md).
const HG201 = ownFixturePath('ams_lm_hg201_barrows_gilts_2019-02_excerpt.json');
// Hand-written (no real LM_CT150 or FMMO answer was found in public repositories): the field
// names are those of public code calling the datamart (test/fixtures/README.md).
const CT150 = ownFixturePath('ams_lm_ct150_handwritten.json');
const FMMO = ownFixturePath('ams_fmmo_class_prices_handwritten.json');
const series = (items: SourceItem[]) => items.filter((i): i is SeriesItem => i.kind === 'series');

describe('USDA AMS LM_HG201 (real recorded rows)', () => {
  it('maps the producer-sold negotiated net price of each slaughter day to LEAN_HOGS', async () => {
    const stats = createParseStats();
    const items = await collect(
      parseAmsJson(chunked(HG201, 300), { catalog: CURATED, file: 'hg201.json', report: 'LM_HG201', stats }),
    );
    // expected values read from the raw rows
    const raw = (JSON.parse(readFileSync(HG201, 'utf8')) as { results: Record<string, string>[] }).results.filter(
      (r) => r.purchase_type === 'Prod. Sold Negotiated',
    );
    expect(raw.map((r) => [r.for_date_begin, r.avg_net_price])).toEqual([
      ['02/20/2019', '50.66'],
      ['02/19/2019', '49.51'],
    ]);
    expect(items).toEqual([
      {
        kind: 'series',
        commodity_id: 'LEAN_HOGS',
        series_type: 'price',
        frequency: 'daily',
        unit: 'USD/cwt',
        source: 'ams:LM_HG201',
        price_basis: 'cash',
        point: { date: '2019-02-20', value: 50.66 },
        // the report of 02/21/2019, out by 11:00 ET (EST: 16:00Z)
        published: { at: '2019-02-21T16:00:00.000Z', estimated: true },
      },
      {
        kind: 'series',
        commodity_id: 'LEAN_HOGS',
        series_type: 'price',
        frequency: 'daily',
        unit: 'USD/cwt',
        source: 'ams:LM_HG201',
        price_basis: 'cash',
        point: { date: '2019-02-19', value: 49.51 },
        published: { at: '2019-02-20T16:00:00.000Z', estimated: true },
      },
    ]);
    // the other purchase types (formula, packer owned...) are other series of the report
    expect(stats).toMatchObject({ rows: 16, emitted: 2, rejected: 0, skippedByReason: { other_series: 14 } });
  });

  it('reads rows that leave out null fields (Packer Owned has no price) without calling it a schema change', async () => {
    const doc = JSON.parse(readFileSync(HG201, 'utf8')) as { results: Record<string, string>[] };
    const packer = doc.results.find((r) => r.purchase_type === 'Packer Owned')!;
    expect('avg_net_price' in packer).toBe(false);
    // the same row made the series: its value is withheld, skipped as missing
    const body = JSON.stringify({ results: [{ ...packer, purchase_type: 'Prod. Sold Negotiated' }, doc.results[0]] });
    const stats = createParseStats();
    const items = await collect(parseAmsJson([body], { catalog: CURATED, file: 'x.json', report: 'LM_HG201', stats }));
    expect(series(items).map((i) => i.point)).toEqual([{ date: '2019-02-20', value: 50.66 }]);
    expect(stats.skippedByReason).toEqual({ missing_value: 1 });
  });

  it('fails the whole answer, naming the field, when a field the series reads is renamed', async () => {
    const doc = JSON.parse(readFileSync(HG201, 'utf8')) as { results: Record<string, string>[] };
    const renamed = doc.results.map(({ avg_net_price, ...r }) =>
      avg_net_price === undefined ? r : { ...r, net_price_avg: avg_net_price },
    );
    const out: SourceItem[] = [];
    const run = async () => {
      for await (const i of parseAmsJson([JSON.stringify({ results: renamed })], {
        catalog: CATALOG,
        file: 'x.json',
        report: 'LM_HG201',
      }))
        out.push(i);
    };
    await expect(run()).rejects.toThrow(AmsSchemaError);
    await expect(run()).rejects.toThrow(
      /row 1 of section "Barrows\/Gilts" has no "avg_net_price" field \(fields: .*net_price_avg/,
    );
    expect(out).toEqual([]);

    const renamedType = doc.results.map((r) => ({
      ...r,
      purchase_type: r.purchase_type!.replace('Prod.', 'Producer'),
    }));
    await expect(
      collect(
        parseAmsJson([JSON.stringify({ results: renamedType })], {
          catalog: CURATED,
          file: 'x.json',
          report: 'LM_HG201',
        }),
      ),
    ).rejects.toThrow(
      /none of the 16 rows of section "Barrows\/Gilts" is the series \(purchase_type = "Prod. Sold Negotiated"\)/,
    );

    const noDate = doc.results.map(({ for_date_begin: _d, ...r }) => r);
    await expect(
      collect(
        parseAmsJson([JSON.stringify({ results: noDate })], { catalog: CURATED, file: 'x.json', report: 'LM_HG201' }),
      ),
    ).rejects.toThrow(/has no "for_date_begin" field/);
  });
});

// LM_CT150 maps no commodity in the curated catalog (LIVE_CATTLE's price is NASS's: docs/sources.md);
// these specs check it on the catalog with LIVE_CATTLE switched to it.
describe('USDA AMS LM_CT150 (hand-written answer, allSections=true shape)', () => {
  it('maps the weekly live steer weighted average price, all grades, from the Detail section', async () => {
    const stats = createParseStats();
    const items = await collect(
      parseAmsJson(chunked(CT150, 128), { file: 'ct150.json', report: 'LM_CT150', stats, catalog: CATALOG }),
    );
    expect(series(items).map((i) => [i.commodity_id, i.frequency, i.unit, i.source, i.price_basis, i.point])).toEqual([
      ['LIVE_CATTLE', 'weekly', 'USD/cwt', 'ams:LM_CT150', 'cash', { date: '2025-01-06', value: 201.5 }],
      ['LIVE_CATTLE', 'weekly', 'USD/cwt', 'ams:LM_CT150', 'cash', { date: '2025-01-13', value: 203 }],
      ['LIVE_CATTLE', 'weekly', 'USD/cwt', 'ams:LM_CT150', 'cash', { date: '2025-01-27', value: 205.1 }],
    ]);
    // Summary and Price Distribution rows are not read; heifers, dressed, one grade are other series
    expect(stats).toMatchObject({ rows: 7, emitted: 3, skippedByReason: { other_series: 3, missing_value: 1 } });
    // no announced hour: published by the end of the report's day, New York time (EST: 04:59Z the next day)
    expect(series(items)[0]!.published).toEqual({ at: '2025-01-07T04:59:00.000Z', estimated: true });
  });

  it('accepts the History spelling selling_basis_desc, and rejects a bad date or number with its row', async () => {
    const doc = JSON.parse(readFileSync(CT150, 'utf8')) as {
      reportSection: string;
      results: Record<string, unknown>[];
    }[];
    const detail: Record<string, unknown>[] = doc[1]!.results.map(({ selling_basis_description, ...r }) => ({
      ...r,
      selling_basis_desc: selling_basis_description,
    }));
    detail[0] = { ...detail[0], report_date: '2025-01-06' };
    detail[4] = { ...detail[4], weighted_avg_price: '203.0.0' };
    const stats = createParseStats();
    const items = await collect(
      parseAmsJson([JSON.stringify({ reportSection: 'Detail', results: detail })], {
        file: 'd.json',
        report: 'LM_CT150',
        stats,
        catalog: CATALOG,
      }),
    );
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([
      { kind: 'rejected', file: 'd.json', line: 1, reason: 'report_date: not a MM/DD/YYYY date "2025-01-06"' },
      { kind: 'rejected', file: 'd.json', line: 5, reason: 'weighted_avg_price: not a number "203.0.0"' },
    ]);
    expect(series(items).map((i) => i.point.date)).toEqual(['2025-01-27']);
  });

  it('reads "No Results Found" as an empty answer and a body without results as a schema change', async () => {
    const stats = createParseStats();
    expect(
      await collect(
        parseAmsJson([JSON.stringify({ message: 'No Results Found' })], {
          file: 'e',
          report: 'LM_CT150',
          stats,
          catalog: CATALOG,
        }),
      ),
    ).toEqual([]);
    expect(stats.rows).toBe(0);
    await expect(
      collect(parseAmsJson([JSON.stringify({ data: [] })], { file: 'e', report: 'LM_CT150', catalog: CATALOG })),
    ).rejects.toThrow(/the answer has no "results" \(it has: data\)/);
    const truncated = readFileSync(CT150, 'utf8').slice(0, 300);
    const out = await collect(parseAmsJson([truncated], { file: 't.json', report: 'LM_CT150', catalog: CATALOG }));
    expect(out).toMatchObject([{ kind: 'rejected', file: 't.json', line: 1 }]);
    await expect(collect(parseAmsJson(['[]'], { catalog: CURATED, file: 'e', report: 'LM_XX999' }))).rejects.toThrow(
      /unknown report LM_XX999/,
    );
  });
});

describe('USDA AMS FMMO class prices (hand-written answer, one section)', () => {
  it('maps the Class III price of the All Market Average row to MILK_CLASS_III at the month end', async () => {
    const stats = createParseStats();
    const items = await collect(
      parseAmsJson(chunked(FMMO, 90), { catalog: CURATED, file: 'fmmo.json', report: 'FMMO_CLASS', stats }),
    );
    expect(series(items).map((i) => [i.commodity_id, i.frequency, i.unit, i.price_basis, i.point])).toEqual([
      ['MILK_CLASS_III', 'monthly', 'USD/cwt', 'cash', { date: '2024-01-31', value: 15.1 }],
      ['MILK_CLASS_III', 'monthly', 'USD/cwt', 'cash', { date: '2024-02-29', value: 15.8 }],
    ]);
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([
      {
        kind: 'rejected',
        file: 'fmmo.json',
        line: 5,
        reason: 'report_year/report_month: not a year and month "2024" "Febtober"',
      },
    ]);
    expect(stats.skippedByReason).toEqual({ other_series: 1, missing_value: 1 });
    // the rows date no report: a sync stamps them from AMS's calendar, a file takes the ingest time
    expect(series(items).map((i) => i.published)).toEqual([undefined, undefined]);
    const fetched = new Date('2024-03-05T18:00:00Z');
    expect(series(stampFromCalendar(items, 'ams', fetched)).map((i) => i.published)).toEqual([
      { at: '2024-03-05T16:00:00.000Z', estimated: true },
      { at: '2024-03-05T16:00:00.000Z', estimated: true },
    ]);
  });
});

describe('USDA AMS datamart queries', () => {
  it('asks LMR reports in windows of at most 180 report days and FMMO reports by year, no key', () => {
    const [ct150] = byAmsReport(CATALOG, 'LM_CT150');
    const urls = amsQueryUrls(ct150!.series, '2024-01-01', '2024-12-31', 'http://127.0.0.1:9');
    expect(urls.map(String)).toEqual([
      'http://127.0.0.1:9/services/v1.1/reports/2477?q=report_date=01/01/2024:06/28/2024&allSections=true',
      'http://127.0.0.1:9/services/v1.1/reports/2477?q=report_date=06/29/2024:12/25/2024&allSections=true',
      'http://127.0.0.1:9/services/v1.1/reports/2477?q=report_date=12/26/2024:12/31/2024&allSections=true',
    ]);
    const [hogs] = byAmsReport(CATALOG, 'LM_HG201');
    expect(String(amsQueryUrls(hogs!.series, '2025-03-01', '2025-03-01')[0])).toBe(
      'https://mpr.datamart.ams.usda.gov/services/v1.1/reports/2511?q=report_date=03/01/2025:03/01/2025&allSections=true',
    );
    const [milk] = byAmsReport(CATALOG, 'FMMO_CLASS');
    expect(amsQueryUrls(milk!.series, '2024-07-01', '2025-02-10').map((u) => u.search)).toEqual([
      '?q=report_year=2024&allSections=true',
      '?q=report_year=2025&allSections=true',
    ]);
  });
});
