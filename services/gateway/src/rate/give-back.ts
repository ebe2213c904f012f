import { PLANS } from '@cds/contracts';
import type { FastifyRequest } from 'fastify';
import type { RateLimiter } from './windows.ts';

/**
 * A 304 does not count against the windows (as GitHub does it): the windows step took one
 * request, this gives it back and leaves the windows as they are after it on the request (the
 * 304's rate headers). A request the windows step did not count is left alone.
 */
export function createGiveBack(rateLimiter: RateLimiter): (request: FastifyRequest) => Promise<void> {
  return async function giveBack(request) {
    const taken = request.rateDecision;
    const principal = request.principal;
    if (taken === null || principal === null || !taken.admitted) return;
    try {
      request.rateDecision = await rateLimiter.giveBack(principal.accountId, PLANS[principal.plan], taken);
    } catch (err) {
      // The 304 still goes out, with the windows as the take left them.
      request.log.warn({ err }, 'rate window give-back failed');
    }
  };
}
