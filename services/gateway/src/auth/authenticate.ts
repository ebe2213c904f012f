import { isWellFormedApiKey } from '@cds/contracts';
import { ApiError, clientBucket, UnauthorizedError } from '@cds/http';
import type { FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { Principal } from '../keys/key-table.ts';
import type { GatewayMetrics } from '../metrics.ts';
import { extractKey } from './extract-key.ts';
import type { FailedAuthLimiter } from './failed-auth-limiter.ts';

export interface KeyLookup {
  /** The principal of a well-formed key (by its hash), or undefined when unknown or revoked. */
  lookup(key: string): Principal | undefined;
  /**
   * How many revocations this replica has learned so far (key stream events and notices): a
   * request whose key was revoked while it waited (on the rate windows) is refused (stillAuthorized).
   */
  revocations?(): number;
}

/**
 * Whether the request's key is still valid once its windows are decided: a revocation learned while
 * it waited for Redis (the notice arrives at any moment) refuses it 401 instead of answering it. Costs
 * one comparison unless a revocation arrived meanwhile, then one lookup.
 */
export function createRevocationRecheck(keys: KeyLookup): (request: FastifyRequest) => boolean {
  if (keys.revocations === undefined) return () => true;
  return (request) => {
    if (keys.revocations?.() === request.revocationsSeen) return true;
    const extracted = extractKey(request.headers, request.raw.rawHeaders, request.query);
    return extracted.ok && keys.lookup(extracted.key) !== undefined;
  };
}

/** The 401 of an unknown, revoked or malformed key. */
export function invalidKey(): UnauthorizedError {
  return new UnauthorizedError('The API key is not valid: it is malformed, unknown or revoked.');
}

/**
 * Step 1 of an API request: the key (Bearer header, else api_key; docs/decisions.md), refused without a
 * lookup when malformed or when a `cds_` key's checksum is wrong; an unknown, revoked or missing key is a 401, or a 429 once the client's
 * address has failed too often (FailedAuthLimiter). Sets `request.principal`.
 */
export function createAuthStep(deps: {
  keys: KeyLookup;
  failedAuth: FailedAuthLimiter;
  nowMs: () => number;
  metrics?: GatewayMetrics | undefined;
}): preHandlerHookHandler {
  const { keys, failedAuth, nowMs, metrics } = deps;
  return function authenticate(request, _reply, done) {
    const extracted = extractKey(request.headers, request.raw.rawHeaders, request.query);
    // The shape and a `cds_` key's checksum are checked first (constant work: the length is checked
    // before anything else): a malformed or mistyped key costs no hash and no lookup.
    const seen = keys.revocations?.() ?? 0;
    const principal = extracted.ok && isWellFormedApiKey(extracted.key) ? keys.lookup(extracted.key) : undefined;
    if (principal !== undefined) {
      request.principal = principal;
      request.revocationsSeen = seen;
      done();
      return;
    }
    const now = nowMs();
    // An IPv6 client is counted by its /64: it could rotate through it otherwise (security review #9).
    const client = clientBucket(request.ip);
    const wait = failedAuth.blockedFor(client, now);
    metrics?.authFailures.add([String(wait > 0)]);
    if (wait > 0) {
      done(
        new ApiError('rate_limited', `Too many failed authentication attempts from your address: retry in ${wait} s.`, {
          headers: { 'retry-after': String(wait) },
        }),
      );
      return;
    }
    failedAuth.recordFailure(client, now);
    done(extracted.ok ? invalidKey() : new UnauthorizedError(`Unauthorized: ${extracted.reason}.`));
  };
}
