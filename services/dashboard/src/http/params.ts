import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { PageError } from './page-error.ts';

/**
 * A route's path parameters through their schema (ids come from libs/contracts), typed. Parameters
 * that do not match throw `unknown()`: an address naming nothing gets the page an unknown id gets.
 */
export function paramsOf<S extends z.ZodType>(
  request: FastifyRequest,
  schema: S,
  unknown: () => PageError,
): z.output<S> {
  const parsed = schema.safeParse(request.params);
  if (!parsed.success) throw unknown();
  return parsed.data;
}
