import type { Frequency } from '@cds/contracts';

/** EIA by frequency: daily spot prices 30 days; weekly (WPSR) 8 weeks; monthly 6 months (the sync's overlap). */
export const EIA_OVERLAP_DAYS = { daily: 30, weekly: 56, monthly: 183 } satisfies Record<Frequency, number>;
/** How far back a first EIA sync asks. */
export const EIA_INITIAL_LOOKBACK_DAYS = 3 * 365;
/** EIA API v2 returns at most 5,000 rows per request. */
export const EIA_MAX_PAGE = 5_000;

/** The rows an EIA page must hold: the page size, or what is left of `total`. */
export function expectedEiaRows(total: number, offset: number, pageSize: number): number {
  return Math.max(0, Math.min(pageSize, total - offset));
}
