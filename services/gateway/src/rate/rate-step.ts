import { PLANS, rateLimitHeaders } from '@cds/contracts';
import { RateLimitedError } from '@cds/http';
import type { preHandlerHookHandler } from 'fastify';
import type { GatewayMetrics } from '../metrics.ts';
import { API_HEADERS } from '../server/headers.ts';
import type { RateLimiter } from './windows.ts';

/**
 * Step 2 of an API request: counts it against its account's minute and day windows (every
 * authenticated request counts, 4xx included; a refused one does not). The rate headers go on
 * every answer from here on (200, 4xx, 429); a refusal is 429 with Retry-After. Sets
 * `request.rateDecision`.
 */
export function createRateStep(deps: {
  rateLimiter: RateLimiter;
  metrics?: GatewayMetrics | undefined;
}): preHandlerHookHandler {
  const { rateLimiter, metrics } = deps;
  return function takeRateWindows(request, reply, done) {
    const principal = request.principal!;
    rateLimiter.take(principal.accountId, PLANS[principal.plan], principal.keyId).then((decision) => {
      request.rateDecision = decision;
      metrics?.rateDecisions.add([decision.admitted ? 'admitted' : 'refused', decision.source]);
      reply.headers(API_HEADERS).headers(rateLimitHeaders(decision.minute, decision.day, decision.now));
      if (decision.admitted) done();
      else done(new RateLimitedError(decision.refusedBy ?? 'minute', decision.retryAfter));
    }, done);
  };
}
