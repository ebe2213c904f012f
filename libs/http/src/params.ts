import { ALWAYS_ALLOWED_QUERY_PARAMS, PATH_PARAM_RULES } from '@cds/contracts';
import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { InvalidParameterError } from './errors.ts';

/**
 * The one zod-to-400 adapter: request parameters (query string or path) and JSON bodies
 * (`parseBody`) checked with a contract schema, the first problem reported as the contract's
 * `invalid_parameter` naming its parameter.
 */
export type ParamResult<T> = { ok: true; value: T } | { ok: false; param: string; message: string };

/**
 * Parses raw parameters (as a query-string parser gives them: strings, or arrays when repeated)
 * and reports the first problem with the name of the offending parameter. `ignore` names
 * parameters left out before parsing (api_key: the gateway's business).
 */
export function parseParams<S extends z.ZodType>(
  schema: S,
  raw: Record<string, unknown>,
  opts: { ignore?: readonly string[] } = {},
): ParamResult<z.output<S>> {
  // No prototype: a parameter named `__proto__` stays a parameter (and is refused as unknown)
  // instead of being swallowed by Object.prototype's setter.
  const input = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of Object.entries(raw)) {
    // `?=x` has no name to put in `param`: the error names the query string as a whole.
    if (name === '') return { ok: false, param: 'query', message: 'a query parameter has an empty name' };
    if (opts.ignore?.includes(name)) continue;
    if (Array.isArray(value)) return { ok: false, param: name, message: `'${name}' must be given only once` };
    input[name] = value;
  }
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, ...describeFirstIssue(result.error.issues, input) };
}

/** The parameter and message of the first issue of a failed parse of `input`. */
export function describeFirstIssue(
  issues: readonly z.core.$ZodIssue[],
  input: Record<string, unknown>,
): { param: string; message: string } {
  const issue = issues[0];
  if (issue === undefined) return { param: 'query', message: 'invalid parameters' };
  if (issue.code === 'unrecognized_keys') {
    const name = issue.keys[0] ?? 'query';
    return { param: name, message: `unknown parameter '${name}'` };
  }
  const name = typeof issue.path[0] === 'string' ? issue.path[0] : 'query';
  if (input[name] === undefined && issue.path.length === 1) return { param: name, message: `'${name}' is required` };
  const rule = PATH_PARAM_RULES[name as keyof typeof PATH_PARAM_RULES];
  return { param: name, message: `invalid '${name}': ${rule ?? describeIssue(issue)}` };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'date' ? 'must be a real calendar date in YYYY-MM-DD form' : issue.message;
    default:
      return issue.message;
  }
}

/**
 * A JSON request body checked with a zod schema (the admin API's): the value, or the contract's
 * `invalid_parameter` thrown for the first issue, naming the field (`where` when the issue is on
 * the body as a whole): an unknown field, a missing body, or the schema's message.
 */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path[0];
  let param = typeof field === 'string' ? field : where;
  if (issue?.code === 'unrecognized_keys') param = issue.keys[0] ?? where;
  const message =
    issue?.code === 'unrecognized_keys'
      ? `Unknown field ${issue.keys.join(', ')} in the request body.`
      : issue?.code === 'invalid_type' && value === undefined
        ? 'A JSON request body is required.'
        : `Invalid ${param}: ${issue?.message ?? 'malformed'}.`;
  throw new InvalidParameterError(param, message);
}

/**
 * Fastify's validatorCompiler for zod contract schemas (routes typed with ZodTypeProvider): the
 * query string and path parameters go through parseParams (api_key ignored in the query), a
 * problem becomes the contract's 400 through the error handler. Nothing is remembered here: a
 * repeated URL of a cached route is answered before validation (@cds/response-cache).
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  if (httpPart !== 'querystring' && httpPart !== 'params') {
    throw new Error(`zodValidatorCompiler validates the query string and path parameters, not ${httpPart}`);
  }
  const ignore = httpPart === 'querystring' ? ALWAYS_ALLOWED_QUERY_PARAMS : [];
  return (data) => {
    const result = parseParams(schema, (data ?? {}) as Record<string, unknown>, { ignore });
    if (!result.ok) return { error: new InvalidParameterError(result.param, result.message) };
    return { value: result.value };
  };
};

export type { ZodTypeProvider } from 'fastify-type-provider-zod';
