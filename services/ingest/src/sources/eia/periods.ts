import type { Frequency } from '@cds/contracts';
import { monthEnd } from '../common/periods.ts';
import { isoDatePrefix, usDateToIso } from '../common/values.ts';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/**
 * Reads an EIA period for a series of the given frequency: daily and weekly take a day
 * (`2024-01-05` in the API, `01/5/2024` in CSV downloads); monthly takes a month (`2024-01`,
 * `Jan 2024`, `Jan-2024`) dated at its last day. Returns undefined when the period does not fit.
 */
export function eiaPeriodToDate(raw: string, frequency: Frequency): string | undefined {
  const s = raw.trim();
  if (frequency === 'daily' || frequency === 'weekly') return isoDatePrefix(s) ?? usDateToIso(s);
  let m = /^(\d{4})-(\d{2})$/.exec(s);
  if (m) {
    const month = Number(m[2]);
    return month >= 1 && month <= 12 ? monthEnd(Number(m[1]), month) : undefined;
  }
  m = /^([A-Za-z]{3})[- ](\d{4})$/.exec(s);
  if (m) {
    const month = MONTHS.indexOf(m[1]!.toUpperCase()) + 1;
    return month > 0 ? monthEnd(Number(m[2]), month) : undefined;
  }
  return undefined;
}

/** Frequency named by an EIA CSV download's first header cell. */
export function frequencyOfHeader(cell: string): Frequency | undefined {
  const c = cell.trim().toLowerCase();
  if (c === 'day' || c === 'date') return 'daily';
  if (c === 'week of' || c === 'week') return 'weekly';
  if (c === 'month') return 'monthly';
  return undefined;
}
