import { ROUTE_PATHS } from '@cds/contracts';
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

/** Pagination meta per DECISIONS.md: total_pages = ceil(total / per_page), 0 when total is 0. */
export function paginationMeta(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}
