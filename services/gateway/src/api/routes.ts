import { ROUTE_NAMES, ROUTES_BY_NAME, pathParamNames, type PUBLIC_ROUTES, type RouteName } from '@cds/contracts';
import type { ApiError } from '@cds/http';
import { invalidSlug, isCommodityId } from './slug.ts';

/**
 * What the gateway checks of a path parameter before it forwards (a refusal is never forwarded), by
 * the parameter's name in the contract's routes. A name with no rule here fails to compile
 * (PathParamName comes from the route table).
 */
const PATH_PARAM_CHECKS = {
  // A slug that can name no commodity is a 400; a well-formed unknown one is the query service's 404.
  slug: (value: string) => (isCommodityId(value) ? undefined : invalidSlug()),
  // A name that is no bulk file is the query service's 404 (the plan rule reads it first: 403).
  file: () => undefined,
} satisfies Record<PathParamName, (value: string) => ApiError | undefined>;

type PathParamName = (typeof PUBLIC_ROUTES)[number] extends infer R
  ? R extends { params: { shape: infer S } }
    ? keyof S & string
    : never
  : never;

/** A keyed API route: its name (for the plan rules), its URL pattern, and what it forwards. */
export interface ApiRoute {
  name: RouteName;
  url: string;
  /** Its path parameters, in path order (`:slug`, `:file`). */
  params: readonly PathParamName[];
  /** Whether the gateway keeps its answers (JSON answers; a file's bytes are not kept). */
  cached: boolean;
  /** The query service's path for the given parameter values (each URI-encoded into its place). */
  upstream(values: Readonly<Record<string, string>>): string;
  /** The 400 of the first malformed path parameter, if any. */
  checkParams(values: Readonly<Record<string, string>>): ApiError | undefined;
}

/** The query service serves the same paths: each value goes where the pattern has `:name`. */
function upstreamOf(url: string): (values: Readonly<Record<string, string>>) => string {
  const parts = url.split(/:([a-z_]+)/);
  if (parts.length === 1) return () => url;
  return (values) => {
    let out = parts[0]!;
    for (let i = 1; i < parts.length; i += 2) out += encodeURIComponent(values[parts[i]!] ?? '') + parts[i + 1]!;
    return out;
  };
}

/** The keyed routes, from the contract's route table (libs/contracts routes.ts). */
export const API_ROUTES: readonly ApiRoute[] = ROUTE_NAMES.map((name) => {
  const route = ROUTES_BY_NAME[name];
  const params = pathParamNames(route) as PathParamName[];
  const checks = params.map((p) => [p, PATH_PARAM_CHECKS[p]] as const);
  return {
    name,
    url: route.path,
    params,
    cached: route.body.kind === 'json',
    upstream: upstreamOf(route.path),
    checkParams: (values) => {
      for (const [p, check] of checks) {
        const refusal = check(values[p] ?? '');
        if (refusal !== undefined) return refusal;
      }
      return undefined;
    },
  };
});
