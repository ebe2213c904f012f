import { CommodityPathParams, ErrorBody, SeriesQuery } from '@cds/contracts';
import Fastify from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { createQueryStringParser, registerErrorHandling, zodValidatorCompiler } from './index.ts';

describe('createQueryStringParser', () => {
  it('parses as fastify does (repeats as arrays, percent-decoding, empty values)', () => {
    const parse = createQueryStringParser();
    expect({ ...parse('type=price&limit=5') }).toEqual({ type: 'price', limit: '5' });
    expect({ ...parse('commodities=GOLD&commodities=CORN') }).toEqual({ commodities: ['GOLD', 'CORN'] });
    expect({ ...parse('q=a%20b&e=') }).toEqual({ q: 'a b', e: '' });
    expect({ ...parse('') }).toEqual({});
  });

  it('hands out one frozen object per remembered query string', () => {
    const parse = createQueryStringParser();
    const first = parse('type=price');
    expect(parse('type=price')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      first.type = 'volume';
    }).toThrow(TypeError);
    const repeated = parse('c=A&c=B');
    expect(parse('c=A&c=B')).toBe(repeated);
    expect(Object.isFrozen(repeated.c)).toBe(true);
    // another parser remembers its own
    expect(createQueryStringParser()('type=price')).not.toBe(first);
  });

  it('never remembers a query string that may hold a key, nor a long one', () => {
    const parse = createQueryStringParser();
    for (const raw of [
      'type=price&api_key=cds_live_abc',
      'API_KEY=x',
      'type=price&api%5Fkey=x', // percent-encoded: could spell api_key
      `type=price&x=${'a'.repeat(300)}`,
    ]) {
      const a = parse(raw);
      const b = parse(raw);
      expect(b, raw).not.toBe(a);
      expect(b).toEqual(a);
      expect(Object.isFrozen(a)).toBe(false);
    }
  });

  it('stays bounded: after 1024 distinct query strings it starts over', () => {
    const parse = createQueryStringParser();
    const first = parse('n=0');
    for (let i = 1; i < 1024; i++) parse(`n=${i}`);
    expect(parse('n=0')).toBe(first); // 1024 remembered
    parse('n=1024'); // the 1025th empties the memo
    expect(parse('n=0')).not.toBe(first);
  });
});

describe('zodValidatorCompiler with the remembering parser', () => {
  function build() {
    const app = Fastify({ routerOptions: { querystringParser: createQueryStringParser() } });
    registerErrorHandling(app, { publicBaseUrl: 'https://api.example.com' });
    app.setValidatorCompiler(zodValidatorCompiler);
    const seen: unknown[] = [];
    app
      .withTypeProvider<ZodTypeProvider>()
      .get('/c/:slug/series', { schema: { params: CommodityPathParams, querystring: SeriesQuery } }, ({ query }) => {
        seen.push(query);
        return { type: query.type, transform: query.transform };
      });
    return { app, seen };
  }

  it('validates a repeated query string to the same value, defaults applied, a key-bearing one without the key', async () => {
    const { app, seen } = build();
    for (const slug of ['GOLD', 'GOLD', 'CORN']) {
      const res = await app.inject(`/c/${slug}/series?type=price`);
      expect(res.json()).toEqual({ type: 'price', transform: 'none' });
    }
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[2]).toEqual(seen[0]);
    await app.inject('/c/GOLD/series?type=price&api_key=k');
    await app.inject('/c/GOLD/series?type=price&api_key=k');
    expect(seen[3]).toEqual(seen[0]);
    expect(seen[4]).toEqual(seen[0]);
  });

  it('refuses a remembered invalid query string every time, in the contract shape', async () => {
    const { app } = build();
    for (let i = 0; i < 3; i++) {
      const res = await app.inject('/c/GOLD/series?type=nope');
      expect(res.statusCode).toBe(400);
      expect(ErrorBody.parse(res.json()).error).toMatchObject({ code: 'invalid_parameter', param: 'type' });
    }
    const repeated = await app.inject('/c/GOLD/series?type=price&type=volume');
    expect(ErrorBody.parse(repeated.json()).error).toMatchObject({ message: "'type' must be given only once" });
  });
});
