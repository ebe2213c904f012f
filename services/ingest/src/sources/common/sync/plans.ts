import { addDays } from '@cds/schedule';
import type { Frequency } from '@cds/contracts';

/**
 * How far back each sync asks, per source (docs/sources.md "Sync"): from the newest date stored
 * minus an overlap that catches revisions, or, on the first run of a series, an initial lookback.
 */
export const OVERLAP_DAYS = {
  /** CFTC: four weekly reports (the CFTC corrects recent reports now and then). */
  cftc: 28,
  /** EIA by frequency: daily spot prices 30 days; weekly (WPSR) 8 weeks; monthly 6 months. */
  eia: { daily: 30, weekly: 56, monthly: 183 } satisfies Record<Frequency, number>,
  /** USDA AMS by frequency: LM_HG201 daily 30 days; LM_CT150 weekly 8 weeks; FMMO monthly 6 months. */
  ams: { daily: 30, weekly: 56, monthly: 183 } satisfies Record<Frequency, number>,
} as const;
/** NASS: the current and the previous marketing year are asked again (annual figures are revised). */
export const NASS_OVERLAP_YEARS = 1;

export const INITIAL_LOOKBACK_DAYS = { cftc: 3 * 365, eia: 3 * 365, ams: 3 * 365 } as const;
export const NASS_INITIAL_YEARS = 5;

/** Quick Stats refuses a query of more than 50,000 records. */
export const NASS_MAX_RECORDS = 50_000;
/** EIA API v2 returns at most 5,000 rows per request. */
export const EIA_MAX_PAGE = 5_000;

/** First date to ask for: `since` when given, else newest - overlap, else today - lookback. */
export function syncFrom(args: {
  newest: string | undefined;
  overlapDays: number;
  lookbackDays: number;
  today: string;
  since?: string | undefined;
}): string {
  if (args.since !== undefined) return args.since;
  if (args.newest !== undefined) return addDays(args.newest, -args.overlapDays);
  return addDays(args.today, -args.lookbackDays);
}

/** First year to ask NASS for. */
export function nassFromYear(newest: string | undefined, today: string, since?: string): number {
  if (since !== undefined) return Number(since.slice(0, 4));
  if (newest !== undefined) return Number(newest.slice(0, 4)) - NASS_OVERLAP_YEARS;
  return Number(today.slice(0, 4)) - NASS_INITIAL_YEARS;
}

/**
 * Splits [fromYear, toYear] until each part counts at most `limit` records (halving the range);
 * a single year above the limit is an error (the caller must narrow the query another way).
 */
export async function planYearRanges(
  fromYear: number,
  toYear: number,
  count: (from: number, to: number) => Promise<number>,
  limit = NASS_MAX_RECORDS,
): Promise<{ from: number; to: number; count: number }[]> {
  const n = await count(fromYear, toYear);
  if (n <= limit) return n === 0 ? [] : [{ from: fromYear, to: toYear, count: n }];
  if (fromYear === toYear)
    throw new Error(`${n} records in ${fromYear} exceed the ${limit}-record limit of one Quick Stats query`);
  const mid = Math.floor((fromYear + toYear) / 2);
  return [
    ...(await planYearRanges(fromYear, mid, count, limit)),
    ...(await planYearRanges(mid + 1, toYear, count, limit)),
  ];
}

/** The rows an EIA page must hold: the page size, or what is left of `total`. */
export function expectedEiaRows(total: number, offset: number, pageSize: number): number {
  return Math.max(0, Math.min(pageSize, total - offset));
}
