/** NASS: the current and the previous marketing year are asked again (annual figures are revised). */
export const NASS_OVERLAP_YEARS = 1;
/** NASS: the years a first sync asks for. */
export const NASS_INITIAL_YEARS = 5;
/** Quick Stats refuses a query of more than 50,000 records. */
export const NASS_MAX_RECORDS = 50_000;

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
