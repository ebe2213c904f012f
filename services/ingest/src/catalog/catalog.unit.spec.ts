import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CatalogEntry, CATEGORIES, COMMODITY_ID_PATTERN, Unit } from '@cds/contracts';
import { rawCotRows, realFixturePath } from '../../test/helpers/source-fixtures.ts';
import { COMMODITY_FACTS, createCatalogIndex, joinCatalog } from './index.ts';
import { CATALOG, COMMODITIES, getCommodity, priceSourcesOf, REGISTRY } from '../sources/registry.ts';
import { byAmsReport } from '../sources/ams/lookup.ts';
import { byCftcCode } from '../sources/cftc/lookup.ts';
import { demoOf } from '../sources/demo/mapping.ts';
import { byEiaSeries, normalizeEiaSeriesId } from '../sources/eia/lookup.ts';
import { byNassCommodity, byNassItem } from '../sources/nass/lookup.ts';
import { byPinkSheetCode } from '../sources/worldbank/lookup.ts';

const findByCftcCode = (code: string) => byCftcCode(CATALOG, code);
const findByEiaSeries = (id: string) => byEiaSeries(CATALOG, id);
const findByNassCommodity = (desc: string) => byNassCommodity(CATALOG, desc);
const findByNassItem = (desc: string) => byNassItem(CATALOG, desc);

describe('curated catalog', () => {
  it('has at least 30 commodities over all four categories, each a valid CatalogEntry', () => {
    expect(COMMODITIES.length).toBeGreaterThanOrEqual(30);
    for (const category of CATEGORIES) {
      expect(COMMODITIES.filter((c) => c.entry.category === category).length).toBeGreaterThanOrEqual(5);
    }
    for (const { entry } of COMMODITIES) {
      expect(CatalogEntry.parse(entry)).toEqual(entry);
      expect(entry.id).toMatch(COMMODITY_ID_PATTERN);
      expect(Unit.safeParse(entry.unit).success).toBe(true);
      expect(entry.symbol && entry.exchange && entry.contract_size && entry.description).toBeTruthy();
      expect(entry.tick_size).toBeGreaterThan(0);
    }
    expect(new Set(COMMODITIES.map((c) => c.entry.id)).size).toBe(COMMODITIES.length);
  });

  it('includes the well-known contracts with their exchange facts', () => {
    expect(getCommodity('CRUDE_OIL_WTI')?.entry).toMatchObject({ exchange: 'NYMEX', symbol: 'CL', unit: 'USD/bbl' });
    expect(getCommodity('NATURAL_GAS')?.entry).toMatchObject({ symbol: 'NG', unit: 'USD/MMBtu', tick_size: 0.001 });
    expect(getCommodity('GOLD')?.entry).toMatchObject({ exchange: 'COMEX', symbol: 'GC', unit: 'USD/troy oz' });
    expect(getCommodity('COPPER')?.entry).toMatchObject({ exchange: 'COMEX', symbol: 'HG', unit: 'USD/lb' });
    expect(getCommodity('CORN')?.entry).toMatchObject({
      exchange: 'CBOT',
      symbol: 'ZC',
      unit: 'USc/bu',
      tick_size: 0.25,
    });
    expect(getCommodity('SOYBEANS')?.entry).toMatchObject({ exchange: 'CBOT', symbol: 'ZS' });
    expect(getCommodity('COFFEE')?.entry).toMatchObject({ exchange: 'ICE', symbol: 'KC', unit: 'USc/lb' });
    expect(getCommodity('SUGAR')?.entry).toMatchObject({ exchange: 'ICE', symbol: 'SB', unit: 'USc/lb' });
  });

  it('maps every CFTC code present in the real COT excerpts to the commodity named there', () => {
    const names = new Map<string, string>();
    for (const f of ['cftc_legacy_fut_annual_2025_excerpt.txt', 'cftc_disagg_fut_f_year_2021_excerpt.txt']) {
      for (const r of rawCotRows(realFixturePath(f)).rows) names.set(r.cells[3]!, r.name);
    }
    const expected: Record<string, string> = {
      '001602': 'WHEAT_SRW',
      '002602': 'CORN',
      '005602': 'SOYBEANS',
      '023651': 'NATURAL_GAS',
      '067651': 'CRUDE_OIL_WTI',
      '088691': 'GOLD',
    };
    for (const [code, id] of Object.entries(expected)) {
      expect(names.has(code)).toBe(true);
      expect(findByCftcCode(code)?.entry.id).toBe(id);
      expect(findByCftcCode(` ${code} `)?.entry.id).toBe(id);
    }
    expect(findByCftcCode('021397')).toBeUndefined();
  });

  it('looks up EIA series (v2 ids and APIv1-style ids) and NASS commodities and items', () => {
    expect(findByEiaSeries('RWTC')).toMatchObject({
      commodity: { entry: { id: 'CRUDE_OIL_WTI' } },
      series: { type: 'price', frequency: 'daily' },
    });
    expect(normalizeEiaSeriesId('PET.WCESTUS1.W')).toBe('WCESTUS1');
    expect(findByEiaSeries('PET.WCESTUS1.W')?.series).toMatchObject({ type: 'stocks', frequency: 'weekly' });
    expect(findByNassCommodity('wheat').map((c) => c.entry.id)).toEqual(['WHEAT_SRW', 'WHEAT_HRW', 'WHEAT_HRS']);
    expect(findByNassItem('CORN, GRAIN - YIELD, MEASURED IN BU / ACRE')).toMatchObject({
      commodity: { entry: { id: 'CORN' } },
      item: { type: 'yield', statisticcat_desc: 'YIELD' },
    });
    expect(findByNassItem('SOYBEANS - ACRES PLANTED')?.item.type).toBe('planted_acres');
  });

  it('gives every commodity demo parameters and refuses duplicate identifiers', () => {
    for (const c of COMMODITIES) {
      expect(demoOf(c)!.start_price).toBeGreaterThan(0);
      expect(demoOf(c)!.volatility).toBeGreaterThan(0);
    }
    expect(CATALOG.commodities).toBe(COMMODITIES);
    expect(() => createCatalogIndex([COMMODITIES[0]!, COMMODITIES[0]!])).toThrow(/duplicate commodity id/);
  });

  it('gives every commodity exactly one price source, or a note saying why there is none', () => {
    const noPrice: string[] = [];
    for (const c of COMMODITIES) {
      const sources = priceSourcesOf(c);
      if (c.sources.price_note !== undefined) {
        expect(sources, c.entry.id).toEqual([]);
        expect(c.entry.price_note).toBe(c.sources.price_note);
        noPrice.push(c.entry.id);
        continue;
      }
      expect(sources, c.entry.id).toHaveLength(1);
      const [p] = sources;
      expect(p!.basis, c.entry.id).toBeDefined();
      // the source's own unit, spelled out: USD per the unit it prices
      expect(p!.unit, c.entry.id).toMatch(/^USD\/(bbl|MMBtu|gal|troy oz|mt|kg|bu|cwt|lb)$/);
    }
    expect(noPrice.sort()).toEqual(['FEEDER_CATTLE', 'LUMBER', 'ORANGE_JUICE', 'PALLADIUM']);
    expect(priceSourcesOf(getCommodity('GOLD')!)).toEqual([
      { source: 'worldbank', series: 'GOLD', frequency: 'monthly', unit: 'USD/troy oz', basis: 'monthly_average' },
    ]);
    expect(priceSourcesOf(getCommodity('CORN')!)[0]).toMatchObject({ source: 'nass', basis: 'received_by_farmers' });
    expect(priceSourcesOf(getCommodity('CRUDE_OIL_WTI')!)[0]).toMatchObject({
      source: 'eia',
      series: 'RWTC',
      basis: 'spot',
    });
    expect(byPinkSheetCode(CATALOG, 'coffee_arabic')?.commodity.entry.id).toBe('COFFEE');
    expect(byAmsReport(CATALOG, 'FMMO_CLASS').map((m) => m.commodity.entry.id)).toEqual(['MILK_CLASS_III']);
    expect(byAmsReport(CATALOG, 'LM_CT150')).toEqual([]);
    expect(getCommodity('GOLD')!.entry.identifiers?.worldbank_series).toEqual(['GOLD']);
  });

  it("docs/sources.md's commodity table is the catalog's price mapping, row for row", () => {
    const docs = readFileSync(fileURLToPath(new URL('../../../../docs/sources.md', import.meta.url)), 'utf8');
    const table = /<!-- price-table:start -->\n([\s\S]*?)<!-- price-table:end -->/.exec(docs)?.[1] ?? '';
    const rows = table
      .trim()
      .split('\n')
      .slice(2)
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    const expected = COMMODITIES.map((c) => {
      const [p] = priceSourcesOf(c);
      if (!p) return [c.entry.id, `none: ${c.sources.price_note}`, '–', '–', '–', '–', '–'];
      return [
        c.entry.id,
        (
          {
            eia: 'EIA spot prices',
            nass: 'USDA NASS prices received',
            ams: 'USDA AMS market report',
            worldbank: 'World Bank Pink Sheet',
          } as Record<string, string>
        )[p.source],
        `\`${p.source}:${p.series}\``,
        p.frequency,
        p.unit,
        p.basis,
        p.source === 'worldbank' ? 'CC BY 4.0' : 'public domain',
      ];
    });
    expect(rows).toEqual(expected);
  });
});

describe('joinCatalog', () => {
  const gold = COMMODITY_FACTS.find((f) => f.id === 'GOLD')!;

  it("keys each source's mapping by its name and publishes the identifiers the mappings give", () => {
    const def = joinCatalog(COMMODITY_FACTS, REGISTRY).find((d) => d.entry.id === 'GOLD');
    expect(Object.keys(def!.sources)).toEqual(['cftc', 'worldbank', 'demo']);
    expect(def!.entry.identifiers).toEqual({
      cftc_contract_codes: ['088691'],
      eia_series: [],
      nass_items: [],
      worldbank_series: ['GOLD'],
    });
    expect(def).toEqual(getCommodity('GOLD'));
  });

  it('refuses a mapping of an id the contract facts lack, naming the source', () => {
    expect(() => joinCatalog([gold], [{ name: 'worldbank', catalog: { SILVER: { series: [] } } }])).toThrow(
      /sources\/worldbank maps SILVER, which is not a catalog commodity/,
    );
  });
});
