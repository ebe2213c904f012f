import type { Frequency } from '@cds/contracts';

const DAY_MS = 86_400_000;

function parseUtc(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
}

function formatUtc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Today's date in UTC as YYYY-MM-DD. */
export function utcDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** `today()` over a clock, formatting the date only when the UTC day changes (it runs on every request). */
export function createUtcToday(clock: () => Date | number): () => string {
  let day = '';
  let from = 0;
  let until = -1;
  return () => {
    const now = clock();
    const ms = typeof now === 'number' ? now : now.getTime();
    if (ms < from || ms >= until) {
      day = utcDate(new Date(ms));
      from = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
      until = from + DAY_MS;
    }
    return day;
  };
}

/** The Monday that starts the ISO week (Monday to Sunday) of a YYYY-MM-DD date. */
export function isoWeekStart(date: string): string {
  const ms = parseUtc(date);
  const dow = (new Date(ms).getUTCDay() + 6) % 7; // Monday 0 ... Sunday 6
  return formatUtc(ms - dow * DAY_MS);
}

/**
 * The first day of the period (at `frequency`) that holds `date`: the date itself for daily, the
 * Monday of its ISO week for weekly, the first of its month for monthly. Two dates share a period
 * exactly when their period starts are equal, so this is also the grouping key of resampling.
 */
export function periodStart(date: string, frequency: Frequency): string {
  switch (frequency) {
    case 'daily':
      return date;
    case 'weekly':
      return isoWeekStart(date);
    case 'monthly':
      return `${date.slice(0, 8)}01`;
  }
}

export function yearOf(date: string): number {
  return Number(date.slice(0, 4));
}

/** The whole years from the year of `from` to the year of `to`, inclusive. */
export function yearsBetween(from: string, to: string): number[] {
  const years: number[] = [];
  for (let y = yearOf(from); y <= yearOf(to); y++) years.push(y);
  return years;
}
