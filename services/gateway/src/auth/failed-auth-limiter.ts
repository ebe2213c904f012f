import { FailureLimiter } from '@cds/http';

/**
 * Slows down repeated failed authentication from one client address (an IPv6 client by its /64):
 * after `maxFailures` failures within `windowMs`, further requests from that address WITHOUT a valid
 * key are refused (429) until the window passes. Requests with a valid key, and other addresses, are
 * never affected, so one client guessing keys cannot lock anybody else out. Per replica.
 */
export class FailedAuthLimiter extends FailureLimiter {
  constructor(opts: { maxFailures?: number; windowMs?: number; maxClients?: number } = {}) {
    super({
      maxFailures: opts.maxFailures ?? 30,
      windowMs: opts.windowMs ?? 60_000,
      maxClients: opts.maxClients ?? 50_000,
    });
  }
}
