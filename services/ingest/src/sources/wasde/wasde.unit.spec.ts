import { readFileSync } from 'node:fs';
import { SupplyDemandBatch } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { chunked, collect, ownFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { SourceUsageError } from '../common/errors.ts';
import { createParseStats, type ParseStats } from '../common/stats.ts';
import { CATALOG } from '../registry.ts';
import type { SourceItem, SupplyDemandItem } from '../types.ts';
import { readSubReports, WasdeFileError } from './cells.ts';
import { balances, failedChecks, SUPPLY_CHECK } from './checks.ts';
import { monthNumber } from '../common/values.ts';
import { columnEdition, editionOfReportMonth, fileNameFacts } from './editions.ts';
import { attributeOf, cellNumber, marketingYearOf, regionOf, unitInName } from './names.ts';
import { readWasdeXml } from './parse.ts';
import type { ReadFigure } from './sheets.ts';

// The real June 2026 WASDE XML, trimmed to four sub-reports (test/fixtures/README.md).
const JUNE_2026 = ownFixturePath('wasde_0626_trimmed.xml');
const JUNE_XML = readFileSync(JUNE_2026, 'utf8');

async function read(
  input: string | AsyncIterable<Uint8Array | string> | NodeJS.ReadableStream,
  opts: { file?: string; publishedAt?: string } = {},
): Promise<{ sheets: SupplyDemandItem[]; items: SourceItem[]; stats: ParseStats }> {
  const stats = createParseStats();
  const chunks = typeof input === 'string' ? [Buffer.from(input)] : input;
  const items = await collect(
    await readWasdeXml(chunks as AsyncIterable<Uint8Array>, {
      file: opts.file ?? 'wasde0626.xml',
      stats,
      catalog: CATALOG,
      ...(opts.publishedAt !== undefined ? { publishedAt: opts.publishedAt } : {}),
    }),
  );
  return { sheets: items.filter((i): i is SupplyDemandItem => i.kind === 'supply_demand'), items, stats };
}

const sheetOf = (sheets: SupplyDemandItem[], commodity: string, region: string, year: string, edition: string) => {
  const found = sheets.filter(
    (s) => s.commodity_id === commodity && s.region === region && s.marketing_year === year && s.edition === edition,
  );
  expect(found, `${commodity} ${region} ${year} ${edition}`).toHaveLength(1);
  return found[0]!;
};

const valueOf = (sheet: SupplyDemandItem, attribute: string, unit: string) =>
  sheet.figures.find((f) => f.attribute === attribute && f.unit === unit)?.value;

/**
 * The values of one row of a US matrix, read from the XML independently of the parser: the
 * `cell_value<N>` attributes inside `<attribute<N> attribute<N>="<row>">…</attribute<N>>`, in order.
 */
function rawRow(xml: string, sr: string, n: number, row: string): string[] {
  const report = xml.slice(xml.indexOf(`<${sr}>`), xml.indexOf(`</${sr}>`));
  const open = `<attribute${n} attribute${n}="${row}">`;
  const at = report.indexOf(open);
  expect(at, `${sr} row ${row}`).toBeGreaterThan(-1);
  const body = report.slice(at, report.indexOf(`</attribute${n}>`, at));
  return [...body.matchAll(new RegExp(`cell_value${n}="([^"]*)"`, 'g'))].map((m) => m[1]!);
}
const num = (raw: string) => Number(raw.replace(/[,* ]/g, ''));

describe('the June 2026 WASDE XML (real, trimmed to sr12, sr15, sr22, sr23)', async () => {
  const { sheets, items, stats } = await read(chunked(JUNE_2026));

  it('yields one valid batch per commodity, region, marketing year and edition, nothing rejected', () => {
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([]);
    expect(sheets).toHaveLength(88);
    for (const s of sheets) {
      const { kind: _kind, ...batch } = s;
      expect(SupplyDemandBatch.safeParse(batch).success).toBe(true);
      expect(s.source).toBe('wasde:wasde0626.xml');
      expect(s.failed_checks).toBeUndefined();
    }
    const keys = sheets.map((s) => `${s.commodity_id}|${s.region}|${s.marketing_year}|${s.edition}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(stats.emitted).toBe(88);
  });

  it('reads every cell of the US corn table as the XML states it (June column, May column, earlier years)', () => {
    const columns = [
      { year: '2024/25', edition: '2026-06' },
      { year: '2025/26', edition: '2026-06' },
      { year: '2026/27', edition: '2026-05' },
      { year: '2026/27', edition: '2026-06' },
    ];
    const rows: [string, string, string][] = [
      ['Area Planted', 'area_planted', 'Million Acres'],
      ['Area Harvested', 'area_harvested', 'Million Acres'],
      ['Yield per Harvested Acre', 'yield', 'Bushels per Acre'],
      ['Beginning Stocks', 'beginning_stocks', 'Million Bushels'],
      ['Production', 'production', 'Million Bushels'],
      ['    Supply, Total', 'supply_total', 'Million Bushels'],
      ['Feed and Residual', 'feed_and_residual', 'Million Bushels'],
      ['Food, Seed &amp; Industrial 2/', 'food_seed_industrial', 'Million Bushels'],
      ['   Ethanol &amp; by-products 3/', 'ethanol_by_products', 'Million Bushels'],
      ['    Domestic, Total', 'domestic_total', 'Million Bushels'],
      ['Exports', 'exports', 'Million Bushels'],
      ['    Use, Total', 'use_total', 'Million Bushels'],
      ['Ending Stocks', 'ending_stocks', 'Million Bushels'],
      ['Avg. Farm Price ($/bu)  4/', 'avg_farm_price', 'Dollars per Bushel'],
    ];
    for (const [row, attribute, unit] of rows) {
      const raw = rawRow(JUNE_XML, 'sr12', 2, row);
      expect(raw).toHaveLength(4);
      columns.forEach((c, i) =>
        expect(valueOf(sheetOf(sheets, 'CORN', 'united_states', c.year, c.edition), attribute, unit), row).toBe(
          num(raw[i]!),
        ),
      );
    }
    // the headline: June's 2026/27 ending stocks, and the May edition's figure beside it
    expect(
      valueOf(sheetOf(sheets, 'CORN', 'united_states', '2026/27', '2026-06'), 'ending_stocks', 'Million Bushels'),
    ).toBe(1960);
    expect(
      valueOf(sheetOf(sheets, 'CORN', 'united_states', '2026/27', '2026-05'), 'ending_stocks', 'Million Bushels'),
    ).toBe(1957);
  });

  it('dates each edition at its release: June at 2026-06-11 12:00 New York, the May column at 2026-05-12 12:00', () => {
    const june = sheetOf(sheets, 'CORN', 'united_states', '2026/27', '2026-06');
    const may = sheetOf(sheets, 'CORN', 'united_states', '2026/27', '2026-05');
    // the file states no time: the calendar's, estimated
    expect([june.published_at, june.published_at_estimated]).toEqual(['2026-06-11T16:00:00.000Z', true]);
    expect([may.published_at, may.published_at_estimated, may.status]).toEqual([
      '2026-05-12T16:00:00.000Z',
      true,
      'projection',
    ]);
    expect(sheetOf(sheets, 'CORN', 'united_states', '2025/26', '2026-06').status).toBe('estimate');
    expect(sheetOf(sheets, 'CORN', 'united_states', '2024/25', '2026-06').status).toBe('estimate');
  });

  it('skips the feed grains matrix (no catalog commodity), counted by its table', () => {
    expect(stats.skippedByReason).toEqual({
      'U.S. Feed Grain and Corn Supply and Use: feed grains (no catalog commodity)': 52,
    });
    expect(
      sheets.some((s) => s.figures.some((f) => f.unit === 'Million Metric Tons' && f.attribute === 'area_planted')),
    ).toBe(false);
  });

  it('tells soybeans, soybean oil and soybean meal apart, each in its own units', () => {
    const oil = sheetOf(sheets, 'SOYBEAN_OIL', 'united_states', '2024/25', '2026-06');
    expect(valueOf(oil, 'production', 'Million Pounds')).toBe(num(rawRow(JUNE_XML, 'sr15', 5, 'Production 4/')[0]!));
    expect(valueOf(oil, 'biofuel', 'Million Pounds')).toBe(11758);
    expect(valueOf(oil, 'food_feed_other_industrial', 'Million Pounds')).toBe(15133);
    expect(valueOf(oil, 'avg_price', 'Cents per Pound')).toBe(47.59);
    const meal = sheetOf(sheets, 'SOYBEAN_MEAL', 'united_states', '2024/25', '2026-06');
    expect(valueOf(meal, 'production', 'Thousand Short Tons')).toBe(58443);
    expect(valueOf(meal, 'avg_price', 'Dollars per Short Ton')).toBe(299.77);
    const beans = sheetOf(sheets, 'SOYBEANS', 'united_states', '2024/25', '2026-06');
    expect(valueOf(beans, 'crushings', 'Million Bushels')).toBe(2445);
    expect(valueOf(beans, 'yield', 'Bushels per Acre')).toBe(50.7);
    expect(valueOf(beans, 'avg_farm_price', 'Dollars per Bushel')).toBe(10);
  });

  it('reads the world corn table by region, in million metric tons, the US row beside the US table', () => {
    const regions = new Set(sheets.filter((s) => s.commodity_id === 'CORN').map((s) => s.region));
    for (const r of ['world', 'world_less_china', 'ukraine', 'eu', 'major_exporters', 'southeast_asia', 'china'])
      expect(regions.has(r), r).toBe(true);
    const world = sheetOf(sheets, 'CORN', 'world', '2026/27', '2026-06');
    expect(valueOf(world, 'production', 'Million Metric Tons')).toBe(1300.38);
    expect(valueOf(world, 'ending_stocks', 'Million Metric Tons')).toBe(281.22);
    expect(
      valueOf(sheetOf(sheets, 'CORN', 'world', '2026/27', '2026-05'), 'ending_stocks', 'Million Metric Tons'),
    ).toBe(277.54);
    expect(valueOf(world, 'domestic_feed', 'Million Metric Tons')).toBe(832.56);
    expect(
      valueOf(sheetOf(sheets, 'CORN', 'world', '2024/25', '2026-06'), 'beginning_stocks', 'Million Metric Tons'),
    ).toBe(313.88);
    const us = sheetOf(sheets, 'CORN', 'united_states', '2026/27', '2026-06');
    expect(valueOf(us, 'ending_stocks', 'Million Metric Tons')).toBe(49.78);
    expect(valueOf(us, 'ending_stocks', 'Million Bushels')).toBe(1960);
  });

  it('gives the same batches for the same file, whatever the chunking', async () => {
    const again = await read(JUNE_XML);
    expect(again.sheets).toEqual(sheets);
  });
});

// A real June 2011 edition, trimmed to its U.S. sugar (sr16) and U.S. cotton (sr17) sub-reports (test/fixtures/README.md).
const JUNE_2011 = ownFixturePath('wasde_0611_cotton_sugar_trimmed.xml');

describe('the June 2011 WASDE XML (real, trimmed to sr16 U.S. sugar and sr17 U.S. cotton)', async () => {
  const xml = readFileSync(JUNE_2011, 'utf8');
  const { sheets, items, stats } = await read(chunked(JUNE_2011), { file: 'wasde0611.xml' });
  const of = (commodity: string) => sheets.filter((s) => s.commodity_id === commodity);
  const columns = [
    ['2009/10', '2011-06', 'estimate'],
    ['2010/11', '2011-06', 'estimate'],
    ['2011/12', '2011-05', 'projection'],
    ['2011/12', '2011-06', 'projection'],
  ];

  it('reads the cotton years printed 2010/011 Est. and 2011/012 Proj. as 2010/11 and 2011/12, cell by cell', () => {
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([]);
    const cotton = of('COTTON');
    expect(cotton.map((s) => [s.marketing_year, s.edition, s.status])).toEqual(columns);
    const rows: [string, string, string][] = [
      ['    Planted', 'area_planted', 'Million Acres'],
      ['Yield per Harvested Acre', 'yield', 'Pounds per Acre'],
      ['Ending Stocks', 'ending_stocks', 'Million 480 Pound Bales'],
    ];
    for (const [row, attribute, unit] of rows) {
      const raw = rawRow(xml, 'sr17', 4, row);
      expect(raw, row).toHaveLength(4);
      expect(
        cotton.map((s) => valueOf(s, attribute, unit)),
        row,
      ).toEqual(raw.map(num));
    }
    for (const s of cotton) expect(s.failed_checks).toBeUndefined();
  });

  it("reads the sugar table's two Other rows under their parents: the imports' (printed flush left) and the deliveries'", () => {
    const sugar = of('SUGAR');
    expect(sugar.map((s) => [s.marketing_year, s.edition, s.status])).toEqual(columns);
    const unit = '1,000 Short Tons, Raw Value';
    expect(sugar.map((s) => valueOf(s, 'imports_other', unit))).toEqual(rawRow(xml, 'sr16', 4, 'Other 5/').map(num));
    expect(sugar.map((s) => valueOf(s, 'deliveries_other', unit))).toEqual(
      rawRow(xml, 'sr16', 4, '    Other 7/').map(num),
    );
    expect(sugar.map((s) => valueOf(s, 'mexico', unit))).toEqual(rawRow(xml, 'sr16', 4, '    Mexico').map(num));
    for (const s of sugar) {
      expect(s.figures.some((f) => f.attribute === 'other')).toBe(false);
      expect(s.failed_checks).toBeUndefined();
    }
    expect(Object.keys(stats.skippedByReason).filter((r) => /repeated|second/.test(r))).toEqual([]);
  });
});

// --- hand-made files: the edges -------------------------------------------------------------------

interface Col {
  year: string;
  month?: string;
  value: string;
}
const col = (year: string, value: string, month = ''): Col => ({ year, value, month });

/** A US table of one matrix (the shape of sr17): unit rows 1-3, then each row's cells per column. */
function usTable(sr: string, title: string, rows: [string, Col[]][], opts: { month?: string; units?: string[] } = {}) {
  const units = (opts.units ?? ['Million Acres', 'Pounds', 'Million 480 Pound Bales'])
    .map((u, i) => `<m1_filler${i + 1}><Cell m1_unit_descr${i + 1}="${u}"/></m1_filler${i + 1}>`)
    .join('');
  const body = rows
    .map(
      ([name, cells]) =>
        `<attribute1 attribute1="${name}"><m1_year_group_Collection>${cells
          .map(
            (c) =>
              `<m1_year_group market_year1="${c.year}"><m1_month_group forecast_month1="${c.month ?? ''}"><Cell cell_value1="${c.value}"/></m1_month_group></m1_year_group>`,
          )
          .join('')}</m1_year_group_Collection></attribute1>`,
    )
    .join('');
  return `<${sr}><Report Name="${sr}" Report_Month="${opts.month ?? 'June 2026'}" sub_report_title="${title}"><matrix1><m1_attribute_group>${units}${body}</m1_attribute_group></matrix1></Report></${sr}>`;
}
const doc = (...reports: string[]) =>
  `<?xml version='1.0' encoding='utf-8'?><Report Name="wasde">${reports.join('')}</Report>`;

const COTTON = 'U.S. Cotton Supply and Use  1/';
const P = '2026/27 Proj.';

describe('the edges of the format', () => {
  it('reads footnote marks, CRLF in names, sub-row indents, commas, marks, NA and empty cells', async () => {
    const { sheets, stats } = await read(
      doc(
        usTable('sr17', COTTON, [
          ['Beginning&#13;&#10;Stocks 2/', [col(P, '4.30', 'May'), col(P, '4.40', 'Jun')]],
          ['     Production *', [col(P, '14,100 *', 'May'), col(P, '1,412.5', 'Jun')]],
          ['Imports', [col(P, 'NA', 'May'), col(P, '', 'Jun')]],
          ['Avg. Farm Price 3/', [col(P, '62.0', 'May'), col(P, '63.5', 'Jun')]],
          ['Area Planted', [col(P, '10.1', 'May'), col(P, '10.2', 'Jun')]],
          ['Yield per Harvested Acre', [col(P, '850', 'May'), col(P, '860', 'Jun')]],
        ]),
      ),
    );
    const june = sheetOf(sheets, 'COTTON', 'united_states', '2026/27', '2026-06');
    expect(june.figures).toEqual([
      { attribute: 'beginning_stocks', unit: 'Million 480 Pound Bales', value: 4.4 },
      { attribute: 'production', unit: 'Million 480 Pound Bales', value: 1412.5 },
      { attribute: 'avg_farm_price', unit: 'Cents per Pound', value: 63.5 },
      { attribute: 'area_planted', unit: 'Million Acres', value: 10.2 },
      { attribute: 'yield', unit: 'Pounds per Acre', value: 860 },
    ]);
    expect(
      valueOf(
        sheetOf(sheets, 'COTTON', 'united_states', '2026/27', '2026-05'),
        'production',
        'Million 480 Pound Bales',
      ),
    ).toBe(14100);
    expect(stats.skippedByReason).toEqual({ 'cell not a number (NA)': 1, 'empty cell': 1 });
  });

  it('skips a table it does not map, counted by its title, beside one it does', async () => {
    const { sheets, stats } = await read(
      doc(
        usTable('sr31', 'U.S. Quarterly Animal Product Production  1/', [['Beef', [col('2026', '1')]]]),
        usTable('sr17', COTTON, [['Exports', [col(P, '12.0')]]]),
      ),
    );
    expect(sheets.map((s) => s.commodity_id)).toEqual(['COTTON']);
    expect(stats.skippedByReason).toEqual({ 'table not read: U.S. Quarterly Animal Product Production': 1 });
  });

  it('skips a matrix past those a table is known to hold, counted, the others read in their places', async () => {
    const fourth = JUNE_XML.replace(
      '</matrix3>',
      `</matrix3><matrix4><attribute7 attribute7="Exports"><m4_year_group market_year7="${P}"><Cell cell_value7="1"/></m4_year_group></attribute7></matrix4>`,
    );
    const { sheets, stats } = await read(fourth);
    expect(sheets).toHaveLength(88);
    expect(
      stats.skippedByReason[
        'U.S. Soybeans and Products Supply and Use (Domestic Measure): matrix 4 of 4 (the table has 3)'
      ],
    ).toBe(1);
  });

  it('refuses a file of no known sub-report, naming what it holds', async () => {
    await expect(
      read(doc(usTable('sr31', 'U.S. Egg Supply and Use', [['Production', [col(P, '1')]]]))),
    ).rejects.toThrow(/holds no sub-report this reader knows \(sr31: U\.S\. Egg Supply and Use\)/);
    await expect(read('<Report Name="wasde"></Report>')).rejects.toThrow(/holds no WASDE sub-report/);
  });

  it('refuses an unknown layout (a mapped table whose cells lack year or row context), naming the sub-report', async () => {
    const noYear = usTable('sr17', COTTON, [['Exports', [col('', '12.0')]]]);
    await expect(read(doc(noYear))).rejects.toThrow(
      /^wasde: wasde0626\.xml: sr17 \(U\.S\. Cotton Supply and Use\) is not a layout this reader knows: a cell without a marketing year/,
    );
    const noRow = usTable('sr17', COTTON, [['', [col(P, '12.0')]]]);
    await expect(read(doc(noRow))).rejects.toThrow(/sr17 .*a cell without a row name/);
  });

  it('reads a three-digit second year (2010-2013 cotton) as the marketing year; another stays refused, naming the sub-report', async () => {
    const { sheets } = await read(
      doc(usTable('sr17', COTTON, [['Exports', [col('2011/012 Proj.', '12.0'), col('2010/011 Est.', '14.4')]]])),
      { file: 'wasde0626.xml' },
    );
    expect(sheets.map((s) => [s.marketing_year, s.status, s.figures[0]?.value])).toEqual([
      ['2011/12', 'projection', 12],
      ['2010/11', 'estimate', 14.4],
    ]);
    // the July 2010 file writes `name=`, not `Name=`
    const wrong = usTable('sr17', COTTON, [['Exports', [col('2010/012 Proj.', '12.0')]]]).replace(
      'Name="sr17"',
      'name="sr17"',
    );
    await expect(read(doc(wrong))).rejects.toThrow(
      /^wasde: wasde0626\.xml: sr17 \(U\.S\. Cotton Supply and Use\) is not a layout this reader knows: a cell without a marketing year \("2010\/012 Proj\."\)/,
    );
  });

  it('qualifies a sub-row name repeated under different parents, or generic (Other), by its parent row', async () => {
    const SUGAR = 'U.S. Sugar Supply and Use  1/';
    const sugar = (rows: [string, string][]) =>
      doc(
        usTable(
          'sr18',
          SUGAR,
          rows.map(([name, v]) => [name, [col(P, v)]]),
          { units: ['1,000 Short Tons, Raw Value'] },
        ),
      );
    const attrs = (sheets: SupplyDemandItem[]) => sheets[0]!.figures.map((f) => [f.attribute, f.value]);
    const indented: [string, string][] = [
      ['Imports', '3,000'],
      ['    TRQ 3/', '1,500'],
      ['    Other 5/', '1,400'],
      ['        Mexico', '1,300'],
      ['Deliveries', '12,000'],
      ['    Food', '11,800'],
      ['    Other 7/', '200'],
    ];
    const plain = await read(sugar(indented));
    expect(attrs(plain.sheets)).toEqual([
      ['imports', 3000],
      ['trq', 1500],
      ['imports_other', 1400],
      ['mexico', 1300],
      ['deliveries', 12000],
      ['food', 11800],
      ['deliveries_other', 200],
    ]);
    expect(plain.stats.skippedByReason).toEqual({});
    // 2010-2015: the imports' Other printed flush left between two sub-rows
    const flush = await read(sugar(indented.map(([n, v]) => [n === '    Other 5/' ? 'Other 5/' : n, v])));
    expect(attrs(flush.sheets)).toEqual(attrs(plain.sheets));
    // from May 2022 one Other only (the imports' is High-tier tariff/other): still deliveries_other
    const one = await read(sugar(indented.filter(([n]) => n !== '    Other 5/')));
    expect(attrs(one.sheets).map(([a]) => a)).toEqual([
      'imports',
      'trq',
      'mexico',
      'deliveries',
      'food',
      'deliveries_other',
    ]);
    // a name said once and not generic keeps its plain name; a generic one printed flush left too
    const lone = await read(
      sugar([
        ['Other', '5'],
        ['Deliveries', '12,000'],
        ['    Food', '11,800'],
      ]),
    );
    expect(attrs(lone.sheets).map(([a]) => a)).toEqual(['other', 'deliveries', 'food']);
    // January 2011: no row indented, so no parent to tell the two apart: both skipped, counted
    const flat = await read(sugar(indented.map(([n, v]) => [n.trim(), v])));
    expect(attrs(flat.sheets).map(([a]) => a)).toEqual(['imports', 'trq', 'mexico', 'deliveries', 'food']);
    expect(flat.stats.skippedByReason).toEqual({
      'U.S. Sugar Supply and Use: a repeated row "other" whose parent row the table does not show (no indent)': 2,
    });
  });

  it('reads the U.S. meats table (by calendar year, its names prefixed m1_): beef as LIVE_CATTLE, pork as LEAN_HOGS', async () => {
    // the shape of the real table (sr32 of May 2025), rows and values of its 2024 and 2025 Proj. columns
    const rows = (values: string[]) =>
      [
        ['Beginning&#xD;&#xA;stocks', ''],
        ['Production&#xD;&#xA;1/', ''],
        ['Imports', ''],
        ['Total&#xD;&#xA;Supply', 'Million'],
        ['Exports', ' Pounds /4'],
        ['Ending&#xD;&#xA;Stocks', ''],
        ['Total&#xD;&#xA;Use', ''],
        ['Per Capita&#xD;&#xA;2/  3/', ''],
      ]
        .map(
          ([name, unit], i) =>
            `<m1_attribute_group m1_attribute1="${name}"><m1_unit_description1 m1_unit_description1="${unit}"><Cell m1_cell_value1="${values[i]}" /></m1_unit_description1></m1_attribute_group>`,
        )
        .join('');
    const column = (year: string, month: string, values: string[]) =>
      `<m1_year_group m1_market_year1="${year}"><m1_month_group_Collection><m1_month_group m1_forecast_month1="${month}"><m1_attribute_group_Collection>${rows(values)}</m1_attribute_group_Collection></m1_month_group></m1_month_group_Collection></m1_year_group>`;
    const group = (name: string, columns: string) =>
      `<m1_commodity_group m1_commodity1="${name}"><m1_year_group_Collection>${columns}</m1_year_group_Collection></m1_commodity_group>`;
    const beef = ['638', '27,051', '4,635', '32,324', '3,003', '602', '28,718', '59.1'];
    const pork = ['435', '28,011', '1,090', '29,536', '7,058', '425', '22,053', '50.0'];
    const meats = `<sr32><Report Name="sr32" Report_Month="May 2025" sub_report_title="U.S. Meats Supply and Use"><matrix1><m1_commodity_group_Collection>${[
      group('Beef', column('2024', '', beef)),
      group('Pork', column('2025 Proj.', 'May', pork)),
      group('Broiler', column('2024', '', beef)),
    ].join('')}</m1_commodity_group_Collection></matrix1></Report></sr32>`;
    const { sheets, stats } = await read(doc(meats), { file: 'wasde0525.xml' });
    expect(sheets.map((s) => [s.commodity_id, s.marketing_year, s.status, s.edition, s.failed_checks])).toEqual([
      ['LIVE_CATTLE', '2024', 'estimate', '2025-05', undefined],
      ['LEAN_HOGS', '2025', 'projection', '2025-05', undefined],
    ]);
    expect(sheets[0]!.figures).toEqual([
      { attribute: 'beginning_stocks', unit: 'Million Pounds', value: 638 },
      { attribute: 'production', unit: 'Million Pounds', value: 27051 },
      { attribute: 'imports', unit: 'Million Pounds', value: 4635 },
      { attribute: 'supply_total', unit: 'Million Pounds', value: 32324 },
      { attribute: 'exports', unit: 'Million Pounds', value: 3003 },
      { attribute: 'ending_stocks', unit: 'Million Pounds', value: 602 },
      { attribute: 'use_total', unit: 'Million Pounds', value: 28718 },
      { attribute: 'per_capita', unit: 'Pounds per Person, Retail Weight', value: 59.1 },
    ]);
    expect(stats.skippedByReason).toEqual({ 'U.S. Meats Supply and Use: broiler (no catalog commodity)': 8 });
    // its Total Use is domestic: exports beside it balance the supply (32,324 = 28,718 + 3,003 + 602 within rounding)
    const off = meats.replace('m1_cell_value1="3,003"', 'm1_cell_value1="2,003"');
    expect((await read(doc(off), { file: 'wasde0525.xml' })).sheets[0]!.failed_checks).toEqual([SUPPLY_CHECK]);
    // a calendar year table's year is YYYY; a YYYY/YY there is not a layout it knows
    await expect(
      read(doc(meats.replace('"2025 Proj."', '"2025/26 Proj."')), { file: 'wasde0525.xml' }),
    ).rejects.toThrow(
      /sr32 \(U\.S\. Meats Supply and Use\) is not a layout this reader knows: a cell without a marketing year/,
    );
  });

  it('refuses a US table whose matrix does not read as the commodity its position says (a reordered table)', async () => {
    const oilFirst = usTable(
      'sr15',
      'U.S. Soybeans and Products Supply and Use (Domestic Measure) 1/',
      [['Production', [col(P, '29,218')]]],
      { units: ['Million Pounds'] },
    );
    await expect(read(doc(oilFirst))).rejects.toThrow(
      /matrix 1 does not read as SOYBEANS \(its quantity unit is "Million Pounds"\)/,
    );
  });

  it('refuses truncated and hostile XML before yielding anything', async () => {
    await expect(read(JUNE_XML.slice(0, 100_000))).rejects.toThrow(WasdeFileError);
    await expect(read(JUNE_XML.slice(0, 100_000), { file: 'wasde0626.xml' })).rejects.toThrow(
      /^wasde: wasde0626\.xml: malformed XML: (?:an unterminated tag|.*is never closed).*; nothing was published$/,
    );
    await expect(read(`<!DOCTYPE r [<!ENTITY a "aaaa">]>${doc(usTable('sr17', COTTON, []))}`)).rejects.toThrow(
      'a DOCTYPE or entity declaration is not read',
    );
    await expect(read(doc(usTable('sr17', '&lol;', [])))).rejects.toThrow(/unknown entity &lol;/);
    await expect(read(`${'<a>'.repeat(100)}${'</a>'.repeat(100)}`)).rejects.toThrow(/nested deeper than 48/);
    await expect(read(`<Report Name="${'x'.repeat(20_000)}"/>`)).rejects.toThrow(/longer than the 16384 characters/);
  });

  it('reads wheat by class: each class the catalog lists its own commodity, the others skipped', async () => {
    const group = (cls: string, ending: string) =>
      `<m1_class_group attribute_group1="${cls}"><attribute1 attribute1="Ending Stocks"><m1_year_group market_year1="${P}"><Cell cell_value1="${ending}"/></m1_year_group></attribute1></m1_class_group>`;
    const byClass = `<sr11><Report Name="sr11" Report_Month="June 2026" sub_report_title="U.S. Wheat by Class: Supply and Use"><matrix1>${[
      group('Hard Red Winter', '300'),
      group('Hard Red Spring  2/', '200'),
      group('Soft Red Winter', '100'),
      group('White', '80'),
    ].join('')}</matrix1></Report></sr11>`;
    const { sheets, stats } = await read(doc(byClass));
    expect(sheets.map((s) => [s.commodity_id, s.figures])).toEqual([
      ['WHEAT_HRW', [{ attribute: 'ending_stocks', unit: 'Million Bushels', value: 300 }]],
      ['WHEAT_HRS', [{ attribute: 'ending_stocks', unit: 'Million Bushels', value: 200 }]],
      ['WHEAT_SRW', [{ attribute: 'ending_stocks', unit: 'Million Bushels', value: 100 }]],
    ]);
    expect(stats.skippedByReason).toEqual({ 'U.S. Wheat by Class: Supply and Use: white (no catalog commodity)': 1 });
  });

  it("reads a corn matrix that repeats the feed grains' unit rows (August 2010) in bushels, proved by its price row", async () => {
    const matrix = (n: number, rows: [string, string][]) =>
      `<matrix${n}>${['Million Acres', 'Metric Tons', 'Million Metric Tons']
        .map((u, i) => `<m${n}_filler${i + 1}><Cell m${n}_unit_descr${i + 1}="${u}"/></m${n}_filler${i + 1}>`)
        .join('')}${rows
        .map(
          ([name, v]) =>
            `<attribute${n} attribute${n}="${name}"><m${n}_year_group market_year${n}="${P}"><Cell cell_value${n}="${v}"/></m${n}_year_group></attribute${n}>`,
        )
        .join('')}</matrix${n}>`;
    const sr12 = (corn: [string, string][]) =>
      doc(
        `<sr12><Report Name="sr12" Report_Month="August 2010" sub_report_title="U.S. Feed Grain and Corn Supply and Use  1/">${matrix(1, [['Ending Stocks', '40.1']])}${matrix(2, corn)}</Report></sr12>`,
      );
    const { sheets } = await read(
      sr12([
        ['Ending Stocks', '1,400'],
        ['Avg. Farm Price ($/bu)  4/', '3.70'],
      ]),
      {
        file: 'wasde0810.xml',
      },
    );
    expect(sheets.map((s) => [s.commodity_id, s.edition, s.figures])).toEqual([
      [
        'CORN',
        '2010-08',
        [
          { attribute: 'ending_stocks', unit: 'Million Bushels', value: 1400 },
          { attribute: 'avg_farm_price', unit: 'Dollars per Bushel', value: 3.7 },
        ],
      ],
    ]);
    // without the price row nothing proves it is corn: refused, not filed in metric tons
    await expect(read(sr12([['Ending Stocks', '1,400']]), { file: 'wasde0810.xml' })).rejects.toThrow(
      /matrix 2 does not read as CORN \(no row matches .*, its quantity unit is "Million Metric Tons"\)/,
    );
  });

  it('keeps only the context keys it reads, however many attributes the ancestors carry (bounded work per cell)', () => {
    const attrs = (level: number) => Array.from({ length: 60 }, (_, i) => `x${level}_${i}="v"`).join(' ');
    const deep = Array.from({ length: 40 }, (_, l) => `<g${l} ${attrs(l)} attribute${l}="Exports">`).join('');
    const close = Array.from({ length: 40 }, (_, l) => `</g${39 - l}>`).join('');
    const cells = '<Cell cell_value1="1" market_year1="2026/27"/>'.repeat(1_000);
    const [report] = readSubReports(
      doc(
        `<sr1><Report Name="sr1" Report_Month="June 2026" sub_report_title="t">${deep}${cells}${close}</Report></sr1>`,
      ),
    );
    expect(report!.cells).toHaveLength(1_000);
    expect(report!.cells[999]!.context).toEqual({ attribute: 'Exports', market_year: '2026/27' });
  });

  it('names the edition by Report_Month, and a column of another month by that month', async () => {
    const january = usTable('sr17', COTTON, [['Exports', [col(P, '11.0', 'Dec'), col(P, '12.0', 'Jan')]]], {
      month: 'January 2027',
    });
    const { sheets } = await read(doc(january), { file: 'wasde0127.xml' });
    expect(sheets.map((s) => [s.edition, s.published_at, s.published_at_estimated])).toEqual([
      // USDA's calendar, estimated: the file states no time
      ['2026-12', '2026-12-10T17:00:00.000Z', true],
      // 2027 is past USDA's published calendar: the 12th (a Tuesday), noon New York, estimated
      ['2027-01', '2027-01-12T17:00:00.000Z', true],
    ]);
    // --published-at states the file's own edition's time; the December column stays the calendar's, estimated
    const stated = await read(doc(january), { file: 'wasde0127.xml', publishedAt: '2027-01-12T12:00:00-05:00' });
    expect(stated.sheets.map((s) => [s.edition, s.published_at, s.published_at_estimated])).toEqual([
      ['2026-12', '2026-12-10T17:00:00.000Z', true],
      ['2027-01', '2027-01-12T17:00:00.000Z', undefined],
    ]);
    await expect(read(doc(january), { file: 'wasde0626.xml' })).rejects.toThrow(
      /wasde0626\.xml is named for 2026-06 but holds the 2027-01 report/,
    );
  });

  it("takes the file name's edition when no sub-report states its month, and refuses a file with neither", async () => {
    const unstated = doc(usTable('sr17', COTTON, [['Exports', [col(P, '12.0')]]], { month: '' }));
    expect((await read(unstated, { file: 'wasde0626.xml' })).sheets.map((s) => s.edition)).toEqual(['2026-06']);
    await expect(read(unstated, { file: 'cotton.xml' })).rejects.toThrow(
      /cotton\.xml does not name one report month \(Report_Month: none\)/,
    );
  });

  it('reads a world table that names its regions in region_header and its years in market_year', async () => {
    const world = `<sr26><Report Name="sr26" Report_Month="June 2026" sub_report_title="World Cotton Supply and Use" sub_report_subtitle="(Million 480-Pound Bales)"><matrix1 region_header1="India"><m1_year_group market_year1="${P}"><attribute1 attribute1="Loss 2/"><Cell cell_value1="0.25"/></attribute1></m1_year_group></matrix1></Report></sr26>`;
    const { sheets } = await read(doc(world));
    expect(sheets.map((s) => [s.commodity_id, s.region, s.figures])).toEqual([
      ['COTTON', 'india', [{ attribute: 'loss', unit: 'Million 480-Pound Bales', value: 0.25 }]],
    ]);
  });

  it('publishes a v2 re-post as a revision: at --published-at, else the release + 1 day (estimated)', async () => {
    const may = doc(usTable('sr17', COTTON, [['Exports', [col(P, '12.0', 'May')]]], { month: 'May 2026' }));
    const estimated = (await read(may, { file: 'wasde0526v2.xml' })).sheets[0]!;
    expect([estimated.edition, estimated.published_at, estimated.published_at_estimated]).toEqual([
      '2026-05',
      '2026-05-13T16:00:00.000Z',
      true,
    ]);
    const stated = (await read(may, { file: 'wasde0526v2.xml', publishedAt: '2026-05-13T15:30:00-04:00' })).sheets[0]!;
    expect([stated.published_at, stated.published_at_estimated, stated.source]).toEqual([
      '2026-05-13T19:30:00.000Z',
      undefined,
      'wasde:wasde0526v2.xml',
    ]);
  });

  it('refuses a --published-at that is not RFC 3339 or not in the edition month', async () => {
    const june = doc(usTable('sr17', COTTON, [['Exports', [col(P, '12.0')]]]));
    await expect(read(june, { publishedAt: '2026-06-11' })).rejects.toThrow(SourceUsageError);
    await expect(read(june, { publishedAt: '2026-07-01T12:00:00Z' })).rejects.toThrow(
      /is in 2026-07 \(New York\), but the file is the 2026-06 edition/,
    );
  });

  it('publishes a sheet that fails its balance, flagged and counted, never dropped', async () => {
    const { sheets, stats } = await read(
      doc(
        usTable('sr17', COTTON, [
          ['    Supply, Total', [col(P, '100.0'), col('2025/26 Est.', '100.0')]],
          ['    Use, Total', [col(P, '90.0'), col('2025/26 Est.', '90.0')]],
          ['Ending Stocks', [col(P, '9.8'), col('2025/26 Est.', '10.1')]],
        ]),
      ),
    );
    expect(sheets.map((s) => [s.marketing_year, s.failed_checks])).toEqual([
      ['2026/27', ['supply_equals_use_plus_ending_stocks']],
      ['2025/26', undefined],
    ]);
    expect(stats.failedChecks).toEqual({ supply_equals_use_plus_ending_stocks: 1 });
  });
});

describe('names, values and editions', () => {
  it('snake_cases row names without footnotes or units, with the few aliases', () => {
    expect(attributeOf('Food, Seed & Industrial 2/')).toBe('food_seed_industrial');
    expect(attributeOf('Avg. Farm Price ($/bu)  4/')).toBe('avg_farm_price');
    expect(attributeOf('Ending\r\nStocks')).toBe('ending_stocks');
    expect(attributeOf('     Ethanol & by-products 3/')).toBe('ethanol_by_products');
    expect(attributeOf('Yield per Harvested Acre')).toBe('yield');
    expect(attributeOf('Total Supply')).toBe('supply_total');
    expect(attributeOf('    Use, Total')).toBe('use_total');
    expect(attributeOf('Domestic\r\nTotal 2/')).toBe('domestic_total');
    // the cotton table's `Area` header over `Planted` and `Harvested`
    expect([attributeOf('    Planted'), attributeOf('  Harvested')]).toEqual(['area_planted', 'area_harvested']);
    expect(attributeOf(' 2/ ')).toBeUndefined();
    expect(regionOf('World  3/')).toBe('world');
    expect(regionOf('        Ukraine')).toBe('ukraine');
    expect(regionOf('European Union 6/')).toBe('eu');
    expect(regionOf('Major Exporters 4/')).toBe('major_exporters');
    expect(unitInName('Avg. Price ($/s.t.)  2/')).toBe('Dollars per Short Ton');
    expect(unitInName('Avg. Milling Yield (%)  5/')).toBe('Percent');
    expect(unitInName('Avg. Price (c/lb)  2/')).toBe('Cents per Pound');
    expect(unitInName('Avg. Farm Price ($/cwt)')).toBe('Dollars per Hundredweight');
  });

  it('reads numbers with commas and marks, and nothing else', () => {
    expect([cellNumber('6,100'), cellNumber('106.2 *'), cellNumber('-0.5'), cellNumber('1,295.38')]).toEqual([
      6100, 106.2, -0.5, 1295.38,
    ]);
    expect(cellNumber('12.5 2/')).toBe(12.5);
    for (const bad of ['', 'NA', ' ', 'n/a', '1.2.3', '12a', '(D)', '2/']) expect(cellNumber(bad), bad).toBeUndefined();
  });

  it('reads marketing years and their status', () => {
    expect(marketingYearOf('2026/27 Proj.')).toEqual({ year: '2026/27', status: 'projection' });
    expect(marketingYearOf('2025/26 Est.')).toEqual({ year: '2025/26', status: 'estimate' });
    expect(marketingYearOf('2025/26 (Est.)')).toEqual({ year: '2025/26', status: 'estimate' });
    expect(marketingYearOf('2024/25')).toEqual({ year: '2024/25', status: 'estimate' });
    expect(marketingYearOf('1999/00')).toEqual({ year: '1999/00', status: 'estimate' });
    for (const bad of ['2026/28', '2026', 'Filler', '']) expect(marketingYearOf(bad), bad).toBeUndefined();
  });

  it('reads the three-digit second year of the 2010-2013 US cotton tables only when it is the next year', () => {
    expect(marketingYearOf('2010/011 Proj.')).toEqual({ year: '2010/11', status: 'projection' });
    expect(marketingYearOf('2011/012 Est.')).toEqual({ year: '2011/12', status: 'estimate' });
    expect(marketingYearOf('2012/013')).toEqual({ year: '2012/13', status: 'estimate' });
    expect(marketingYearOf('1999/000 Proj.')).toEqual({ year: '1999/00', status: 'projection' });
    for (const bad of ['2010/012', '2010/111', '2010/010 Est.', '2010/0111', '2010/1'])
      expect(marketingYearOf(bad), bad).toBeUndefined();
  });

  it('reads editions from Report_Month, columns and file names', () => {
    expect(editionOfReportMonth('June 2026')).toBe('2026-06');
    expect(editionOfReportMonth('Sept 2013')).toBe('2013-09');
    expect(editionOfReportMonth('Juney 2026')).toBeUndefined();
    expect([monthNumber('Jun'), monthNumber('June'), monthNumber('Jun.'), monthNumber('Ju')]).toEqual([
      6,
      6,
      6,
      undefined,
    ]);
    expect(columnEdition('2026-06', 'May')).toBe('2026-05');
    expect(columnEdition('2026-06', 'June')).toBe('2026-06');
    expect(columnEdition('2026-06', '')).toBe('2026-06');
    expect(columnEdition('2027-01', 'Dec')).toBe('2026-12');
    // November 2013 printed September beside it (October 2013 was cancelled)
    expect(columnEdition('2013-11', 'Sep')).toBe('2013-09');
    expect(columnEdition('2026-06', 'Filler')).toBeUndefined();
    expect(fileNameFacts('wasde0626.xml')).toEqual({ edition: '2026-06', repost: false });
    expect(fileNameFacts('/tmp/x/wasde0526v2.xml')).toEqual({ edition: '2026-05', repost: true });
    expect(fileNameFacts('june.xml')).toEqual({ repost: false });
  });
});

describe('the balance check at its edges', () => {
  const f = (attribute: string, value: number, decimals: number, unit = 'Million Bushels'): ReadFigure => ({
    attribute,
    unit,
    value,
    decimals,
  });
  const us = (supply: number, use: number, ending: number, decimals = 0) => [
    f('supply_total', supply, decimals),
    f('use_total', use, decimals),
    f('ending_stocks', ending, decimals),
  ];

  it('US tables: supply_total = use_total + ending_stocks within 1.5 units of the last printed digit', () => {
    // the real soybean meal 2024/25 sheet: 59,704 against 59,305 + 398, one unit off
    expect(failedChecks('united_states', us(59_704, 59_305, 398))).toEqual([]);
    expect(failedChecks('united_states', us(59_705, 59_305, 398))).toEqual([SUPPLY_CHECK]);
    expect(failedChecks('united_states', us(441.0, 398.6, 42.3, 1))).toEqual([]); // feed grains 2024/25: 0.1 off
    expect(failedChecks('united_states', us(441.2, 398.6, 42.3, 1))).toEqual([SUPPLY_CHECK]);
    // the finest digit printed sets the rounding
    expect(
      failedChecks('united_states', [f('supply_total', 10, 0), f('use_total', 8.5, 1), f('ending_stocks', 1.3, 1)]),
    ).toEqual([SUPPLY_CHECK]);
  });

  it('world tables: beginning + production + imports = domestic + exports + ending within 3 units, not on world aggregates', () => {
    const t = 'Million Metric Tons';
    const sheet = (delta: number) => [
      f('beginning_stocks', 10, 2, t),
      f('production', 20, 2, t),
      f('imports', 5, 2, t),
      f('domestic_total', 25, 2, t),
      f('exports', 3, 2, t),
      f('ending_stocks', 7 + delta, 2, t),
    ];
    expect(failedChecks('ukraine', sheet(0.03))).toEqual([]);
    expect(failedChecks('ukraine', sheet(0.04))).toEqual([SUPPLY_CHECK]);
    for (const aggregate of ['world', 'world_less_china', 'total_foreign'])
      expect(failedChecks(aggregate, sheet(8)), aggregate).toEqual([]);
    expect(failedChecks('major_exporters', sheet(8))).toEqual([SUPPLY_CHECK]);
  });

  it("counts what else a table says leaves the balance: U.S. cotton's unaccounted, world cotton's loss", () => {
    const cotton = [...us(19.5, 14.9, 4.4, 1), f('unaccounted', 0.2, 1)];
    expect(failedChecks('united_states', cotton)).toEqual([]);
    expect(failedChecks('united_states', us(19.5, 14.9, 4.4, 1))).toEqual([SUPPLY_CHECK]);
    const t = '480 lb. Bales';
    const india = [
      f('beginning_stocks', 10, 2, t),
      f('production', 20, 2, t),
      f('imports', 5, 2, t),
      f('domestic_total', 25, 2, t),
      f('exports', 3, 2, t),
      f('loss', 0.5, 2, t),
      f('ending_stocks', 6.5, 2, t),
    ];
    expect(failedChecks('india', india)).toEqual([]);
  });

  it('checks each unit on its own, and not a sheet missing a term', () => {
    expect(
      failedChecks('united_states', [...us(100, 90, 10), f('ending_stocks', 99, 0, 'Million Metric Tons')]),
    ).toEqual([]);
    expect(failedChecks('united_states', [f('supply_total', 100, 0), f('use_total', 1, 0)])).toEqual([]);
    expect(balances(new Map(), { supply: ['supply_total'], use: ['use_total'] })).toBeUndefined();
  });
});
