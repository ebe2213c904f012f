import type { CotFormat, CotScope } from '@cds/contracts';

/**
 * Where each value of a COT record comes from: a list of accepted column names, folded with
 * normalizeHeader so the annual files' headers ("Noncommercial Positions-Long (All)",
 * "Swap__Positions_Short_All", the CIT file's "NComm_Postions_Spread_All_NoCIT") and the Socrata
 * API's field names (noncomm_positions_long_all, swap__positions_short_all, the API's own "postions"
 * typo, its mixed-case CIT names) all resolve. The record reads the "All" columns (all crop years);
 * the Old and Other columns feed the row check only (CROP_YEAR_FIELDS). Net is never read, it is
 * long - short computed on the read side.
 */
export const COMMON_FIELDS = {
  // the CIT files of 2006-2012 head it "As_of_Date_In_Form_MM/DD/YYYY" over ISO dates
  report_date: ['as_of_date_in_form_yyyy_mm_dd', 'report_date_as_yyyy_mm_dd', 'as_of_date_in_form_mm_dd_yyyy'],
  contract_code: ['cftc_contract_market_code'],
  open_interest: ['open_interest_all'],
} as const;

/** The column that says which report a row belongs to (disaggregated files, every Socrata dataset but CIT). */
export const SCOPE_COLUMN = 'futonly_or_combined';

/** A FutOnly_or_Combined cell's scope, or undefined for a value the CFTC does not use. */
export function scopeOfCell(raw: string): CotScope | undefined {
  const v = raw.trim().toLowerCase();
  return v === 'futonly' ? 'futures_only' : v === 'combined' ? 'futures_and_options' : undefined;
}

export const LEGACY_FIELDS = {
  'commercial.long': ['commercial_positions_long_all', 'comm_positions_long_all'],
  'commercial.short': ['commercial_positions_short_all', 'comm_positions_short_all'],
  'non_commercial.long': ['noncommercial_positions_long_all', 'noncomm_positions_long_all'],
  'non_commercial.short': ['noncommercial_positions_short_all', 'noncomm_positions_short_all'],
  'non_commercial.spreading': [
    'noncommercial_positions_spreading_all',
    'noncomm_postions_spread_all',
    'noncomm_positions_spread_all',
  ],
  'non_reportable.long': ['nonreportable_positions_long_all', 'nonrept_positions_long_all'],
  'non_reportable.short': ['nonreportable_positions_short_all', 'nonrept_positions_short_all'],
} as const;

export const DISAGGREGATED_FIELDS = {
  'producer_merchant.long': ['prod_merc_positions_long_all', 'prod_merc_positions_long'],
  'producer_merchant.short': ['prod_merc_positions_short_all', 'prod_merc_positions_short'],
  'swap_dealer.long': ['swap_positions_long_all'],
  'swap_dealer.short': ['swap_positions_short_all'],
  'swap_dealer.spreading': ['swap_positions_spread_all'],
  'managed_money.long': ['m_money_positions_long_all'],
  'managed_money.short': ['m_money_positions_short_all'],
  'managed_money.spreading': ['m_money_positions_spread_all', 'm_money_positions_spread'],
  'other_reportable.long': ['other_rept_positions_long_all', 'other_rept_positions_long'],
  'other_reportable.short': ['other_rept_positions_short_all', 'other_rept_positions_short'],
  'other_reportable.spreading': ['other_rept_positions_spread_all', 'other_rept_positions_spread'],
} as const;

/**
 * The CIT supplement (annualci.txt, Socrata 4zgm-a668): commercial and non-commercial excluding
 * the index traders (the NoCIT columns; the file spells the non-commercial spreading column
 * "NComm_Postions_Spread_All_NoCIT", the API all three non-commercial ones "ncomm_postions_..."),
 * the index traders and the non-reportable positions.
 */
export const CIT_FIELDS = {
  'commercial.long': ['comm_positions_long_all_nocit'],
  'commercial.short': ['comm_positions_short_all_nocit'],
  'non_commercial.long': ['ncomm_positions_long_all_nocit', 'ncomm_postions_long_all_nocit'],
  'non_commercial.short': ['ncomm_positions_short_all_nocit', 'ncomm_postions_short_all_nocit'],
  'non_commercial.spreading': ['ncomm_postions_spread_all_nocit', 'ncomm_positions_spread_all_nocit'],
  'index_traders.long': ['cit_positions_long_all'],
  'index_traders.short': ['cit_positions_short_all'],
  'non_reportable.long': ['nonrept_positions_long_all'],
  'non_reportable.short': ['nonrept_positions_short_all'],
} as const;

export type PositionField = keyof typeof LEGACY_FIELDS | keyof typeof DISAGGREGATED_FIELDS | keyof typeof CIT_FIELDS;

const POSITION_FIELDS: Record<CotFormat, Readonly<Record<string, readonly string[]>>> = {
  legacy: LEGACY_FIELDS,
  disaggregated: DISAGGREGATED_FIELDS,
  cit: CIT_FIELDS,
};

export function positionFields(format: CotFormat): Readonly<Record<string, readonly string[]>> {
  return POSITION_FIELDS[format];
}

/**
 * The Socrata names of the Old and Other columns that do not follow `<all name>` with `_all`
 * turned into `_old` / `_other` (the API numbers some of them: `_1` is Old, `_2` Other, and the
 * legacy non-commercial spreading is `noncomm_positions_spread` / `..._spread_1`).
 */
const SOCRATA_CROP_YEARS: Readonly<Record<string, { old: string[]; other: string[] }>> = {
  'non_commercial.spreading': { old: ['noncomm_positions_spread'], other: ['noncomm_positions_spread_1'] },
  'producer_merchant.long': { old: ['prod_merc_positions_long_1'], other: ['prod_merc_positions_long_2'] },
  'producer_merchant.short': { old: ['prod_merc_positions_short_1'], other: ['prod_merc_positions_short_2'] },
  'managed_money.spreading': { old: ['m_money_positions_spread_1'], other: ['m_money_positions_spread_2'] },
  'other_reportable.long': { old: ['other_rept_positions_long_1'], other: ['other_rept_positions_long_2'] },
  'other_reportable.short': { old: ['other_rept_positions_short_1'], other: ['other_rept_positions_short_2'] },
  'other_reportable.spreading': {
    old: ['other_rept_positions_spread_1'],
    other: ['other_rept_positions_spread_2'],
  },
};

/** A figure of a record (open interest or a position) with the names of its Old and Other columns. */
export interface CropYearFigure {
  field: string;
  old: readonly string[];
  other: readonly string[];
}

function cropYears(field: string, all: readonly string[]): CropYearFigure {
  const ending = (to: string) => all.filter((a) => a.endsWith('_all')).map((a) => `${a.slice(0, -4)}_${to}`);
  const extra = SOCRATA_CROP_YEARS[field];
  return {
    field,
    old: [...ending('old'), ...(extra?.old ?? [])],
    other: [...ending('other'), ...(extra?.other ?? [])],
  };
}

/** Every column a format's row check reads: open interest and each position, with its Old and Other names. */
export const CROP_YEAR_FIELDS: Readonly<Record<CotFormat, readonly CropYearFigure[]>> = {
  legacy: [COMMON_FIELDS, LEGACY_FIELDS].flatMap(cropYearsOf),
  disaggregated: [COMMON_FIELDS, DISAGGREGATED_FIELDS].flatMap(cropYearsOf),
  cit: [],
};

function cropYearsOf(fields: Readonly<Record<string, readonly string[]>>): CropYearFigure[] {
  return Object.entries(fields)
    .filter(([field]) => field !== 'report_date' && field !== 'contract_code')
    .map(([field, all]) => cropYears(field, all));
}

/**
 * The sums the row check `old_plus_other_equals_all` compares, Old + Other against All: open
 * interest, each long and short, and in a group with spreading its long + spreading and short +
 * spreading, never the three alone: a spread between an old-crop and an other-crop month is a spread
 * in All but a long in one crop year and a short in the other, so in the seasonal markets the
 * CFTC's long, short and spreading columns do not add up one by one (they do as these sums). The
 * CIT supplement has no crop-year split: none.
 */
export const CROP_YEAR_CHECKS: Readonly<Record<CotFormat, readonly (readonly string[])[]>> = {
  legacy: cropYearChecks(LEGACY_FIELDS),
  disaggregated: cropYearChecks(DISAGGREGATED_FIELDS),
  cit: [],
};

function cropYearChecks(fields: Readonly<Record<string, readonly string[]>>): string[][] {
  const positions = Object.keys(fields);
  const checks: string[][] = [['open_interest']];
  for (const field of positions) {
    const [group, side] = field.split('.') as [string, string];
    if (side === 'spreading') continue;
    const spreading = `${group}.spreading`;
    checks.push(positions.includes(spreading) ? [field, spreading] : [field]);
  }
  return checks;
}

/** Guesses the format from the (normalized) column names; undefined when none fits. */
export function detectFormat(columns: ReadonlySet<string>): CotFormat | undefined {
  const has = (aliases: readonly string[]) => aliases.some((a) => columns.has(a));
  if (has(CIT_FIELDS['index_traders.long']) && has(CIT_FIELDS['commercial.long'])) return 'cit';
  if (has(DISAGGREGATED_FIELDS['producer_merchant.long']) && has(DISAGGREGATED_FIELDS['managed_money.long'])) {
    return 'disaggregated';
  }
  if (has(LEGACY_FIELDS['commercial.long']) && has(LEGACY_FIELDS['non_commercial.long'])) return 'legacy';
  return undefined;
}

/**
 * The scope of a file by the name the CFTC gives it, where the file itself cannot tell: the legacy
 * futures-only (annual.txt of deacot<year>.zip, FUT86_16.txt) and combined (annualof.txt of
 * deahistfo<year>.zip, Com95_16.txt) files have the same 129 columns and no FutOnly_or_Combined
 * column. Undefined for any other name (the input's scope stands).
 */
export function scopeOfFileName(file: string): CotScope | undefined {
  const name = (file.split(/[\\/]/).pop() ?? '').toLowerCase();
  if (/^(annualof|com\d\d_\d\d|c_year|c_disagg|annualci|cit\d\d_\d\d)[^a-z]|^dea(com|hist|cit)|^dea_cit/.test(name))
    return 'futures_and_options';
  if (/^(annual|f_year|f_disagg)\.|^(fut|f_disagg)\d\d_\d\d[^a-z]|^dea(cot|fut)/.test(name)) return 'futures_only';
  return undefined;
}
