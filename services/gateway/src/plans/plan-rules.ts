import { IsoDate, PLANS, addMonths, earliestAllowedDate, type Plan, type RouteName } from '@cds/contracts';
import { type ApiError, ForbiddenError, HistoricalLimitError } from '@cds/http';

/**
 * Plan rules of docs/decisions.md (the refusal is sent once the rate windows have counted the
 * request): COT features per plan, and the Free tier's 12 months of history. Parameters of the wrong shape are left to the query service,
 * which names them in its 400; the rules apply to what a well-formed request would read.
 */
export function checkPlan(
  plan: Plan,
  route: RouteName,
  query: Readonly<Record<string, unknown>>,
  todayUtc: string,
): ApiError | undefined {
  const rules = PLANS[plan];
  if (route === 'cot') {
    const format = query.format ?? 'legacy';
    if (format === 'legacy' && !rules.cotLegacy) {
      return new ForbiddenError('COT reports need the Professional plan or above.');
    }
    if (format === 'disaggregated' && !rules.cotDisaggregated) {
      return new ForbiddenError('Disaggregated COT reports need the Business plan or above.');
    }
  }
  if (route === 'series') {
    const earliest = earliestAllowedDate(plan, todayUtc);
    if (earliest === null) return undefined;
    const start = query.start_date;
    const end = query.end_date;
    if (typeof start === 'string') {
      if (IsoDate.safeParse(start).success && start < earliest) return new HistoricalLimitError(earliest);
    } else if (start === undefined && typeof end === 'string' && IsoDate.safeParse(end).success) {
      // The default start is one year before end_date: an old end_date reaches back too far.
      if (addMonths(end, -12) < earliest) return new HistoricalLimitError(earliest);
    }
  }
  return undefined;
}
