import type { HttpClient } from '../http.ts';
import { redactUrl } from '../http.ts';

/** A page that came back incomplete (truncated or malformed body, fewer rows than announced): retried. */
export class IncompletePageError extends Error {
  override readonly name = 'IncompletePageError';
}

/** The source's answer no longer has the shape we read (a renamed or missing field): not retried. */
export class SchemaChangeError extends Error {
  override readonly name = 'SchemaChangeError';
}

export interface PageRetry {
  /** Further attempts after an incomplete page (default 3). */
  retries?: number;
  baseDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Overall deadline on the `now` clock. */
  deadline?: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * GETs a page and checks it with `check` (which parses it and throws IncompletePageError or
 * SchemaChangeError). HTTP failures are retried by the client (429/5xx, Retry-After, timeouts); an
 * incomplete page is fetched again with backoff, within the deadline. A page is only ever returned
 * whole: a partial page is never taken for a complete one.
 */
export async function getCheckedPage<T>(
  client: HttpClient,
  url: URL,
  check: (body: string) => T,
  retry: PageRetry = {},
): Promise<T> {
  const retries = retry.retries ?? 3;
  const sleep = retry.sleep ?? defaultSleep;
  const now = retry.now ?? Date.now;
  const deadline = retry.deadline ?? Number.POSITIVE_INFINITY;
  for (let attempt = 0; ; attempt++) {
    const body = await client.getText(url);
    try {
      return check(body);
    } catch (err) {
      if (!(err instanceof IncompletePageError)) throw err;
      const wait = (retry.baseDelayMs ?? 500) * 2 ** attempt;
      if (attempt >= retries || now() + wait > deadline) {
        throw new IncompletePageError(`${err.message} (GET ${redactUrl(url)}, ${attempt + 1} attempts)`, {
          cause: err,
        });
      }
      await sleep(wait);
    }
  }
}

/** A body fetched by fetchPages and the offset of its first row in the whole result. */
export interface PageBody {
  body: string;
  offset: number;
}

/**
 * Pages through a paged source: GETs `url(offset)` from offset 0, each page checked by
 * getCheckedPage with `check(body, offset)`, then asks `next(page, offset)` for the next offset
 * (undefined: that was the last page). Returns the bodies in order; parsing them is the caller's.
 */
export async function fetchPages<P extends { body: string }>(
  client: HttpClient,
  url: (offset: number) => URL,
  check: (body: string, offset: number) => P,
  next: (page: P, offset: number) => number | undefined,
  retry?: PageRetry,
): Promise<PageBody[]> {
  const bodies: PageBody[] = [];
  for (let offset: number | undefined = 0; offset !== undefined;) {
    const at: number = offset;
    const page = await getCheckedPage(client, url(at), (body) => check(body, at), retry);
    bodies.push({ body: page.body, offset: at });
    offset = next(page, at);
  }
  return bodies;
}

/** JSON.parse that calls a truncated or malformed body what it is. */
export function parseJsonBody(body: string, what: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch (err) {
    throw new IncompletePageError(
      `${what}: the body is not complete JSON (${body.length} bytes; ${(err as Error).message})`,
    );
  }
}

/** Throws a SchemaChangeError naming every required field a row lacks (and the fields it has). */
export function requireFields(
  rows: readonly unknown[],
  required: readonly (string | readonly string[])[],
  what: string,
): asserts rows is Record<string, unknown>[] {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (typeof row !== 'object' || row === null || Array.isArray(row))
      throw new SchemaChangeError(`${what}: row ${i + 1} is not an object`);
    const missing = required.filter((f) => (typeof f === 'string' ? [f] : f).every((name) => !(name in row)));
    if (missing.length > 0) {
      const names = missing.map((f) => (typeof f === 'string' ? f : f.join(' or ')));
      throw new SchemaChangeError(
        `${what}: the source's schema changed: row ${i + 1} has no ${names.map((n) => `"${n}"`).join(', ')} field (fields: ${Object.keys(row).join(', ')}); nothing was published for this series`,
      );
    }
  }
}
