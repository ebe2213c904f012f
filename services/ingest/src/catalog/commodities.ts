import { CatalogEntry, type Category } from '@cds/contracts';
import type { AmsMapping } from '../sources/ams/mapping.ts';
import type { DemoFundamental, DemoParams } from '../sources/demo/mapping.ts';
import type { EiaSeriesMapping } from '../sources/eia/mapping.ts';
import type { NassItemMapping } from '../sources/nass/mapping.ts';
import type { WorldBankMapping } from '../sources/worldbank/mapping.ts';
import type { CommodityDefinition } from './types.ts';

// The curated catalog. Contract facts (exchange, symbol, unit, size, tick) are those of the
// benchmark futures contract of each commodity as the exchange specifies it; CFTC codes are the
// CFTC_Contract_Market_Code of that contract in the Commitments of Traders reports; EIA ids are
// the series ids of the EIA API v2 `series` facet (the same ids as the dnav CSV downloads);
// NASS items are Quick Stats `short_desc` strings (the web export's "Data Item").

interface Def {
  id: string;
  name: string;
  category: Category;
  exchange: string;
  symbol: string;
  unit: string;
  contract_size: string;
  tick_size: number;
  description: string;
  cftc: string[];
  eia?: EiaSeriesMapping[];
  nass?: { commodity_desc: string; items: NassItemMapping[] };
  worldbank?: WorldBankMapping[];
  ams?: AmsMapping[];
  /** Why there is no price series: no free official source (docs/sources.md, the commodity table). */
  price_note?: string;
  demo: DemoParams;
}

const eia = (
  id: string,
  route: string,
  type: EiaSeriesMapping['type'],
  frequency: EiaSeriesMapping['frequency'],
  unit: string,
): EiaSeriesMapping => ({ id, route, type, frequency, unit, ...(type === 'price' ? { basis: 'spot' as const } : {}) });

/** A World Bank Pink Sheet monthly average price (its code in row 7, its unit as row 6 shows it). */
const pinkSheet = (code: string, sourceUnit: '($/mt)' | '($/kg)' | '($/troy oz)'): WorldBankMapping => ({
  code,
  source_unit: sourceUnit,
  unit: `USD/${sourceUnit.slice(3, -1)}`,
  type: 'price',
  frequency: 'monthly',
  basis: 'monthly_average',
});

/** The NASS national monthly price received by farmers for a data item priced in `$ / <per>`. */
const nassPrice = (item: string, per: 'BU' | 'CWT' | 'LB'): NassItemMapping => ({
  short_desc: `${item} - PRICE RECEIVED, MEASURED IN $ / ${per}`,
  statisticcat_desc: 'PRICE RECEIVED',
  unit_desc: `$ / ${per}`,
  type: 'price',
  unit: `USD/${per.toLowerCase()}`,
  basis: 'received_by_farmers',
});

/** The five national NASS items of a field crop, from the data-item prefix of each statistic. */
function fieldCrop(
  commodity_desc: string,
  p: { production: string; yield: string; planted: string; harvested: string; stocks?: string },
  units: { production: string; yield: string },
  price?: NassItemMapping,
): { commodity_desc: string; items: NassItemMapping[] } {
  const items: NassItemMapping[] = [
    {
      short_desc: `${p.production} - PRODUCTION, MEASURED IN ${units.production}`,
      statisticcat_desc: 'PRODUCTION',
      unit_desc: units.production,
      type: 'production',
      unit: units.production.toLowerCase(),
    },
    {
      short_desc: `${p.yield} - YIELD, MEASURED IN ${units.yield}`,
      statisticcat_desc: 'YIELD',
      unit_desc: units.yield,
      type: 'yield',
      unit: units.yield.toLowerCase().replace(' / ', '/'),
    },
    {
      short_desc: `${p.planted} - ACRES PLANTED`,
      statisticcat_desc: 'AREA PLANTED',
      unit_desc: 'ACRES',
      type: 'planted_acres',
      unit: 'acres',
    },
    {
      short_desc: `${p.harvested} - ACRES HARVESTED`,
      statisticcat_desc: 'AREA HARVESTED',
      unit_desc: 'ACRES',
      type: 'harvested_acres',
      unit: 'acres',
    },
  ];
  if (p.stocks) {
    items.push({
      short_desc: `${p.stocks} - STOCKS, MEASURED IN ${units.production}`,
      statisticcat_desc: 'STOCKS',
      unit_desc: units.production,
      type: 'stocks',
      unit: units.production.toLowerCase(),
    });
  }
  if (price) items.push(price);
  return { commodity_desc, items };
}

/** Demo fundamentals of a field crop: annual production/yield/acres, monthly ending stocks. */
function cropFundamentals(production: number, yieldPerAcre: number, acres: number, unit: string): DemoFundamental[] {
  return [
    { type: 'production', frequency: 'annual', base: production, unit },
    { type: 'yield', frequency: 'annual', base: yieldPerAcre, unit: `${unit}/acre` },
    { type: 'planted_acres', frequency: 'annual', base: acres, unit: 'acres' },
    { type: 'harvested_acres', frequency: 'annual', base: acres * 0.92, unit: 'acres' },
    { type: 'ending_stocks', frequency: 'monthly', base: production * 0.12, unit, seasonality: 0.35 },
  ];
}

const demo = (
  start_price: number,
  volatility: number,
  volume: number,
  open_interest: number,
  fundamentals: DemoFundamental[] = [],
): DemoParams => ({ start_price, volatility, volume, open_interest, fundamentals });

const DEFS: Def[] = [
  // --- energy ---------------------------------------------------------------------------------
  {
    id: 'CRUDE_OIL_WTI',
    name: 'Crude Oil WTI',
    category: 'energy',
    exchange: 'NYMEX',
    symbol: 'CL',
    unit: 'USD/bbl',
    contract_size: '1,000 barrels',
    tick_size: 0.01,
    description: 'Light sweet crude oil futures, West Texas Intermediate, physically delivered at Cushing, Oklahoma.',
    cftc: ['067651'],
    eia: [
      eia('RWTC', 'petroleum/pri/spt', 'price', 'daily', 'USD/bbl'),
      eia('WCESTUS1', 'petroleum/stoc/wstk', 'stocks', 'weekly', 'thousand bbl'),
      eia('WCRRIUS2', 'petroleum/pnp/wiup', 'refinery_inputs', 'weekly', 'thousand bbl/d'),
      eia('WCRFPUS2', 'petroleum/sum/sndw', 'production', 'weekly', 'thousand bbl/d'),
    ],
    demo: demo(75, 0.35, 300_000, 1_700_000, [
      { type: 'stocks', frequency: 'weekly', base: 430_000, unit: 'thousand bbl', seasonality: 0.04 },
      { type: 'refinery_inputs', frequency: 'weekly', base: 16_000, unit: 'thousand bbl/d', seasonality: 0.05 },
      { type: 'production', frequency: 'weekly', base: 13_000, unit: 'thousand bbl/d', seasonality: 0.01 },
    ]),
  },
  {
    id: 'CRUDE_OIL_BRENT',
    name: 'Crude Oil Brent',
    category: 'energy',
    exchange: 'ICE',
    symbol: 'B',
    unit: 'USD/bbl',
    contract_size: '1,000 barrels',
    tick_size: 0.01,
    description:
      'Brent crude futures on ICE Futures Europe, cash settled against the ICE Brent Index. ' +
      'Not in the CFTC reports (a UK-regulated market).',
    cftc: [],
    eia: [eia('RBRTE', 'petroleum/pri/spt', 'price', 'daily', 'USD/bbl')],
    demo: demo(80, 0.33, 250_000, 2_500_000),
  },
  {
    id: 'NATURAL_GAS',
    name: 'Natural Gas (Henry Hub)',
    category: 'energy',
    exchange: 'NYMEX',
    symbol: 'NG',
    unit: 'USD/MMBtu',
    contract_size: '10,000 MMBtu',
    tick_size: 0.001,
    description: 'Henry Hub natural gas futures, physically delivered at the Sabine Pipe Line Henry Hub, Louisiana.',
    cftc: ['023651'],
    eia: [
      eia('RNGWHHD', 'natural-gas/pri/fut', 'price', 'daily', 'USD/MMBtu'),
      eia('NW2_EPG0_SWO_R48_BCF', 'natural-gas/stor/wkly', 'stocks', 'weekly', 'Bcf'),
      eia('N9070US2', 'natural-gas/prod/sum', 'production', 'monthly', 'MMcf'),
    ],
    demo: demo(3, 0.6, 350_000, 1_500_000, [
      { type: 'stocks', frequency: 'weekly', base: 3_000, unit: 'Bcf', seasonality: 0.35 },
      { type: 'production', frequency: 'monthly', base: 3_300_000, unit: 'MMcf', seasonality: 0.03 },
    ]),
  },
  {
    id: 'HEATING_OIL',
    name: 'NY Harbor ULSD (Heating Oil)',
    category: 'energy',
    exchange: 'NYMEX',
    symbol: 'HO',
    unit: 'USD/gal',
    contract_size: '42,000 gallons',
    tick_size: 0.0001,
    description: 'New York Harbor ultra-low sulfur diesel futures (the former heating oil contract).',
    cftc: ['022651'],
    eia: [
      eia('EER_EPD2F_PF4_Y35NY_DPG', 'petroleum/pri/spt', 'price', 'daily', 'USD/gal'),
      eia('WDISTUS1', 'petroleum/stoc/wstk', 'stocks', 'weekly', 'thousand bbl'),
    ],
    demo: demo(2.6, 0.35, 60_000, 300_000, [
      { type: 'stocks', frequency: 'weekly', base: 120_000, unit: 'thousand bbl', seasonality: 0.1 },
    ]),
  },
  {
    id: 'GASOLINE_RBOB',
    name: 'RBOB Gasoline',
    category: 'energy',
    exchange: 'NYMEX',
    symbol: 'RB',
    unit: 'USD/gal',
    contract_size: '42,000 gallons',
    tick_size: 0.0001,
    description: 'New York Harbor RBOB (reformulated blendstock for oxygenate blending) gasoline futures.',
    cftc: ['111659'],
    eia: [
      eia('EER_EPMRU_PF4_Y35NY_DPG', 'petroleum/pri/spt', 'price', 'daily', 'USD/gal'),
      eia('WGTSTUS1', 'petroleum/stoc/wstk', 'stocks', 'weekly', 'thousand bbl'),
    ],
    demo: demo(2.3, 0.38, 60_000, 320_000, [
      { type: 'stocks', frequency: 'weekly', base: 230_000, unit: 'thousand bbl', seasonality: 0.06 },
    ]),
  },
  // --- metals ---------------------------------------------------------------------------------
  {
    id: 'GOLD',
    name: 'Gold',
    category: 'metals',
    exchange: 'COMEX',
    symbol: 'GC',
    unit: 'USD/troy oz',
    contract_size: '100 troy ounces',
    tick_size: 0.1,
    description: 'Gold futures, 100 troy ounces of at least 995 fineness, physically delivered.',
    cftc: ['088691'],
    worldbank: [pinkSheet('GOLD', '($/troy oz)')],
    demo: demo(1900, 0.15, 200_000, 500_000),
  },
  {
    id: 'SILVER',
    name: 'Silver',
    category: 'metals',
    exchange: 'COMEX',
    symbol: 'SI',
    unit: 'USD/troy oz',
    contract_size: '5,000 troy ounces',
    tick_size: 0.005,
    description: 'Silver futures, 5,000 troy ounces of at least 999 fineness, physically delivered.',
    cftc: ['084691'],
    worldbank: [pinkSheet('SILVER', '($/troy oz)')],
    demo: demo(24, 0.28, 70_000, 150_000),
  },
  {
    id: 'COPPER',
    name: 'Copper',
    category: 'metals',
    exchange: 'COMEX',
    symbol: 'HG',
    unit: 'USD/lb',
    contract_size: '25,000 pounds',
    tick_size: 0.0005,
    description: 'High grade copper futures (Grade 1 cathode), physically delivered.',
    cftc: ['085692'],
    worldbank: [pinkSheet('COPPER', '($/mt)')],
    demo: demo(3.8, 0.24, 80_000, 220_000),
  },
  {
    id: 'PLATINUM',
    name: 'Platinum',
    category: 'metals',
    exchange: 'NYMEX',
    symbol: 'PL',
    unit: 'USD/troy oz',
    contract_size: '50 troy ounces',
    tick_size: 0.1,
    description: 'Platinum futures, 50 troy ounces of at least 99.95 % purity.',
    cftc: ['076651'],
    worldbank: [pinkSheet('PLATINUM', '($/troy oz)')],
    demo: demo(950, 0.25, 20_000, 80_000),
  },
  {
    id: 'PALLADIUM',
    name: 'Palladium',
    category: 'metals',
    exchange: 'NYMEX',
    symbol: 'PA',
    unit: 'USD/troy oz',
    contract_size: '100 troy ounces',
    tick_size: 0.5,
    description: 'Palladium futures, 100 troy ounces of at least 99.95 % purity.',
    cftc: ['075651'],
    price_note:
      'No free official monthly or daily palladium price: the World Bank Pink Sheet has none, and the USGS publishes an annual average only (Mineral Commodity Summaries).',
    demo: demo(1300, 0.35, 6_000, 20_000),
  },
  {
    id: 'ALUMINUM',
    name: 'Aluminum',
    category: 'metals',
    exchange: 'COMEX',
    symbol: 'ALI',
    unit: 'USD/t',
    contract_size: '25 metric tons',
    tick_size: 0.25,
    description: 'Aluminum futures, cash settled against the Platts MW US Transaction Premium plus LME aluminium.',
    cftc: [],
    worldbank: [pinkSheet('ALUMINUM', '($/mt)')],
    demo: demo(2300, 0.2, 1_000, 5_000),
  },
  // --- agriculture ----------------------------------------------------------------------------
  {
    id: 'CORN',
    name: 'Corn',
    category: 'agriculture',
    exchange: 'CBOT',
    symbol: 'ZC',
    unit: 'USc/bu',
    contract_size: '5,000 bushels',
    tick_size: 0.25,
    description: 'No. 2 yellow corn futures, physically delivered by shipping certificates on the Illinois waterway.',
    cftc: ['002602'],
    nass: fieldCrop(
      'CORN',
      {
        production: 'CORN, GRAIN',
        yield: 'CORN, GRAIN',
        planted: 'CORN',
        harvested: 'CORN, GRAIN',
        stocks: 'CORN, GRAIN',
      },
      { production: 'BU', yield: 'BU / ACRE' },
      nassPrice('CORN, GRAIN', 'BU'),
    ),
    demo: demo(550, 0.25, 350_000, 1_500_000, cropFundamentals(15_000_000_000, 175, 90_000_000, 'bu')),
  },
  {
    id: 'SOYBEANS',
    name: 'Soybeans',
    category: 'agriculture',
    exchange: 'CBOT',
    symbol: 'ZS',
    unit: 'USc/bu',
    contract_size: '5,000 bushels',
    tick_size: 0.25,
    description: 'No. 2 yellow soybean futures, physically delivered by shipping certificates.',
    cftc: ['005602'],
    nass: fieldCrop(
      'SOYBEANS',
      { production: 'SOYBEANS', yield: 'SOYBEANS', planted: 'SOYBEANS', harvested: 'SOYBEANS', stocks: 'SOYBEANS' },
      { production: 'BU', yield: 'BU / ACRE' },
      nassPrice('SOYBEANS', 'BU'),
    ),
    demo: demo(1250, 0.2, 200_000, 700_000, cropFundamentals(4_200_000_000, 51, 84_000_000, 'bu')),
  },
  {
    id: 'WHEAT_SRW',
    name: 'Wheat (Chicago SRW)',
    category: 'agriculture',
    exchange: 'CBOT',
    symbol: 'ZW',
    unit: 'USc/bu',
    contract_size: '5,000 bushels',
    tick_size: 0.25,
    description: 'Soft red winter wheat futures (Chicago wheat), physically delivered.',
    cftc: ['001602'],
    worldbank: [pinkSheet('WHEAT_US_SRW', '($/mt)')],
    nass: {
      commodity_desc: 'WHEAT',
      items: [
        {
          short_desc: 'WHEAT, WINTER, RED, SOFT - PRODUCTION, MEASURED IN BU',
          statisticcat_desc: 'PRODUCTION',
          unit_desc: 'BU',
          type: 'production',
          unit: 'bu',
        },
      ],
    },
    demo: demo(600, 0.3, 130_000, 400_000, [
      { type: 'production', frequency: 'annual', base: 400_000_000, unit: 'bu' },
      { type: 'ending_stocks', frequency: 'monthly', base: 90_000_000, unit: 'bu', seasonality: 0.3 },
    ]),
  },
  {
    id: 'WHEAT_HRW',
    name: 'Wheat (KC HRW)',
    category: 'agriculture',
    exchange: 'CBOT',
    symbol: 'KE',
    unit: 'USc/bu',
    contract_size: '5,000 bushels',
    tick_size: 0.25,
    description: 'Hard red winter wheat futures (Kansas City wheat), physically delivered.',
    cftc: ['001612'],
    worldbank: [pinkSheet('WHEAT_US_HRW', '($/mt)')],
    nass: {
      commodity_desc: 'WHEAT',
      items: [
        {
          short_desc: 'WHEAT, WINTER, RED, HARD - PRODUCTION, MEASURED IN BU',
          statisticcat_desc: 'PRODUCTION',
          unit_desc: 'BU',
          type: 'production',
          unit: 'bu',
        },
      ],
    },
    demo: demo(650, 0.3, 50_000, 230_000, [
      { type: 'production', frequency: 'annual', base: 700_000_000, unit: 'bu' },
      { type: 'ending_stocks', frequency: 'monthly', base: 250_000_000, unit: 'bu', seasonality: 0.3 },
    ]),
  },
  {
    id: 'WHEAT_HRS',
    name: 'Wheat (Minneapolis HRS)',
    category: 'agriculture',
    exchange: 'MGEX',
    symbol: 'MWE',
    unit: 'USc/bu',
    contract_size: '5,000 bushels',
    tick_size: 0.25,
    description: 'Hard red spring wheat futures of the Minneapolis Grain Exchange (now MIAX Futures).',
    cftc: ['001626'],
    nass: { commodity_desc: 'WHEAT', items: [nassPrice('WHEAT, SPRING, (EXCL DURUM)', 'BU')] },
    demo: demo(700, 0.27, 10_000, 60_000),
  },
  {
    id: 'SOYBEAN_OIL',
    name: 'Soybean Oil',
    category: 'agriculture',
    exchange: 'CBOT',
    symbol: 'ZL',
    unit: 'USc/lb',
    contract_size: '60,000 pounds',
    tick_size: 0.01,
    description: 'Crude soybean oil futures, physically delivered.',
    cftc: ['007601'],
    worldbank: [pinkSheet('SOYBEAN_OIL', '($/mt)')],
    demo: demo(50, 0.3, 120_000, 500_000),
  },
  {
    id: 'SOYBEAN_MEAL',
    name: 'Soybean Meal',
    category: 'agriculture',
    exchange: 'CBOT',
    symbol: 'ZM',
    unit: 'USD/short ton',
    contract_size: '100 short tons',
    tick_size: 0.1,
    description: '48 % protein soybean meal futures, physically delivered.',
    cftc: ['026603'],
    worldbank: [pinkSheet('SOYBEAN_MEAL', '($/mt)')],
    demo: demo(380, 0.25, 110_000, 500_000),
  },
  {
    id: 'OATS',
    name: 'Oats',
    category: 'agriculture',
    exchange: 'CBOT',
    symbol: 'ZO',
    unit: 'USc/bu',
    contract_size: '5,000 bushels',
    tick_size: 0.25,
    description: 'No. 2 heavy white oats futures, physically delivered.',
    cftc: ['004603'],
    nass: fieldCrop(
      'OATS',
      { production: 'OATS', yield: 'OATS', planted: 'OATS', harvested: 'OATS' },
      { production: 'BU', yield: 'BU / ACRE' },
      nassPrice('OATS', 'BU'),
    ),
    demo: demo(380, 0.32, 1_500, 4_500, cropFundamentals(60_000_000, 68, 2_500_000, 'bu')),
  },
  {
    id: 'ROUGH_RICE',
    name: 'Rough Rice',
    category: 'agriculture',
    exchange: 'CBOT',
    symbol: 'ZR',
    unit: 'USD/cwt',
    contract_size: '2,000 hundredweight',
    tick_size: 0.005,
    description: 'U.S. No. 2 long grain rough rice futures, physically delivered.',
    cftc: ['039601'],
    nass: fieldCrop(
      'RICE',
      { production: 'RICE', yield: 'RICE', planted: 'RICE', harvested: 'RICE' },
      { production: 'CWT', yield: 'LB / ACRE' },
      nassPrice('RICE', 'CWT'),
    ),
    demo: demo(17, 0.2, 1_000, 9_000, cropFundamentals(200_000_000, 7_500, 2_700_000, 'cwt')),
  },
  {
    id: 'LIVE_CATTLE',
    name: 'Live Cattle',
    category: 'agriculture',
    exchange: 'CME',
    symbol: 'LE',
    unit: 'USc/lb',
    contract_size: '40,000 pounds',
    tick_size: 0.025,
    description: 'Live cattle futures (steers), physically delivered.',
    cftc: ['057642'],
    // USDA AMS LM_CT150 (weekly 5-area steer price) is the fresher source, but no recorded answer of it
    // exists to prove the parse on, and the bundled snapshot can hold the NASS price: docs/sources.md.
    nass: { commodity_desc: 'CATTLE', items: [nassPrice('CATTLE, STEERS & HEIFERS, GE 500 LBS', 'CWT')] },
    demo: demo(175, 0.14, 60_000, 350_000),
  },
  {
    id: 'FEEDER_CATTLE',
    name: 'Feeder Cattle',
    category: 'agriculture',
    exchange: 'CME',
    symbol: 'GF',
    unit: 'USc/lb',
    contract_size: '50,000 pounds',
    tick_size: 0.025,
    description: 'Feeder cattle futures, cash settled against the CME Feeder Cattle Index.',
    cftc: ['061641'],
    price_note:
      'Feeder cattle prices are published by USDA AMS auction reports through MyMarketNews, which needs a registered key; this service does not sync them yet.',
    demo: demo(240, 0.16, 15_000, 60_000),
  },
  {
    id: 'LEAN_HOGS',
    name: 'Lean Hogs',
    category: 'agriculture',
    exchange: 'CME',
    symbol: 'HE',
    unit: 'USc/lb',
    contract_size: '40,000 pounds',
    tick_size: 0.025,
    description: 'Lean hog futures, cash settled against the CME Lean Hog Index.',
    cftc: ['054642'],
    ams: [{ report: 'LM_HG201', slug: '2511', type: 'price', frequency: 'daily', unit: 'USD/cwt', basis: 'cash' }],
    demo: demo(85, 0.25, 50_000, 250_000),
  },
  {
    id: 'MILK_CLASS_III',
    name: 'Class III Milk',
    category: 'agriculture',
    exchange: 'CME',
    symbol: 'DC',
    unit: 'USD/cwt',
    contract_size: '200,000 pounds',
    tick_size: 0.01,
    description: 'Class III milk futures, cash settled against the USDA Class III price.',
    cftc: ['052641'],
    ams: [{ report: 'FMMO_CLASS', slug: '3355', type: 'price', frequency: 'monthly', unit: 'USD/cwt', basis: 'cash' }],
    demo: demo(18, 0.2, 1_500, 25_000),
  },
  {
    id: 'CANOLA',
    name: 'Canola',
    category: 'agriculture',
    exchange: 'ICE',
    symbol: 'RS',
    unit: 'CAD/t',
    contract_size: '20 metric tonnes',
    tick_size: 0.1,
    description: 'Canola futures of ICE Futures U.S. (Winnipeg), physically delivered in Saskatchewan.',
    cftc: ['135731'],
    nass: { commodity_desc: 'CANOLA', items: [nassPrice('CANOLA', 'CWT')] },
    demo: demo(700, 0.22, 15_000, 200_000),
  },
  // --- softs ----------------------------------------------------------------------------------
  {
    id: 'COFFEE',
    name: 'Coffee C (Arabica)',
    category: 'softs',
    exchange: 'ICE',
    symbol: 'KC',
    unit: 'USc/lb',
    contract_size: '37,500 pounds',
    tick_size: 0.05,
    description: 'Coffee "C" futures, washed arabica coffee, physically delivered from licensed warehouses.',
    cftc: ['083731'],
    worldbank: [pinkSheet('COFFEE_ARABIC', '($/kg)')],
    demo: demo(180, 0.32, 25_000, 200_000),
  },
  {
    id: 'SUGAR',
    name: 'Sugar No. 11',
    category: 'softs',
    exchange: 'ICE',
    symbol: 'SB',
    unit: 'USc/lb',
    contract_size: '112,000 pounds',
    tick_size: 0.01,
    description: 'Sugar No. 11 futures, raw cane sugar delivered FOB in the country of origin.',
    cftc: ['080732'],
    worldbank: [pinkSheet('SUGAR_WLD', '($/kg)')],
    demo: demo(22, 0.3, 100_000, 900_000),
  },
  {
    id: 'COCOA',
    name: 'Cocoa',
    category: 'softs',
    exchange: 'ICE',
    symbol: 'CC',
    unit: 'USD/t',
    contract_size: '10 metric tons',
    tick_size: 1,
    description: 'Cocoa futures, physically delivered from licensed warehouses in the U.S. and Europe.',
    cftc: ['073732'],
    worldbank: [pinkSheet('COCOA', '($/kg)')],
    demo: demo(3500, 0.35, 15_000, 200_000),
  },
  {
    id: 'COTTON',
    name: 'Cotton No. 2',
    category: 'softs',
    exchange: 'ICE',
    symbol: 'CT',
    unit: 'USc/lb',
    contract_size: '50,000 pounds',
    tick_size: 0.01,
    description: 'Cotton No. 2 futures, upland cotton, physically delivered.',
    cftc: ['033661'],
    worldbank: [pinkSheet('COTTON_A_INDX', '($/kg)')],
    nass: fieldCrop(
      'COTTON',
      { production: 'COTTON, UPLAND', yield: 'COTTON, UPLAND', planted: 'COTTON, UPLAND', harvested: 'COTTON, UPLAND' },
      { production: '480 LB BALES', yield: 'LB / ACRE' },
    ),
    demo: demo(80, 0.22, 25_000, 250_000, cropFundamentals(14_000_000, 850, 11_000_000, '480 lb bales')),
  },
  {
    id: 'ORANGE_JUICE',
    name: 'Frozen Concentrated Orange Juice',
    category: 'softs',
    exchange: 'ICE',
    symbol: 'OJ',
    unit: 'USc/lb',
    contract_size: '15,000 pounds of orange juice solids',
    tick_size: 0.05,
    description: 'FCOJ-A futures, frozen concentrated orange juice, physically delivered from U.S. warehouses.',
    cftc: ['040701'],
    price_note:
      "No free official orange juice price: the World Bank's ORANGE series is fresh oranges (EU import price, USD/kg), a different product, so it is not served as this commodity's price.",
    demo: demo(280, 0.35, 1_500, 12_000),
  },
  {
    id: 'LUMBER',
    name: 'Lumber',
    category: 'softs',
    exchange: 'CME',
    symbol: 'LBR',
    unit: 'USD/1000 bd ft',
    contract_size: '27,500 board feet',
    tick_size: 0.5,
    description:
      'Lumber futures (LBR), physically delivered softwood lumber; successor (2022) of the random length lumber ' +
      'contract, whose COT history the CFTC code below carries.',
    cftc: ['058643'],
    price_note:
      "No free official softwood lumber price: the World Bank's sawnwood series are tropical hardwoods, and the BLS producer price index is an index, not a price.",
    demo: demo(550, 0.4, 800, 4_000),
  },
];

function build(def: Def): CommodityDefinition {
  const entry = CatalogEntry.parse({
    id: def.id,
    name: def.name,
    symbol: def.symbol,
    category: def.category,
    exchange: def.exchange,
    unit: def.unit,
    description: def.description,
    contract_size: def.contract_size,
    tick_size: def.tick_size,
    // published with the entry, so the API can list where each number can be checked
    identifiers: {
      cftc_contract_codes: def.cftc,
      eia_series: (def.eia ?? []).map((s) => s.id),
      nass_items: (def.nass?.items ?? []).map((i) => i.short_desc),
      ...(def.worldbank ? { worldbank_series: def.worldbank.map((w) => w.code) } : {}),
      ...(def.ams ? { ams_reports: def.ams.map((a) => a.report) } : {}),
    },
    ...(def.price_note !== undefined ? { price_note: def.price_note } : {}),
  });
  return {
    entry,
    sources: {
      cftc: { codes: def.cftc },
      ...(def.eia ? { eia: { series: def.eia } } : {}),
      ...(def.nass ? { nass: def.nass } : {}),
      ...(def.worldbank ? { worldbank: { series: def.worldbank } } : {}),
      ...(def.ams ? { ams: { series: def.ams } } : {}),
      ...(def.price_note !== undefined ? { price_note: def.price_note } : {}),
      demo: def.demo,
    },
  };
}

/** The curated catalog, each public part validated by the contracts' CatalogEntry at load. */
export const COMMODITIES: readonly CommodityDefinition[] = Object.freeze(DEFS.map(build));
