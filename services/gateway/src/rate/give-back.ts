import { PLANS } from '@cds/contracts';
import type { FastifyRequest } from 'fastify';
import type { NotModifiedMeter } from './not-modified-meter.ts';
import type { RateLimiter } from './windows.ts';

/**
 * A 304 does not count against the windows (as GitHub does it), except every tenth of an
 * account's 304s (not-modified-meter.ts): the windows step took one request, this gives it back
 * and leaves the windows as they are after it on the request (the 304's rate headers); the tenth
 * is kept as taken. A request the windows step did not count is left alone.
 */
export function createGiveBack(
  rateLimiter: RateLimiter,
  notModified: NotModifiedMeter,
): (request: FastifyRequest) => Promise<void> {
  return async function giveBack(request) {
    const taken = request.rateDecision;
    const principal = request.principal;
    if (taken === null || principal === null || !taken.admitted) return;
    if (!notModified.givesBack(principal.accountId)) return;
    const limits = PLANS[principal.plan];
    try {
      request.rateDecision = await rateLimiter.giveBack(principal.accountId, limits, taken);
      notModified.saw(principal.accountId, limits, principal.keyId, request.rateDecision);
    } catch (err) {
      // The 304 still goes out, with the windows as the take left them.
      request.log.warn({ err }, 'rate window give-back failed');
    }
  };
}
