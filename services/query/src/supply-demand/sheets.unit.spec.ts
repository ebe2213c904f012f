import { SupplyDemandFigure } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { supplyDemandSheet, type SheetRelease } from '../testing/index.ts';
import {
  attributeRank,
  attributesOf,
  changeBetween,
  compareFigures,
  editionsOf,
  figuresInView,
  sheetParts,
} from './sheets.ts';
import { derivedStocksToUse, hasStocksToUse, stocksToUseRatio } from './stocks-to-use.ts';

// The May and June 2026 WASDE (12:00 New York, 16:00Z), and a corrected re-post of May the next day.
const MAY = '2026-05-12T16:00:00.000Z';
const MAY_V2 = '2026-05-13T18:30:00.000Z';
const JUNE = '2026-06-11T16:00:00.000Z';
const MB = 'Million Bushels';

/** US corn 2026/27 as the June 2026 WASDE states it for May and for June (sr12). */
const corn2026 = (june: Partial<Record<string, number>> = {}): SheetRelease[] => {
  const may: [string, string, number][] = [
    ['area_planted', 'Million Acres', 95.3],
    ['yield', 'Bushels', 183],
    ['beginning_stocks', MB, 2142],
    ['production', MB, 15995],
    ['imports', MB, 25],
    ['supply_total', MB, 18162],
    ['feed_and_residual', MB, 6100],
    ['exports', MB, 3150],
    ['use_total', MB, 16205],
    ['ending_stocks', MB, 1957],
    ['avg_farm_price', 'Dollars per Bushel', 4.4],
    ['ethanol_and_by_products', MB, 5600],
  ];
  const changed = { beginning_stocks: 2145, supply_total: 18165, ending_stocks: 1960, ...june };
  return [
    { p: MAY, figures: may },
    { p: JUNE, figures: may.map(([a, u, v]) => [a, u, changed[a as keyof typeof changed] ?? v] as const) },
  ];
};

describe('balance-sheet order', () => {
  it('places the rows as WASDE prints them, prefixes included, and the others after them in text order', () => {
    const names = ['zinc_use', 'ending_stocks', 'avg_farm_price', 'area_planted', 'ethanol_and_by_products', 'alpha'];
    names.sort((a, b) => compareFigures({ attribute: a, unit: '' }, { attribute: b, unit: '' }));
    expect(names).toEqual([
      'area_planted',
      'ethanol_and_by_products',
      'ending_stocks',
      'avg_farm_price',
      'alpha',
      'zinc_use',
    ]);
    expect(attributeRank('yield_per_harvested_acre')).toBe(attributeRank('yield'));
    expect(attributeRank('stocks_to_use')).toBe(attributeRank('ending_stocks') + 1);
    // One attribute in two units: by unit (Million Bushels before Million Metric Tons).
    expect(
      compareFigures({ attribute: 'production', unit: 'Million Metric Tons' }, { attribute: 'production', unit: MB }),
    ).toBeGreaterThan(0);
  });
});

describe('stocks_to_use', () => {
  it('is ending stocks over total use, 4 decimals, for the grains and soybeans only', () => {
    expect(stocksToUseRatio(1957, 16205)).toBe(0.1208);
    expect(stocksToUseRatio(1, 0)).toBeUndefined();
    expect(['CORN', 'WHEAT', 'WHEAT_HRW', 'SOYBEANS', 'OATS', 'ROUGH_RICE'].every(hasStocksToUse)).toBe(true);
    expect(['SOYBEAN_OIL', 'SOYBEAN_MEAL', 'COTTON', 'SUGAR', 'GOLD'].some(hasStocksToUse)).toBe(false);
  });

  it('follows the releases: a version where the ratio changed, none where a release confirmed it', () => {
    const sheet = supplyDemandSheet('CORN', 'united_states', '2026/27', [
      ...corn2026(),
      { p: '2026-07-10T16:00:00.000Z', figures: corn2026()[1]!.figures },
    ]);
    const derived = derivedStocksToUse(sheet)!;
    expect(derived.basis).toBe(`ending_stocks|${MB}`);
    expect(derived.versions.map((v) => [sheet.releases![v.r!]!.p, v.v, v.u])).toEqual([
      [MAY, 0.1208, 'ratio'],
      [JUNE, 0.121, 'ratio'],
    ]);
  });

  it('uses domestic_total + exports without use_total, and domestic_total alone for the world', () => {
    const rows = [
      ['domestic_total', 'Million Metric Tons', 300],
      ['exports', 'Million Metric Tons', 100],
      ['ending_stocks', 'Million Metric Tons', 40],
    ] as const;
    const china = supplyDemandSheet('CORN', 'china', '2026/27', [{ p: JUNE, figures: rows }]);
    const world = supplyDemandSheet('CORN', 'world', '2026/27', [{ p: JUNE, figures: rows }]);
    expect(derivedStocksToUse(china)!.versions[0]!.v).toBe(0.1);
    expect(derivedStocksToUse(world)!.versions[0]!.v).toBe(0.1333);
    expect(
      derivedStocksToUse(supplyDemandSheet('CORN', 'china', '2026/27', [{ p: JUNE, figures: rows.slice(2) }])),
    ).toBeUndefined();
  });

  it('takes the unit with a use_total row when ending stocks are stated in two units', () => {
    const sheet = supplyDemandSheet('CORN', 'united_states', '2026/27', [
      {
        p: JUNE,
        figures: [
          ['ending_stocks', 'Million Metric Tons', 49.79],
          ['domestic_total', 'Million Metric Tons', 331.6],
          ['exports', 'Million Metric Tons', 80.01],
          ['ending_stocks', MB, 1960],
          ['use_total', MB, 16205],
        ],
      },
    ]);
    expect(derivedStocksToUse(sheet)!.basis).toBe(`ending_stocks|${MB}`);
    const figures = figuresInView([sheetParts(sheet)], undefined, 'stocks_to_use');
    expect(figures).toHaveLength(1);
  });
});

describe('view=figures', () => {
  const sheets = [
    supplyDemandSheet('CORN', 'united_states', '2025/26', [
      { p: MAY, status: 'estimate', figures: [['ending_stocks', MB, 2142]] },
      { p: JUNE, status: 'estimate', figures: [['ending_stocks', MB, 2145]] },
    ]),
    supplyDemandSheet('CORN', 'united_states', '2026/27', corn2026()),
  ];
  const parts = sheets.map(sheetParts);

  it('gives the figures in force, newest marketing year first, in balance-sheet order, derived labelled', () => {
    const figures = figuresInView(parts, undefined, undefined);
    expect(figures.map((f) => `${f.marketing_year} ${f.attribute}`).slice(0, 3)).toEqual([
      '2026/27 area_planted',
      '2026/27 yield',
      '2026/27 beginning_stocks',
    ]);
    expect(figures.at(-1)).toMatchObject({ marketing_year: '2025/26', attribute: 'ending_stocks', value: 2145 });
    const ending = figures.find((f) => f.marketing_year === '2026/27' && f.attribute === 'ending_stocks')!;
    expect(ending).toEqual({
      marketing_year: '2026/27',
      region: 'united_states',
      attribute: 'ending_stocks',
      value: 1960,
      unit: MB,
      edition: '2026-06',
      published_at: JUNE,
      first_seen_at: JUNE,
      status: 'projection',
    });
    // A figure the June edition only confirmed is still May's version.
    expect(figures.find((f) => f.attribute === 'production')).toMatchObject({ edition: '2026-05', published_at: MAY });
    const ratio = figures.find((f) => f.attribute === 'stocks_to_use')!;
    expect(ratio).toMatchObject({ value: 0.121, unit: 'ratio', derived: true, edition: '2026-06' });
    expect(figures.indexOf(ratio)).toBe(figures.indexOf(ending) + 1);
    for (const f of figures) expect(SupplyDemandFigure.safeParse(f).success).toBe(true);
    expect(figures.filter((f) => f.derived === true).map((f) => f.marketing_year)).toEqual(['2026/27']);
  });

  it('answers as of an instant, first releases and revisions as series do', () => {
    const asOfMay = figuresInView(parts, { asOf: '2026-06-01T00:00:00.000Z' }, 'ending_stocks');
    expect(asOfMay.map((f) => [f.marketing_year, f.value, f.edition])).toEqual([
      ['2026/27', 1957, '2026-05'],
      ['2025/26', 2142, '2026-05'],
    ]);
    const before = figuresInView(parts, { asOf: '2026-05-12T15:59:59.999Z' }, undefined);
    expect(before).toEqual([]);
    const first = figuresInView(parts, { firstRelease: true }, 'stocks_to_use');
    expect(first.map((f) => f.value)).toEqual([0.1208]);
    const revised = figuresInView(parts, { revisions: true }, 'ending_stocks');
    expect(revised[0]!.revisions).toEqual([
      { value: 1957, edition: '2026-05', published_at: MAY, status: 'projection' },
    ]);
    expect(figuresInView(parts, { revisions: true }, 'production')[0]!.revisions).toEqual([]);
  });

  it('lists the attributes of the sheets, the derived one included', () => {
    expect(attributesOf(parts)).toContain('stocks_to_use');
    expect(attributesOf(parts)[0]).toBe('area_planted');
  });
});

describe('view=editions', () => {
  it('gives one figure at every release that carried it, oldest first, with its change; a re-post is a release', () => {
    const sheet = supplyDemandSheet('CORN', 'united_states', '2026/27', [
      corn2026()[0]!,
      {
        ...corn2026()[0]!,
        p: MAY_V2,
        figures: corn2026()[0]!.figures.map(([a, u, v]) => [a, u, a === 'exports' ? 3175 : v] as const),
      },
      corn2026()[1]!,
    ]);
    const parts = sheetParts(sheet);
    const rows = editionsOf(parts, 'ending_stocks', undefined);
    expect(rows.map((r) => [r.edition, r.published_at, r.value, r.change])).toEqual([
      ['2026-05', MAY, 1957, null],
      ['2026-05', MAY_V2, 1957, 0],
      ['2026-06', JUNE, 1960, 3],
    ]);
    const exports = editionsOf(parts, 'exports', undefined);
    expect(exports.map((r) => [r.value, r.change])).toEqual([
      [3150, null],
      [3175, 25],
      [3150, -25],
    ]);
    expect(editionsOf(parts, 'ending_stocks', '2026-06-01').map((r) => r.published_at)).toEqual([MAY, MAY_V2]);
    const ratio = editionsOf(parts, 'stocks_to_use', undefined);
    expect(ratio.map((r) => [r.value, r.change, r.derived])).toEqual([
      [0.1208, null, true],
      [0.1208, 0, true],
      [0.121, 0.0002, true],
    ]);
    for (const r of [...rows, ...ratio]) expect(SupplyDemandFigure.safeParse(r).success).toBe(true);
  });

  it('computes changes without binary noise', () => {
    expect(changeBetween(4.4, 4.15)).toBe(0.25);
    expect(changeBetween(0.3, 0.1)).toBe(0.2);
  });
});
