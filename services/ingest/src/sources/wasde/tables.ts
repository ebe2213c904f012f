import { snake } from './names.ts';

/**
 * The WASDE sub-reports this source reads, by their title as USDA writes it (the `srNN` numbers
 * drift across years, the titles do not), and what each matrix of a table is: the catalog
 * commodity it feeds, or why it is skipped. A US table holds one commodity per matrix, in the
 * order the report prints them (sr12: feed grains then corn); each such matrix is proved by its
 * rows or its quantity unit (`proof`), so a reordered table is refused rather than misfiled. A
 * world table holds one commodity, its regions in the `region` context.
 */

/** What one matrix of a US table is: a catalog commodity, or skipped with the reason. */
export type MatrixRole =
  | {
      commodity: string;
      proof?: { unit?: RegExp; attribute?: RegExp; notAttribute?: RegExp };
      /**
       * The units when the rows prove the matrix but its unit rows do not: the August and September
       * 2010 files repeat the feed grains' metric-ton unit rows on the corn matrix (their PDF prints bushels).
       */
      fallbackUnits?: { area: string; yield: string; quantity: string };
    }
  | { skip: string }
  /** Wheat by class: the class names the commodity, in the cell's `commodity`/`attribute_group` context. */
  | { classes: Readonly<Record<string, string>> };

export interface TableSpec {
  /** The title as USDA writes it (footnote marks and "(Cont'd.)" ignored). */
  title: RegExp;
  kind: 'us' | 'world';
  /** World tables: the commodity; US tables: one role per matrix, in order. */
  commodity?: string;
  matrices?: readonly MatrixRole[];
  /** Why the whole table is skipped (no catalog commodity). */
  skip?: string;
  /** The quantity unit when the table prints no unit row (sr13, sugar). */
  quantityUnit?: string;
  /** The yield unit when the table prints no unit row for it. */
  yieldUnit?: string;
  /** The unit of a price row whose name states none (cotton's `Avg. Farm Price 3/`). */
  priceUnit?: string;
  /** The unit of a per-person row (the meats' `Per Capita 2/ 3/`: pounds, retail weight, its footnote says). */
  perCapitaUnit?: string;
  /** Years are calendar years (`2025 Proj.`, the meats), not marketing years. */
  calendarYears?: true;
  /** `Total Use` is domestic use, exports and ending stocks beside it (the meats): how its balance is checked. */
  useBesideExports?: true;
}

const NO_ALL_WHEAT = 'no catalog commodity for all wheat (the catalog lists the classes)';

/** The wheat classes the catalog lists, by the snake_case of the class as the table names it (older files: `Hard Winter`). */
const WHEAT_CLASSES = {
  hard_red_winter: 'WHEAT_HRW',
  hard_winter: 'WHEAT_HRW',
  hard_red_spring: 'WHEAT_HRS',
  hard_spring: 'WHEAT_HRS',
  soft_red_winter: 'WHEAT_SRW',
  soft_red: 'WHEAT_SRW',
} as const;

/** The tables read, in the report's order; a title none matches is skipped and counted by its title. */
export const WASDE_TABLES: readonly TableSpec[] = [
  {
    title: /^U\.\s?S\. Wheat by Class: Supply and Use/i,
    kind: 'us',
    quantityUnit: 'Million Bushels',
    matrices: [{ classes: WHEAT_CLASSES }],
  },
  {
    title: /^U\.\s?S\. Wheat Supply and Use/i,
    kind: 'us',
    quantityUnit: 'Million Bushels',
    matrices: [{ skip: NO_ALL_WHEAT }, { classes: WHEAT_CLASSES }],
  },
  { title: /^World Wheat Supply and Use/i, kind: 'world', skip: NO_ALL_WHEAT },
  {
    title: /^U\.\s?S\. Feed Grains? and Corn Supply and Use/i,
    kind: 'us',
    matrices: [
      { skip: 'feed grains (no catalog commodity)' },
      {
        commodity: 'CORN',
        proof: { attribute: /farm price \(\$\/bu\)/i, unit: /bushels/i },
        fallbackUnits: { area: 'Million Acres', yield: 'Bushels per Acre', quantity: 'Million Bushels' },
      },
    ],
  },
  { title: /^World Corn Supply and Use/i, kind: 'world', commodity: 'CORN' },
  {
    title: /^U\.\s?S\. Sorghum, Barley,? and Oats Supply and Use/i,
    kind: 'us',
    quantityUnit: 'Million Bushels',
    yieldUnit: 'Bushels per Acre',
    matrices: [
      { skip: 'sorghum (no catalog commodity)' },
      { skip: 'barley (no catalog commodity)' },
      { commodity: 'OATS' },
    ],
  },
  {
    title: /^U\.\s?S\. Rice Supply and Use/i,
    kind: 'us',
    quantityUnit: 'Million Hundredweight',
    yieldUnit: 'Pounds per Acre',
    matrices: [
      { commodity: 'ROUGH_RICE' },
      { skip: 'long grain rice (no catalog commodity)' },
      { skip: 'medium and short grain rice (no catalog commodity)' },
    ],
  },
  { title: /^World Rice Supply and Use/i, kind: 'world', commodity: 'ROUGH_RICE' },
  {
    title: /^U\.\s?S\. Soybeans and Products Supply and Use/i,
    kind: 'us',
    matrices: [
      { commodity: 'SOYBEANS', proof: { unit: /bushels/i, notAttribute: /c\/lb|\$\/s\.t\./i } },
      { commodity: 'SOYBEAN_OIL', proof: { unit: /pounds/i } },
      { commodity: 'SOYBEAN_MEAL', proof: { unit: /short tons/i } },
    ],
  },
  { title: /^World Soybean Supply and Use/i, kind: 'world', commodity: 'SOYBEANS' },
  { title: /^World Soybean Meal Supply and Use/i, kind: 'world', commodity: 'SOYBEAN_MEAL' },
  { title: /^World Soybean Oil Supply and Use/i, kind: 'world', commodity: 'SOYBEAN_OIL' },
  {
    title: /^U\.\s?S\. Sugar Supply and Use/i,
    kind: 'us',
    quantityUnit: '1,000 Short Tons, Raw Value',
    matrices: [{ commodity: 'SUGAR' }],
  },
  {
    title: /^U\.\s?S\. Cotton Supply and Use/i,
    kind: 'us',
    priceUnit: 'Cents per Pound',
    matrices: [{ commodity: 'COTTON' }],
  },
  { title: /^World Cotton Supply and Use/i, kind: 'world', commodity: 'COTTON' },
  {
    // by calendar year; one commodity group per meat: beef and pork feed the catalog's closest
    // commodities, the cattle and hogs futures; broilers, turkey and the totals are skipped
    title: /^U\.\s?S\. Meats Supply and Use/i,
    kind: 'us',
    calendarYears: true,
    useBesideExports: true,
    quantityUnit: 'Million Pounds',
    perCapitaUnit: 'Pounds per Person, Retail Weight',
    matrices: [{ classes: { beef: 'LIVE_CATTLE', pork: 'LEAN_HOGS' } }],
  },
];

/** The spec of a sub-report title, or undefined (an unmapped table: skipped and counted by title). */
export function tableOf(title: string): TableSpec | undefined {
  return WASDE_TABLES.find((t) => t.title.test(title));
}

/** The commodity of a wheat class as the table names it (`Hard Red Winter  2/`), or undefined (white, durum, total). */
export function classCommodity(classes: Readonly<Record<string, string>>, name: string): string | undefined {
  const key = snake(name);
  return Object.hasOwn(classes, key) ? classes[key] : undefined;
}
