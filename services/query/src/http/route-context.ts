import { COMMODITY_ID_PATTERN, ROUTE_PATHS } from '@cds/contracts';
import type { ZodTypeProvider } from '@cds/http';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { z } from 'zod';
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

/** The four data endpoints (the contract's paths). */
export const ROUTES = ROUTE_PATHS;

/**
 * The `{slug}` of the commodity routes: the contract's shape (UPPER_SNAKE_CASE; anything else is the
 * 400 naming `slug`), without the catalog's length bound: a well-formed id longer than any catalog
 * id is a commodity the catalog does not list, 404 like any other (requireCommodity).
 */
export const SlugParams = z.strictObject({ slug: z.string().regex(COMMODITY_ID_PATTERN) });
export type SlugParams = z.infer<typeof SlugParams>;

/** Longest slug the router takes (longer: Fastify's 414); the gateway forwards URLs of up to 4096 characters. */
export const MAX_SLUG_PARAM_LENGTH = 8192;

/** Pagination meta per docs/decisions.md: total_pages = ceil(total / per_page), 0 when total is 0. */
export function paginationMeta(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}
