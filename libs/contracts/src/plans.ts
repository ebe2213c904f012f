import { z } from 'zod';

export const PLAN_NAMES = ['free', 'professional', 'business', 'enterprise'] as const;
export const Plan = z.enum(PLAN_NAMES);
export type Plan = z.infer<typeof Plan>;

export interface PlanRules {
  perMinute: number;
  perDay: number;
  /** Months of history readable, or null for full history. */
  historyMonths: number | null;
  cotLegacy: boolean;
  cotDisaggregated: boolean;
  /**
   * Active (unrevoked) keys an account may hold at once: past it the admin API refuses a new key
   * (403 forbidden) until one is revoked. Bounds what one account can add to every gateway's key
   * table (docs/dashboard-security.md).
   */
  maxActiveKeys: number;
}

/** The plan table of docs/decisions.md. */
export const PLANS: Readonly<Record<Plan, Readonly<PlanRules>>> = {
  free: {
    perMinute: 10,
    perDay: 1_000,
    historyMonths: 12,
    cotLegacy: false,
    cotDisaggregated: false,
    // What one person needs (one key in use, one for a rotation, one spare): also what makes farming
    // Free accounts for keys cost the most sign-ups (docs/reliability.md "Key table").
    maxActiveKeys: 3,
  },
  professional: {
    perMinute: 100,
    perDay: 100_000,
    historyMonths: null,
    cotLegacy: true,
    cotDisaggregated: false,
    maxActiveKeys: 50,
  },
  business: {
    perMinute: 500,
    perDay: 500_000,
    historyMonths: null,
    cotLegacy: true,
    cotDisaggregated: true,
    maxActiveKeys: 50,
  },
  enterprise: {
    perMinute: 1_000,
    perDay: 1_000_000,
    historyMonths: null,
    cotLegacy: true,
    cotDisaggregated: true,
    maxActiveKeys: 50,
  },
};

/**
 * The earliest start_date a plan may ask for, given today's UTC date (YYYY-MM-DD): today minus
 * the plan's history months (clamped to the month's last day, so 2025-03-31 minus 1 month is
 * 2025-02-28), or null when the plan has full history.
 */
export function earliestAllowedDate(plan: Plan, todayUtc: string): string | null {
  const months = PLANS[plan].historyMonths;
  if (months === null) return null;
  return addMonths(todayUtc, -months);
}

/** Adds (or subtracts) whole months to a YYYY-MM-DD date, clamping the day to the month's end. */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const total = y * 12 + (m - 1) + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(d, lastDay);
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * Whether a plan reads a COT dataset: the legacy layouts (legacy in either scope and the CIT
 * supplement, whose groups are the legacy ones with the index traders apart) with cotLegacy, the
 * disaggregated ones with cotDisaggregated.
 */
export function cotDatasetAllowed(
  rules: Pick<PlanRules, 'cotLegacy' | 'cotDisaggregated'>,
  format: 'legacy' | 'disaggregated' | 'cit',
): boolean {
  return format === 'disaggregated' ? rules.cotDisaggregated : rules.cotLegacy;
}
