import type { Frequency } from '@cds/contracts';
import { yearOf } from '@cds/read-models';

const DAY_MS = 86_400_000;

function parseUtc(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
}

function formatUtc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
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

/** The whole years from the year of `from` to the year of `to`, inclusive. */
export function yearsBetween(from: string, to: string): number[] {
  const years: number[] = [];
  for (let y = yearOf(from); y <= yearOf(to); y++) years.push(y);
  return years;
}
