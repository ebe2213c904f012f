import type { FastifyInstance } from 'fastify';
import type { ApiError } from '@cds/http';
import type { CachedBody } from '@cds/response-cache';
import type { Principal } from '../keys/key-table.ts';
import type { RateDecision } from '../rate/windows.ts';

/** Where a checked API request goes. */
export interface UpstreamTarget {
  /** Path and query string forwarded to the query service (without the api_key parameter). */
  path: string;
  /** The commodity the answer is about; undefined for the list. */
  commodityId: string | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, set by the auth step (null before it, and on routes without a key). */
    principal: Principal | null;
    /** The replica's count of learned revocations when the auth step looked the key up (KeyLookup.revocations). */
    revocationsSeen: number;
    /** The account's rate windows after counting this request, set by the windows step. */
    rateDecision: RateDecision | null;
    /** Set by the plan step once the plan rules and the path parameters passed. */
    target: UpstreamTarget | null;
    /** Set by the plan step when they did not: sent by the windows step once the request is counted. */
    refusal: ApiError | null;
    /** Set by the cache step on a hit: the kept answer, and whether the request's precondition matches it (a 304). */
    cachedAnswer: { body: CachedBody; notModified: boolean } | null;
    /** Set by the cache step on a miss: where to keep the answer, and the cache's epoch then (an answer fetched across a data event is not kept). */
    cacheSlot: { key: string; epoch: number } | null;
  }
}

/**
 * The request decorations the API steps pass along (auth → plan → cache → windows → answer): each
 * step reads what earlier ones decided from the request itself.
 */
export function decorateRequestState(app: FastifyInstance): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('revocationsSeen', 0);
  app.decorateRequest('rateDecision', null);
  app.decorateRequest('target', null);
  app.decorateRequest('refusal', null);
  app.decorateRequest('cachedAnswer', null);
  app.decorateRequest('cacheSlot', null);
}
