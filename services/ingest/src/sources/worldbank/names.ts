/**
 * The series name row 5 of `Monthly Prices` shows above each code we map, as the workbooks of
 * 2022-10 to 2026-06 spell it. Used only for a workbook without a codes row (the layout of the
 * 2022-10 vintage, test/fixtures/README.md): the columns are then found by name.
 */
export const PINK_SHEET_NAMES: Readonly<Record<string, string>> = {
  COCOA: 'Cocoa',
  COFFEE_ARABIC: 'Coffee, Arabica',
  SOYBEAN_OIL: 'Soybean oil',
  SOYBEAN_MEAL: 'Soybean meal',
  WHEAT_US_SRW: 'Wheat, US SRW',
  WHEAT_US_HRW: 'Wheat, US HRW',
  SUGAR_WLD: 'Sugar, world',
  COTTON_A_INDX: 'Cotton, A Index',
  ALUMINUM: 'Aluminum',
  COPPER: 'Copper',
  GOLD: 'Gold',
  PLATINUM: 'Platinum',
  SILVER: 'Silver',
};

/** A name as compared: footnote stars dropped (`Beef **`), spaces collapsed, case folded. */
export function normalizeSeriesName(name: string): string {
  return name
    .replace(/\*+\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}
