import type { CftcMapping } from './mapping.ts';

/**
 * The CFTC_Contract_Market_Code values of each catalog commodity's benchmark contract in the
 * Commitments of Traders reports (none: not in the reports), by catalog id; `cit`: one of the 13
 * markets of the Supplemental report (Commodity Index Traders; soybean meal since 2013).
 */
export const CFTC_CATALOG: Readonly<Record<string, CftcMapping>> = {
  CRUDE_OIL_WTI: { codes: ['067651'] },
  CRUDE_OIL_BRENT: { codes: [] },
  NATURAL_GAS: { codes: ['023651'] },
  HEATING_OIL: { codes: ['022651'] },
  GASOLINE_RBOB: { codes: ['111659'] },
  GOLD: { codes: ['088691'] },
  SILVER: { codes: ['084691'] },
  COPPER: { codes: ['085692'] },
  PLATINUM: { codes: ['076651'] },
  PALLADIUM: { codes: ['075651'] },
  ALUMINUM: { codes: [] },
  CORN: { codes: ['002602'], cit: true },
  SOYBEANS: { codes: ['005602'], cit: true },
  WHEAT_SRW: { codes: ['001602'], cit: true },
  WHEAT_HRW: { codes: ['001612'], cit: true },
  WHEAT_HRS: { codes: ['001626'] },
  SOYBEAN_OIL: { codes: ['007601'], cit: true },
  SOYBEAN_MEAL: { codes: ['026603'], cit: true },
  OATS: { codes: ['004603'] },
  ROUGH_RICE: { codes: ['039601'] },
  LIVE_CATTLE: { codes: ['057642'], cit: true },
  FEEDER_CATTLE: { codes: ['061641'], cit: true },
  LEAN_HOGS: { codes: ['054642'], cit: true },
  MILK_CLASS_III: { codes: ['052641'] },
  CANOLA: { codes: ['135731'] },
  COFFEE: { codes: ['083731'], cit: true },
  SUGAR: { codes: ['080732'], cit: true },
  COCOA: { codes: ['073732'], cit: true },
  COTTON: { codes: ['033661'], cit: true },
  ORANGE_JUICE: { codes: ['040701'] },
  LUMBER: { codes: ['058643'] },
};
