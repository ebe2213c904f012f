import type { preHandlerHookHandler } from 'fastify';
import { isCommodityId, invalidSlug } from '../api/slug.ts';
import type { ApiRoute } from '../api/routes.ts';
import { forwardedQuery } from '../proxy/forwarded-query.ts';
import type { UtcDay } from '../utc-day.ts';
import { checkPlan } from './plan-rules.ts';

/**
 * Step 3 of an API request: the plan rules (COT per plan, the Free tier's history; 403), then the
 * slug (400 when it can be no commodity id; every other parameter is the query service's to
 * name). Sets `request.target`, the path to forward.
 */
export function createPlanStep(route: ApiRoute, deps: { nowMs: () => number; today: UtcDay }): preHandlerHookHandler {
  const { nowMs, today } = deps;
  return function checkPlanAndSlug(request, _reply, done) {
    const refusal = checkPlan(
      request.principal!.plan,
      route.name,
      request.query as Record<string, unknown>,
      today.of(nowMs()),
    );
    if (refusal !== undefined) {
      done(refusal);
      return;
    }
    let commodityId: string | undefined;
    if (route.name !== 'list') {
      commodityId = (request.params as { slug: string }).slug;
      if (!isCommodityId(commodityId)) {
        done(invalidSlug());
        return;
      }
    }
    request.target = { path: route.upstream(commodityId ?? '') + forwardedQuery(request.url), commodityId };
    done();
  };
}
