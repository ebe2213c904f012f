import type { WorldBankCatalogMapping, WorldBankMapping } from './mapping.ts';

/** A World Bank Pink Sheet monthly average price (its code in row 7, its unit as row 6 shows it). */
const pinkSheet = (code: string, sourceUnit: '($/mt)' | '($/kg)' | '($/troy oz)'): WorldBankMapping => ({
  code,
  source_unit: sourceUnit,
  unit: `USD/${sourceUnit.slice(3, -1)}`,
  type: 'price',
  frequency: 'monthly',
  basis: 'monthly_average',
});

/** The Pink Sheet series of each commodity the World Bank prices, by catalog id. */
export const WORLDBANK_CATALOG: Readonly<Record<string, WorldBankCatalogMapping>> = {
  GOLD: { series: [pinkSheet('GOLD', '($/troy oz)')] },
  SILVER: { series: [pinkSheet('SILVER', '($/troy oz)')] },
  COPPER: { series: [pinkSheet('COPPER', '($/mt)')] },
  PLATINUM: { series: [pinkSheet('PLATINUM', '($/troy oz)')] },
  ALUMINUM: { series: [pinkSheet('ALUMINUM', '($/mt)')] },
  WHEAT_SRW: { series: [pinkSheet('WHEAT_US_SRW', '($/mt)')] },
  WHEAT_HRW: { series: [pinkSheet('WHEAT_US_HRW', '($/mt)')] },
  SOYBEAN_OIL: { series: [pinkSheet('SOYBEAN_OIL', '($/mt)')] },
  SOYBEAN_MEAL: { series: [pinkSheet('SOYBEAN_MEAL', '($/mt)')] },
  COFFEE: { series: [pinkSheet('COFFEE_ARABIC', '($/kg)')] },
  SUGAR: { series: [pinkSheet('SUGAR_WLD', '($/kg)')] },
  COCOA: { series: [pinkSheet('COCOA', '($/kg)')] },
  COTTON: { series: [pinkSheet('COTTON_A_INDX', '($/kg)')] },
};
