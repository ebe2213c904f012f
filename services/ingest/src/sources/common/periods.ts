import { daysInMonth } from './values.ts';

/** Last day of a month as YYYY-MM-DD: monthly values are dated at the end of their period. */
export function monthEnd(year: number, month: number): string {
  return `${year}-${String(month).padStart(2, '0')}-${String(daysInMonth(year, month)).padStart(2, '0')}`;
}
