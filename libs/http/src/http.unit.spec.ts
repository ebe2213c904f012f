import { METHODS } from 'node:http';
import Fastify from 'fastify';
import { ErrorBody } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  HistoricalLimitError,
  InvalidParameterError,
  RateLimitedError,
  ServiceUnavailableError,
  createRequestIdGenerator,
  registerErrorHandling,
  registerReadOnlyRoutes,
} from './index.ts';

function build() {
  const app = Fastify({ genReqId: createRequestIdGenerator(), bodyLimit: 1024 });
  registerErrorHandling(app, {
    publicBaseUrl: 'https://api.example.com',
    classify: (e) =>
      e instanceof Error && e.name === 'MongoServerSelectionError' ? new ServiceUnavailableError() : undefined,
  });
  app.get('/bad', () => {
    throw new InvalidParameterError('start_date', 'bad date');
  });
  app.get('/old', () => {
    throw new HistoricalLimitError('2025-11-21');
  });
  app.get('/slow', () => {
    throw new RateLimitedError('minute', 7);
  });
  app.get('/boom', () => {
    throw new Error('secret internal detail at mongo-0.internal:27017');
  });
  app.get('/db', () => {
    const e = new Error('connect ECONNREFUSED 10.0.0.3:27017');
    e.name = 'MongoServerSelectionError';
    throw e;
  });
  app.get('/items/:id', () => ({ ok: true }));
  registerReadOnlyRoutes(app, ['/items/:id']);
  return app;
}

describe('error handling', () => {
  it('renders an ApiError as the contract error body with param and doc_url', async () => {
    const res = await build().inject('/bad');
    expect(res.statusCode).toBe(400);
    const body = ErrorBody.parse(res.json());
    expect(body.error).toMatchObject({
      code: 'invalid_parameter',
      message: 'bad date',
      param: 'start_date',
      doc_url: 'https://api.example.com/docs/errors#invalid_parameter',
    });
    expect(body.error.request_id).toMatch(/^req_[0-9a-f]{20}$/);
  });
  it('historical_limit names start_date; rate_limited sends Retry-After', async () => {
    const app = build();
    expect((await app.inject('/old')).json()).toMatchObject({
      error: { code: 'historical_limit', param: 'start_date' },
    });
    const slow = await app.inject('/slow');
    expect(slow.statusCode).toBe(429);
    expect(slow.headers['retry-after']).toBe('7');
  });
  it('never leaks an unexpected error; a classified driver error is a 503', async () => {
    const app = build();
    const boom = await app.inject('/boom');
    expect(boom.statusCode).toBe(500);
    expect(boom.json()).toMatchObject({ error: { code: 'internal_error' } });
    expect(boom.body).not.toContain('mongo-0');
    const db = await app.inject('/db');
    expect(db.statusCode).toBe(503);
    expect(db.json()).toMatchObject({ error: { code: 'service_unavailable' } });
    expect(db.body).not.toContain('10.0.0.3');
  });
  it('unknown routes are 404 and write methods on known routes are 405 with Allow', async () => {
    const app = build();
    const missing = await app.inject('/nope?x=1');
    expect(missing.statusCode).toBe(404);
    expect(ErrorBody.parse(missing.json()).error.code).toBe('not_found');
    const post = await app.inject({ method: 'POST', url: '/items/1', payload: { a: 1 } });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(post.json()).toMatchObject({ error: { code: 'method_not_allowed' } });
    // Every other method Node parses, Fastify's own (TRACE, QUERY) and the rest (PROPFIND, M-SEARCH).
    for (const method of METHODS.filter((m) => !['GET', 'HEAD', 'OPTIONS', 'CONNECT'].includes(m))) {
      const res = await app.inject({ method: method as 'GET', url: '/items/1' });
      expect(res.statusCode, method).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(ErrorBody.parse(res.json()).error.code).toBe('method_not_allowed');
    }
    expect((await app.inject({ method: 'TRACE', url: '/nope' })).statusCode).toBe(404);
  });
  it('oversized and malformed bodies become contract errors', async () => {
    const app = build();
    const big = await app.inject({
      method: 'POST',
      url: '/items/1',
      payload: 'x'.repeat(5000),
      headers: { 'content-type': 'text/plain' },
    });
    expect([405, 413]).toContain(big.statusCode);
    expect(ErrorBody.safeParse(big.json()).success).toBe(true);
    const bad = await app.inject({
      method: 'POST',
      url: '/items/1',
      payload: '{bad',
      headers: { 'content-type': 'application/json' },
    });
    expect(ErrorBody.safeParse(bad.json()).success).toBe(true);
    expect(bad.statusCode).toBeLessThan(500);
  });
  it('ApiError carries its status from the code table', () => {
    expect(new ApiError('service_unavailable', 'x').statusCode).toBe(503);
    expect(new ApiError('uri_too_long', 'x').statusCode).toBe(414);
  });
});

describe('request ids', () => {
  it('are unique over many draws, each req_ and 20 hex characters', () => {
    const next = createRequestIdGenerator();
    // 5000 ids span ten draws of random bytes (512 ids each), the last one partly used
    const all = Array.from({ length: 5000 }, next);
    expect(new Set(all).size).toBe(5000);
    expect(all.filter((id) => !/^req_[0-9a-f]{20}$/.test(id))).toEqual([]);
  });
});
