import { z } from 'zod';

/** Metadata the OpenAPI generator reads: `id` makes a schema a named component (`$ref`). */
export interface ContractMeta {
  id?: string;
  title?: string;
  description?: string;
  examples?: unknown[];
  [key: string]: unknown;
}

/**
 * The registry of every public schema: zod's global registry, which `.meta()` also writes to. The
 * OpenAPI document is generated from it, so a schema that carries an `id` here is emitted once
 * under components.schemas and referenced (`$ref`) everywhere else.
 */
export const contractRegistry = z.globalRegistry;

/** Registers a schema with its documentation and returns it unchanged (for inline use). */
export function documented<T extends z.ZodType>(schema: T, meta: ContractMeta): T {
  contractRegistry.add(schema, meta);
  return schema;
}
