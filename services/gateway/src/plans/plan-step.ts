import type { UtcDay } from '@cds/schedule';
import type { preHandlerHookHandler } from 'fastify';
import { isCommodityId, invalidSlug } from '../api/slug.ts';
import type { ApiRoute } from '../api/routes.ts';
import { forwardedQuery } from '../proxy/forwarded-query.ts';
import { checkBulkFile, checkPlan } from './plan-rules.ts';

const NOTHING: Readonly<Record<string, unknown>> = Object.freeze({});

/** The parsed query string or path parameters fastify hands a route (objects; anything else is none). */
function recordOf(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null ? (value as Readonly<Record<string, unknown>>) : NOTHING;
}

/**
 * Step 2 of an API request: the plan rules (COT per plan, the Free tier's history; 403), then the
 * slug (400 when it can be no commodity id; every other parameter is the query service's to
 * name). Sets `request.target`, the path to forward, or `request.refusal`, which the windows step
 * sends once it has counted the request (every authenticated request counts, 4xx included, and an
 * exhausted window answers 429 first).
 */
export function createPlanStep(route: ApiRoute, deps: { nowMs: () => number; today: UtcDay }): preHandlerHookHandler {
  const { nowMs, today } = deps;
  return function checkPlanAndSlug(request, _reply, done) {
    const refusal = checkPlan(request.principal!.plan, route.name, recordOf(request.query), today.of(nowMs()));
    if (refusal !== undefined) {
      request.refusal = refusal;
      done();
      return;
    }
    if (route.name === 'bulkFile') {
      // A name that is no bulk file is the query service's 404; a bulk file the plan may not have is 403.
      const file = recordOf(request.params).file;
      const name = typeof file === 'string' ? file : '';
      const bulkRefusal = checkBulkFile(request.principal!.plan, name);
      if (bulkRefusal !== undefined) request.refusal = bulkRefusal;
      else {
        request.target = {
          path: route.upstream(encodeURIComponent(name)) + forwardedQuery(request.url),
          commodityId: undefined,
        };
      }
      done();
      return;
    }
    let commodityId: string | undefined;
    if (route.name !== 'list' && route.name !== 'bulk') {
      const slug = recordOf(request.params).slug;
      if (typeof slug !== 'string' || !isCommodityId(slug)) {
        request.refusal = invalidSlug();
        done();
        return;
      }
      commodityId = slug;
    }
    request.target = { path: route.upstream(commodityId ?? '') + forwardedQuery(request.url), commodityId };
    done();
  };
}
