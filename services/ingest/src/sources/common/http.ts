import { redactUrl as redactSecrets } from '@cds/telemetry';
import type { CatalogIndex } from '../../catalog/index.ts';
import type { ParseStats } from './stats.ts';

/** Raised when a source request fails for good: non-retryable status, or retries exhausted. */
export class SourceFetchError extends Error {
  override readonly name = 'SourceFetchError';
  readonly status: number | undefined;
  readonly attempts: number;
  constructor(message: string, details: { status?: number; attempts: number; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.attempts = details.attempts;
  }
}

export interface HttpClientOptions {
  /** Source label for messages (cftc, eia, nass). */
  source: string;
  /** Client-side rate limit: at least this many ms between request starts (default 1000). */
  minIntervalMs?: number;
  /** Retries after the first attempt on 429, 5xx and network errors (default 4). */
  maxRetries?: number;
  /** First backoff delay; doubles each retry, with jitter (default 500). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** Largest body getText reads (default SOURCE_TEXT_MAX_BYTES); getBytes takes its own bound. */
  maxTextBytes?: number;
  /** Same-origin redirects followed per attempt (default 3); a redirect to another origin is refused. */
  maxRedirects?: number;
  /** Overall deadline (ms on the `now` clock): no attempt starts, and no backoff waits, past it. */
  deadline?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

/** What every source's fetcher takes beside its own query: client settings, address, catalog, counters. */
export interface SourceFetchOptions extends Partial<Omit<HttpClientOptions, 'source'>> {
  /** The source's address (tests point it at a local server). */
  baseUrl?: string;
  catalog: CatalogIndex;
  stats?: ParseStats;
}

export interface HttpClient {
  /**
   * GETs a URL and returns the body text (UTF-8) of a 2xx response, retrying transient failures;
   * a body over `maxTextBytes` fails at once, reading no further.
   */
  getText(url: URL): Promise<string>;
  /**
   * GETs a URL and returns the body bytes of a 2xx response (a binary file), retrying transient
   * failures; a body over `maxBytes` (announced or received) fails at once, reading no further.
   */
  getBytes(url: URL, options: { maxBytes: number }): Promise<Uint8Array>;
}

const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Largest text body read by default: a NASS answer holds at most 50,000 records of ~1.3 KB (65 MB);
 * a CFTC or EIA page of 5,000 rows is under 20 MB, an AMS report window under 5 MB.
 */
export const SOURCE_TEXT_MAX_BYTES = 96 * 1024 * 1024;

/** 127.0.0.0/8, ::1 and localhost: the only hosts spoken to in plain http (a local stand-in). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * Why the client will not GET `url`, or undefined: only https, except plain http to a loopback
 * host (a local stand-in for a source, as tests and an offline `npm start` configure; a redirect
 * or a link can never reach one, as both keep to their origin).
 */
export function refusedUrl(url: URL): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `only https is fetched (${url.protocol}//${url.host})`;
}

/** The URL with credentials masked, for logs and errors (the secret names: @cds/telemetry SECRET_QUERY_PARAMS). */
export function redactUrl(url: URL | string): string {
  return redactSecrets(String(url), '***');
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const s = value.trim();
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}

/**
 * A small fetch wrapper for the public data sources: client-side rate limit (requests spaced by
 * minIntervalMs, shared by concurrent callers), per-attempt timeout, exponential backoff with
 * jitter on 429/5xx/network errors that honours Retry-After, and errors that never echo keys.
 * Bounded: https only (refusedUrl), same-origin redirects only (at most maxRedirects), every body
 * read within a byte bound (maxTextBytes, getBytes' maxBytes, 64 KiB of an error body), every
 * attempt within timeoutMs and all of them within the deadline.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const minInterval = options.minIntervalMs ?? 1000;
  const maxRetries = options.maxRetries ?? 4;
  const base = options.baseDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxText = options.maxTextBytes ?? SOURCE_TEXT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? 3;
  let nextSlot = 0;

  async function acquireSlot(): Promise<void> {
    const t = now();
    const at = Math.max(t, nextSlot);
    nextSlot = at + minInterval;
    if (at > t) await sleep(at - t);
  }

  const backoff = (attempt: number) => Math.min(maxDelay, base * 2 ** attempt) * (0.5 + random() / 2);

  /** A 2xx body of at most maxBytes, read chunk by chunk so a larger one is never held. */
  async function boundedBody(res: Response, maxBytes: number, shown: string): Promise<Uint8Array> {
    const tooLarge = (n: string) =>
      new SourceFetchError(`${options.source}: GET ${shown}: the body is ${n} bytes, more than the ${maxBytes} read`, {
        status: res.status,
        attempts: 1,
      });
    const announced = Number(res.headers.get('content-length'));
    if (Number.isFinite(announced) && announced > maxBytes) {
      await res.body?.cancel();
      throw tooLarge(String(announced));
    }
    const parts: Uint8Array[] = [];
    let size = 0;
    if (res.body) {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > maxBytes) {
          await res.body.cancel().catch(() => undefined);
          throw tooLarge(`over ${maxBytes}`);
        }
        parts.push(chunk);
      }
    }
    return Buffer.concat(parts, size);
  }

  /**
   * One attempt: GETs `url` without letting fetch follow redirects; follows up to maxRedirects
   * same-origin ones itself and refuses one to another host, port or scheme (SourceFetchError,
   * not retried), so a redirect cannot downgrade to http or leave the publisher's host.
   */
  async function fetchFollowing(url: URL, signal: AbortSignal, shown: string): Promise<Response> {
    let target = url;
    for (let hops = 0; ; hops++) {
      const res = await fetch(target, {
        headers: { accept: 'application/json, text/csv;q=0.9, */*;q=0.5', ...options.headers },
        redirect: 'manual',
        signal,
      });
      const location = res.headers.get('location');
      if (res.status < 300 || res.status > 399 || location === null) return res;
      await res.body?.cancel().catch(() => undefined);
      const refuse = (why: string) =>
        new SourceFetchError(`${options.source}: GET ${shown}: ${why}: not followed`, {
          status: res.status,
          attempts: 1,
        });
      let next: URL;
      try {
        next = new URL(location, target);
      } catch {
        throw refuse(`HTTP ${res.status} redirects to a malformed address`);
      }
      if (next.origin !== target.origin)
        throw refuse(`HTTP ${res.status} redirects to another host or scheme (${redactUrl(next.origin)})`);
      if (hops >= maxRedirects) throw refuse(`more than ${maxRedirects} redirects`);
      target = next;
    }
  }

  async function get<T>(url: URL, read: (res: Response, shown: string) => Promise<T>): Promise<T> {
    const shown = redactUrl(url);
    const refused = refusedUrl(url);
    if (refused !== undefined)
      throw new SourceFetchError(`${options.source}: GET ${shown}: ${refused}; not fetched`, { attempts: 0 });
    let lastProblem = '';
    let lastStatus: number | undefined;
    const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
    const pastDeadline = (attempts: number) =>
      new SourceFetchError(
        `${options.source}: GET ${shown} gave up at the deadline after ${attempts} attempts${lastProblem ? `; last: ${lastProblem}` : ''}`,
        { ...(lastStatus !== undefined ? { status: lastStatus } : {}), attempts },
      );
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      await acquireSlot();
      if (now() >= deadline) throw pastDeadline(attempt);
      let wait = backoff(attempt);
      try {
        const res = await fetchFollowing(
          url,
          AbortSignal.timeout(Math.max(1, Math.min(timeoutMs, deadline - now()))),
          shown,
        );
        if (res.ok) return await read(res, shown);
        const body = new TextDecoder('utf-8').decode(
          await boundedBody(res, 64 * 1024, shown).catch(() => new Uint8Array()),
        );
        lastStatus = res.status;
        lastProblem = `HTTP ${res.status}: ${body.slice(0, 200).replace(/\s+/g, ' ')}`;
        if (!RETRYABLE.has(res.status)) {
          throw new SourceFetchError(`${options.source}: GET ${shown} failed with ${lastProblem}`, {
            status: res.status,
            attempts: attempt + 1,
          });
        }
        const retryAfter = parseRetryAfter(res.headers.get('retry-after'), now());
        if (retryAfter !== undefined) wait = Math.min(Math.max(wait, retryAfter), Math.max(maxDelay, retryAfter));
      } catch (err) {
        if (err instanceof SourceFetchError) throw err;
        lastStatus = undefined;
        const e = err as Error;
        lastProblem = e.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : `network error: ${e.message}`;
      }
      if (attempt < maxRetries) {
        if (now() + wait > deadline) throw pastDeadline(attempt + 1);
        await sleep(wait);
      }
    }
    throw new SourceFetchError(
      `${options.source}: GET ${shown} failed after ${maxRetries + 1} attempts; last: ${lastProblem}`,
      { ...(lastStatus !== undefined ? { status: lastStatus } : {}), attempts: maxRetries + 1 },
    );
  }

  return {
    getText: (url) =>
      get(url, async (res, shown) => new TextDecoder('utf-8').decode(await boundedBody(res, maxText, shown))),
    getBytes: (url, { maxBytes }) => get(url, (res, shown) => boundedBody(res, maxBytes, shown)),
  };
}
