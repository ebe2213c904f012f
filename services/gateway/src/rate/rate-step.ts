import { PLANS } from '@cds/contracts';
import { RateLimitedError } from '@cds/http';
import type { FastifyRequest, preHandlerHookHandler } from 'fastify';
import { invalidKey } from '../auth/authenticate.ts';
import type { GatewayMetrics } from '../metrics.ts';
import type { NotModifiedMeter } from './not-modified-meter.ts';
import type { RateLimiter } from './windows.ts';

/**
 * Step 4 of an API request: counts it against its account's minute and day windows (every
 * authenticated request counts, 4xx included; a refused one does not); a refusal is 429 with
 * Retry-After. A request the cache step found answered by a 304 goes to the 304 meter
 * (not-modified-meter.ts): every tenth of an account's 304s is counted, the others are not
 * (decided from the account's last decision on this replica, or checked with one Redis call
 * instead of a take and a give-back). Sets `request.rateDecision`, whose rate headers every answer
 * from here on carries (api/answer-headers.ts), then sends the plan step's refusal, if any.
 */
export function createRateStep(deps: {
  rateLimiter: RateLimiter;
  notModified: NotModifiedMeter;
  metrics?: GatewayMetrics | undefined;
  /** Whether the key is still valid after the wait (auth/authenticate.ts createRevocationRecheck); a 401 if not. */
  stillAuthorized?: ((request: FastifyRequest) => boolean) | undefined;
}): preHandlerHookHandler {
  const { rateLimiter, notModified, metrics, stillAuthorized } = deps;
  return function takeRateWindows(request, _reply, done) {
    const principal = request.principal!;
    const limits = PLANS[principal.plan];
    const decided =
      request.cachedAnswer?.notModified === true
        ? notModified.cached(principal.accountId, limits, principal.keyId)
        : rateLimiter.take(principal.accountId, limits, principal.keyId);
    decided.then((decision) => {
      request.rateDecision = decision;
      notModified.saw(principal.accountId, limits, principal.keyId, decision);
      metrics?.rateDecisions.add([decision.admitted ? 'admitted' : 'refused', decision.source]);
      if (stillAuthorized !== undefined && !stillAuthorized(request)) done(invalidKey());
      else if (!decision.admitted) done(new RateLimitedError(decision.refusedBy ?? 'minute', decision.retryAfter));
      else done(request.refusal ?? undefined);
    }, done);
  };
}
