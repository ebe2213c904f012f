import type { UtcDay } from '@cds/schedule';
import type { preHandlerHookHandler } from 'fastify';
import type { ApiRoute } from '../api/routes.ts';
import { forwardedQuery } from '../proxy/forwarded-query.ts';
import { PLAN_RULES } from './plan-rules.ts';

const NOTHING: Readonly<Record<string, unknown>> = Object.freeze({});

/** The parsed query string or path parameters fastify hands a route (objects; anything else is none). */
function recordOf(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null ? (value as Readonly<Record<string, unknown>>) : NOTHING;
}

/** The route's path parameters as strings (a missing or non-string one is empty). */
function paramValues(route: ApiRoute, params: unknown): Record<string, string> {
  const given = recordOf(params);
  const values: Record<string, string> = {};
  for (const name of route.params) {
    const value = given[name];
    values[name] = typeof value === 'string' ? value : '';
  }
  return values;
}

/**
 * Step 2 of an API request: the route's plan rule (COT per plan, the Free tier's history, bulk
 * files per plan; 403), then its path parameters (a slug that can be no commodity id is a 400;
 * every other parameter is the query service's to name). Sets `request.target`, the path to
 * forward, or `request.refusal`, which the windows step sends once it has counted the request
 * (every authenticated request counts, 4xx included, and an exhausted window answers 429 first).
 */
export function createPlanStep(route: ApiRoute, deps: { nowMs: () => number; today: UtcDay }): preHandlerHookHandler {
  const { nowMs, today } = deps;
  const rule = PLAN_RULES[route.name];
  return function checkPlanAndParams(request, _reply, done) {
    const params = paramValues(route, request.params);
    const refusal =
      rule(request.principal!.plan, { query: recordOf(request.query), params }, today.of(nowMs())) ??
      route.checkParams(params);
    if (refusal !== undefined) request.refusal = refusal;
    else request.target = { path: route.upstream(params) + forwardedQuery(request.url), commodityId: params.slug };
    done();
  };
}
