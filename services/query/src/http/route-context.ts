import type { ROUTES_BY_NAME, RouteName } from '@cds/contracts';
import type { ZodTypeProvider } from '@cds/http';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ReadModelRepository } from '../repository/repository.ts';

/** What every endpoint handler uses. */
export interface RouteContext {
  repository: ReadModelRepository;
  /** Today's date in UTC, YYYY-MM-DD, from the injected clock. */
  today(): string;
  /** The injected clock's now (ms): `as_of` may not be after it. */
  nowMs(): number;
}

/** The app as the routes see it: params and query string typed from their contract schemas. */
export type QueryApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** A route the query service answers: its contract object (libs/contracts routes.ts). */
export type QueryRoute = (typeof ROUTES_BY_NAME)[RouteName];

type ParamsOf<R> = R extends { params: infer P } ? { params: P } : { params?: never };

/**
 * A route's fastify schema, all from its contract object: its path parameters, its query string
 * (validated by @cds/http zodValidatorCompiler) and, for a JSON answer, its 200 body's schema
 * (responseSerializer turns it into the route's serializer, the response cache's included).
 */
export function routeSchema<R extends QueryRoute>(
  route: R,
): ParamsOf<R> & { querystring: R['query']; response?: { 200: unknown } } {
  return {
    ...('params' in route ? { params: route.params } : {}),
    querystring: route.query,
    ...(route.body.kind === 'json' ? { response: { 200: route.body.schema } } : {}),
  } as ParamsOf<R> & { querystring: R['query']; response?: { 200: unknown } };
}

/** Longest slug the router takes (longer: Fastify's 414); the gateway forwards URLs of up to 4096 characters. */
export const MAX_SLUG_PARAM_LENGTH = 8192;

/** Pagination meta per docs/decisions.md: total_pages = ceil(total / per_page), 0 when total is 0. */
export function paginationMeta(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}
