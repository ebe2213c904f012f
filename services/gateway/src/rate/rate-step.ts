import { PLANS } from '@cds/contracts';
import { RateLimitedError } from '@cds/http';
import type { preHandlerHookHandler } from 'fastify';
import type { GatewayMetrics } from '../metrics.ts';
import type { RateLimiter } from './windows.ts';

/**
 * Step 2 of an API request: counts it against its account's minute and day windows (every
 * authenticated request counts, 4xx included; a refused one does not); a refusal is 429 with
 * Retry-After. Sets `request.rateDecision`, whose rate headers every answer from here on carries
 * (api/answer-headers.ts).
 */
export function createRateStep(deps: {
  rateLimiter: RateLimiter;
  metrics?: GatewayMetrics | undefined;
}): preHandlerHookHandler {
  const { rateLimiter, metrics } = deps;
  return function takeRateWindows(request, _reply, done) {
    const principal = request.principal!;
    rateLimiter.take(principal.accountId, PLANS[principal.plan], principal.keyId).then((decision) => {
      request.rateDecision = decision;
      metrics?.rateDecisions.add([decision.admitted ? 'admitted' : 'refused', decision.source]);
      if (decision.admitted) done();
      else done(new RateLimitedError(decision.refusedBy ?? 'minute', decision.retryAfter));
    }, done);
  };
}
