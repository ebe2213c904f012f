import type { CotFormat } from '@cds/contracts';

/**
 * Where each value of a COT record comes from: a list of accepted column names, folded with
 * normalizeHeader so the annual files' headers ("Noncommercial Positions-Long (All)",
 * "Swap__Positions_Short_All") and the Socrata API's field names (noncomm_positions_long_all,
 * swap__positions_short_all, the API's own "postions" typo) all resolve. Only the "All" columns
 * (all crop years) are read; net is never read, it is long - short computed on the read side.
 */
export const COMMON_FIELDS = {
  report_date: ['as_of_date_in_form_yyyy_mm_dd', 'report_date_as_yyyy_mm_dd'],
  contract_code: ['cftc_contract_market_code'],
  open_interest: ['open_interest_all'],
} as const;

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

export type PositionField = keyof typeof LEGACY_FIELDS | keyof typeof DISAGGREGATED_FIELDS;

export function positionFields(format: CotFormat): Readonly<Record<string, readonly string[]>> {
  return format === 'legacy' ? LEGACY_FIELDS : DISAGGREGATED_FIELDS;
}

/** Guesses the format from the (normalized) column names; undefined when neither fits. */
export function detectFormat(columns: ReadonlySet<string>): CotFormat | undefined {
  const has = (aliases: readonly string[]) => aliases.some((a) => columns.has(a));
  if (has(DISAGGREGATED_FIELDS['producer_merchant.long']) && has(DISAGGREGATED_FIELDS['managed_money.long'])) {
    return 'disaggregated';
  }
  if (has(LEGACY_FIELDS['commercial.long']) && has(LEGACY_FIELDS['non_commercial.long'])) return 'legacy';
  return undefined;
}
