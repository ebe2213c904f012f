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
  catalog?: CatalogIndex;
  stats?: ParseStats;
}

export interface HttpClient {
  /** GETs a URL and returns the body text of a 2xx response, retrying transient failures. */
  getText(url: URL): Promise<string>;
  /**
   * GETs a URL and returns the body bytes of a 2xx response (a binary file), retrying transient
   * failures; a body over `maxBytes` (announced or received) fails at once, reading no further.
   */
  getBytes(url: URL, options: { maxBytes: number }): Promise<Uint8Array>;
}

const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);
const SECRET_PARAMS = /([?&](?:api_key|key|\$\$app_token|app_token)=)[^&]*/gi;

/** The URL with credentials masked, for logs and errors. */
export function redactUrl(url: URL | string): string {
  return String(url).replace(SECRET_PARAMS, '$1***');
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

  async function get<T>(url: URL, read: (res: Response, shown: string) => Promise<T>): Promise<T> {
    const shown = redactUrl(url);
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
        const res = await fetch(url, {
          headers: { accept: 'application/json, text/csv;q=0.9, */*;q=0.5', ...options.headers },
          signal: AbortSignal.timeout(Math.max(1, Math.min(timeoutMs, deadline - now()))),
        });
        if (res.ok) return await read(res, shown);
        const body = await res.text();
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
    getText: (url) => get(url, (res) => res.text()),
    getBytes: (url, { maxBytes }) => get(url, (res, shown) => boundedBody(res, maxBytes, shown)),
  };
}
