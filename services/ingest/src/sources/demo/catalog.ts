import type { DemoFundamental, DemoParams } from './mapping.ts';

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

/** How the demo generator draws each commodity, by catalog id. */
export const DEMO_CATALOG: Readonly<Record<string, DemoParams>> = {
  CRUDE_OIL_WTI: demo(75, 0.35, 300_000, 1_700_000, [
    { type: 'stocks', frequency: 'weekly', base: 430_000, unit: 'thousand bbl', seasonality: 0.04 },
    { type: 'refinery_inputs', frequency: 'weekly', base: 16_000, unit: 'thousand bbl/d', seasonality: 0.05 },
    { type: 'production', frequency: 'weekly', base: 13_000, unit: 'thousand bbl/d', seasonality: 0.01 },
  ]),
  CRUDE_OIL_BRENT: demo(80, 0.33, 250_000, 2_500_000),
  NATURAL_GAS: demo(3, 0.6, 350_000, 1_500_000, [
    { type: 'stocks', frequency: 'weekly', base: 3_000, unit: 'Bcf', seasonality: 0.35 },
    { type: 'production', frequency: 'monthly', base: 3_300_000, unit: 'MMcf', seasonality: 0.03 },
  ]),
  HEATING_OIL: demo(2.6, 0.35, 60_000, 300_000, [
    { type: 'stocks', frequency: 'weekly', base: 120_000, unit: 'thousand bbl', seasonality: 0.1 },
  ]),
  GASOLINE_RBOB: demo(2.3, 0.38, 60_000, 320_000, [
    { type: 'stocks', frequency: 'weekly', base: 230_000, unit: 'thousand bbl', seasonality: 0.06 },
  ]),
  GOLD: demo(1900, 0.15, 200_000, 500_000),
  SILVER: demo(24, 0.28, 70_000, 150_000),
  COPPER: demo(3.8, 0.24, 80_000, 220_000),
  PLATINUM: demo(950, 0.25, 20_000, 80_000),
  PALLADIUM: demo(1300, 0.35, 6_000, 20_000),
  ALUMINUM: demo(2300, 0.2, 1_000, 5_000),
  CORN: demo(550, 0.25, 350_000, 1_500_000, cropFundamentals(15_000_000_000, 175, 90_000_000, 'bu')),
  SOYBEANS: demo(1250, 0.2, 200_000, 700_000, cropFundamentals(4_200_000_000, 51, 84_000_000, 'bu')),
  WHEAT_SRW: demo(600, 0.3, 130_000, 400_000, [
    { type: 'production', frequency: 'annual', base: 400_000_000, unit: 'bu' },
    { type: 'ending_stocks', frequency: 'monthly', base: 90_000_000, unit: 'bu', seasonality: 0.3 },
  ]),
  WHEAT_HRW: demo(650, 0.3, 50_000, 230_000, [
    { type: 'production', frequency: 'annual', base: 700_000_000, unit: 'bu' },
    { type: 'ending_stocks', frequency: 'monthly', base: 250_000_000, unit: 'bu', seasonality: 0.3 },
  ]),
  WHEAT_HRS: demo(700, 0.27, 10_000, 60_000),
  SOYBEAN_OIL: demo(50, 0.3, 120_000, 500_000),
  SOYBEAN_MEAL: demo(380, 0.25, 110_000, 500_000),
  OATS: demo(380, 0.32, 1_500, 4_500, cropFundamentals(60_000_000, 68, 2_500_000, 'bu')),
  ROUGH_RICE: demo(17, 0.2, 1_000, 9_000, cropFundamentals(200_000_000, 7_500, 2_700_000, 'cwt')),
  LIVE_CATTLE: demo(175, 0.14, 60_000, 350_000),
  FEEDER_CATTLE: demo(240, 0.16, 15_000, 60_000),
  LEAN_HOGS: demo(85, 0.25, 50_000, 250_000),
  MILK_CLASS_III: demo(18, 0.2, 1_500, 25_000),
  CANOLA: demo(700, 0.22, 15_000, 200_000),
  COFFEE: demo(180, 0.32, 25_000, 200_000),
  SUGAR: demo(22, 0.3, 100_000, 900_000),
  COCOA: demo(3500, 0.35, 15_000, 200_000),
  COTTON: demo(80, 0.22, 25_000, 250_000, cropFundamentals(14_000_000, 850, 11_000_000, '480 lb bales')),
  ORANGE_JUICE: demo(280, 0.35, 1_500, 12_000),
  LUMBER: demo(550, 0.4, 800, 4_000),
};
