import {
  COT_DATASETS,
  cotDatasetAllowed,
  cotDatasetOfType,
  IsoDate,
  isMarketingYear,
  marketingYearStart,
  PLAN_NAMES,
  PLANS,
  addMonths,
  bulkFilePlans,
  earliestAllowedDate,
  parseAsOf,
  parseBulkFileName,
  type Plan,
  type RouteName,
} from '@cds/contracts';
import { ApiError, ForbiddenError, HistoricalLimitError } from '@cds/http';

/**
 * The Free tier's history window applied to `as_of` (docs/decisions.md): the same refusal as an
 * old start_date, naming as_of. An instant counts by its UTC date, as a date as_of does.
 */
function asOfBefore(earliest: string): ApiError {
  return new ApiError(
    'historical_limit',
    `Your plan can read data from ${earliest} on: as_of must not be earlier. Upgrade for full history.`,
    { param: 'as_of' },
  );
}

/** What a plan rule reads of a request: its parsed query string and its path parameters. */
export interface PlannedRequest {
  query: Readonly<Record<string, unknown>>;
  params: Readonly<Record<string, string>>;
}

/** A route's plan rule: the refusal (403, or the history limit) of a request under a plan, if any. */
export type PlanRule = (plan: Plan, request: PlannedRequest, todayUtc: string) => ApiError | undefined;

/**
 * The plan a COT format first comes with, for a refusal's message: the first plan the rule
 * (cotDatasetAllowed, libs/contracts plans.ts) lets read it: Professional for legacy and cit,
 * Business for disaggregated.
 */
export function cotPlanNeeded(format: 'legacy' | 'disaggregated' | 'cit'): string {
  const plan = PLAN_NAMES.find((p) => cotDatasetAllowed(PLANS[p], format)) ?? 'enterprise';
  return `${plan[0]!.toUpperCase()}${plan.slice(1)}`;
}

/** How a refusal names each COT layout. */
const COT_NAMED = { legacy: 'COT', disaggregated: 'Disaggregated COT', cit: 'COT supplement (CIT)' } as const;

/**
 * COT features per plan, by the dataset's layout (cotDatasetAllowed): legacy in either scope and
 * the CIT supplement need Professional, disaggregated in either scope Business (the default format
 * is legacy). An unknown format is left to the query service's 400.
 */
function cotFeatures(plan: Plan, query: Readonly<Record<string, unknown>>): ApiError | undefined {
  const format = query.format ?? 'legacy';
  if (format !== 'legacy' && format !== 'disaggregated' && format !== 'cit') return undefined;
  if (cotDatasetAllowed(PLANS[plan], format)) return undefined;
  return new ForbiddenError(`${COT_NAMED[format]} reports need the ${cotPlanNeeded(format)} plan or above.`);
}

/**
 * The Free tier's history: as_of (both routes), and for a series start_date, or the default start
 * one year before end_date.
 */
function history(
  plan: Plan,
  query: Readonly<Record<string, unknown>>,
  todayUtc: string,
  dates: boolean,
): ApiError | undefined {
  const earliest = earliestAllowedDate(plan, todayUtc);
  if (earliest === null) return undefined;
  const asOf = typeof query.as_of === 'string' ? parseAsOf(query.as_of) : undefined;
  if (asOf !== undefined && asOf.slice(0, 10) < earliest) return asOfBefore(earliest);
  if (!dates) return undefined;
  const start = query.start_date;
  // Without end_date, the series' end_date defaults to the date of as_of (then today).
  const end = query.end_date ?? asOf?.slice(0, 10);
  if (typeof start === 'string') {
    if (IsoDate.safeParse(start).success && start < earliest) return new HistoricalLimitError(earliest);
  } else if (start === undefined && typeof end === 'string' && IsoDate.safeParse(end).success) {
    // The default start is one year before end_date: an old end_date reaches back too far.
    if (addMonths(end, -12) < earliest) return new HistoricalLimitError(earliest);
  }
  return undefined;
}

/**
 * The Free tier's history on the supply and demand route (docs/decisions.md): the editions of its
 * last 12 months. An `as_of` before the window is refused as on the other routes; a marketing year
 * whose first year is older than the window's year minus one (the oldest year an edition inside
 * the window still revises: in a window from 2025-11-27, 2024/25 is readable and 2023/24 is not)
 * is a historical_limit naming marketing_year. A marketing year of the wrong shape is the query
 * service's 400.
 */
function supplyDemandHistory(plan: Plan, query: Readonly<Record<string, unknown>>, todayUtc: string) {
  const refused = history(plan, query, todayUtc, false);
  if (refused !== undefined) return refused;
  const earliest = earliestAllowedDate(plan, todayUtc);
  const my = query.marketing_year;
  if (earliest === null || typeof my !== 'string' || !isMarketingYear(my)) return undefined;
  const oldest = Number(earliest.slice(0, 4)) - 1;
  if (marketingYearStart(my) >= oldest) return undefined;
  return new ApiError(
    'historical_limit',
    `Your plan can read the editions from ${earliest} on, which carry the marketing years from ` +
      `${oldest}/${String((oldest + 1) % 100).padStart(2, '0')} on: marketing_year ${my} is older. ` +
      'Upgrade for full history.',
    { param: 'marketing_year' },
  );
}

const NO_RULE: PlanRule = () => undefined;

/**
 * Plan rules of docs/decisions.md by route (the refusal is sent once the rate windows have counted
 * the request): COT features per plan, the Free tier's 12 months of history (supply and demand:
 * its editions), bulk files per plan.
 * Parameters of the wrong shape are left to the query service, which names them in its 400; the
 * rules apply to what a well-formed request would read. A new route names its rule here.
 */
export const PLAN_RULES: Readonly<Record<RouteName, PlanRule>> = {
  list: NO_RULE,
  detail: NO_RULE,
  series: (plan, { query }, today) => history(plan, query, today, true),
  cot: (plan, { query }, today) => cotFeatures(plan, query) ?? history(plan, query, today, false),
  supplyDemand: (plan, { query }, today) => supplyDemandHistory(plan, query, today),
  bulk: NO_RULE,
  bulkFile: (plan, { params }) => checkBulkFile(plan, params.file ?? ''),
};

/** The plan rule of a route for a query string (no path parameters). */
export function checkPlan(
  plan: Plan,
  route: RouteName,
  query: Readonly<Record<string, unknown>>,
  todayUtc: string,
): ApiError | undefined {
  return PLAN_RULES[route](plan, { query, params: {} }, todayUtc);
}

/**
 * Bulk files (GET /bulk/{file}) by their name, as their manifest lists the plans that may download
 * them (libs/contracts bulk.ts): the Free plan only the `recent` files and no COT, Professional no
 * disaggregated COT (in either scope). A name that is no bulk file passes (the query service answers it 404).
 */
export function checkBulkFile(plan: Plan, file: string): ApiError | undefined {
  const name = parseBulkFileName(file);
  if (name === undefined || bulkFilePlans(name.dataset, name.span).includes(plan)) return undefined;
  const cot = cotDatasetOfType(name.dataset);
  if (cot !== undefined && !cotDatasetAllowed(PLANS[plan], COT_DATASETS[cot].format)) {
    const format = COT_DATASETS[cot].format;
    return new ForbiddenError(`${COT_NAMED[format]} bulk files need the ${cotPlanNeeded(format)} plan or above.`);
  }
  return new ForbiddenError(
    `Your plan can download the last ${PLANS[plan].historyMonths ?? 0} months only: ` +
      `ask for ${name.dataset}.recent.${name.format}, or upgrade for full history.`,
  );
}
