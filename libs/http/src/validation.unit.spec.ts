import { CommodityPathParams, ErrorBody, SeriesQuery } from '@cds/contracts';
import Fastify from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { createRequestIdGenerator, registerErrorHandling, zodValidatorCompiler } from './index.ts';

/** A route typed from the contract schemas, validated by `compiler`. */
function build(compiler: typeof zodValidatorCompiler) {
  const app = Fastify({ genReqId: createRequestIdGenerator() });
  registerErrorHandling(app, { publicBaseUrl: 'https://api.example.com' });
  app.setValidatorCompiler(compiler);
  const seen: unknown[] = [];
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/c/:slug/series',
      { schema: { params: CommodityPathParams, querystring: SeriesQuery } },
      ({ params, query }) => {
        seen.push(query);
        return { slug: params.slug, type: query.type, transform: query.transform };
      },
    );
  return { app, seen };
}

async function error(app: ReturnType<typeof build>['app'], url: string) {
  const res = await app.inject(url);
  expect(res.statusCode, res.body).toBe(400);
  return ErrorBody.parse(res.json()).error;
}

describe('zodValidatorCompiler', () => {
  it('validates path then query with the contract schemas, defaults applied, api_key ignored', async () => {
    const { app } = build(zodValidatorCompiler);
    const ok = await app.inject('/c/GOLD/series?type=price&api_key=k');
    expect(ok.json()).toEqual({ slug: 'GOLD', type: 'price', transform: 'none' });
    // the path first: both wrong names the slug, with the contract's rule
    expect(await error(app, '/c/gold/series?type=nope')).toMatchObject({
      code: 'invalid_parameter',
      param: 'slug',
      message: "invalid 'slug': a commodity id is UPPER_SNAKE_CASE, for example GOLD",
    });
    expect(await error(app, '/c/GOLD/series')).toMatchObject({ param: 'type', message: "'type' is required" });
    expect(await error(app, '/c/GOLD/series?type=price&x=1')).toMatchObject({
      param: 'x',
      message: "unknown parameter 'x'",
    });
    expect(await error(app, '/c/GOLD/series?type=price&type=volume')).toMatchObject({
      param: 'type',
      message: "'type' must be given only once",
    });
    expect(await error(app, '/c/GOLD/series?type=price&limit=0')).toMatchObject({ param: 'limit' });
  });

  it('validates every request alike: a repeated valid query gives the same value, a refusal stays one', async () => {
    const { app, seen } = build(zodValidatorCompiler);
    await app.inject('/c/GOLD/series?type=price');
    await app.inject('/c/SILVER/series?type=price');
    await app.inject('/c/GOLD/series?type=volume');
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[2]).not.toEqual(seen[0]);
    for (let i = 0; i < 2; i++) expect((await error(app, '/c/GOLD/series?type=x')).param).toBe('type');
  });
});

describe("the type provider's own validator", () => {
  it('maps its errors to the contract 400 through the same adapter', async () => {
    const { app } = build(validatorCompiler as typeof zodValidatorCompiler);
    expect(await error(app, '/c/GOLD/series?type=nope')).toMatchObject({
      code: 'invalid_parameter',
      param: 'type',
      message:
        "invalid 'type': must be one of price, volume, open_interest, production, stocks, yield, planted_acres, harvested_acres, refinery_inputs, ending_stocks",
    });
    expect(await error(app, '/c/GOLD/series')).toMatchObject({ param: 'type', message: "'type' is required" });
    expect(await error(app, '/c/gold/series?type=price')).toMatchObject({ param: 'slug' });
  });
});
