// A small, bounded, steady-load driver for the e2e fault and replica suites: N requests per second
// (round-robin over gateway URLs, keys and paths) for a fixed duration, recording every status and
// checking that every non-2xx answer is in the contract's error shape. It stops by itself.
import { ERROR_CODE_LIST } from '@cds/contracts';

export interface LoadOptions {
  /** Gateway base URLs (e.g. `http://127.0.0.1:8080`), used round-robin. */
  urls: string[];
  /** API keys, used round-robin (sent as `Authorization: Bearer`). */
  keys: string[];
  /** API paths (with query strings), used round-robin. */
  paths: string[];
  /** Requests started per second (evenly spaced). */
  ratePerSec: number;
  /** How long to keep sending; the driver stops by itself after this. */
  durationMs: number;
  /** Per-request timeout; a request that does not answer in time counts as a timeout. Default 10 s. */
  timeoutMs?: number;
  /** Requests in flight at most; a tick with no free slot is counted as skipped. Default 64. */
  maxInFlight?: number;
}

/** One answered (or failed) request. */
export interface LoadSample {
  /** Milliseconds since the load started, when the request was sent. */
  at: number;
  /** HTTP status, or 0 for a network error / timeout. */
  status: number;
  ms: number;
  url: number;
  /** The error code of a non-2xx answer (when it had one). */
  code?: string;
}

export interface LoadReport {
  sent: number;
  /** Ticks skipped because `maxInFlight` requests were still pending (the system was stalling). */
  skipped: number;
  byStatus: Record<string, number>;
  /** Network errors and timeouts (status 0). */
  failures: number;
  /** Non-2xx answers not in the contract shape (wrong body, unknown code, request id mismatch). */
  contractViolations: { status: number; body: string; reason: string }[];
  /** Error codes of non-2xx answers, counted. */
  byCode: Record<string, number>;
  samples: LoadSample[];
  /** Epoch milliseconds when the load started (sample `at` values are relative to it). */
  startedAt: number;
  elapsedMs: number;
}

export interface RunningLoad {
  /** Resolves when the duration is over and every request has settled. */
  readonly done: Promise<LoadReport>;
  /** Ends early: no new requests; resolves when the pending ones settled. */
  stop(): Promise<LoadReport>;
  /** The report so far (live). */
  snapshot(): LoadReport;
}

const CODES = new Set<string>(ERROR_CODE_LIST);

/** Why `body` (of a non-2xx answer with request id header `requestId`) breaks the contract, or undefined. */
export function contractShapeViolation(status: number, body: string, requestId: string | null): string | undefined {
  if (status >= 500 && status !== 503) return `status ${status}`;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return 'body is not JSON';
  }
  const error = (json as { error?: Record<string, unknown> } | null)?.error;
  if (error === undefined || error === null || typeof error !== 'object') return 'no error object';
  for (const field of ['code', 'message', 'doc_url', 'request_id'] as const) {
    if (typeof error[field] !== 'string' || error[field] === '') return `error.${field} missing`;
  }
  if (!CODES.has(error.code as string)) return `unknown code ${String(error.code)}`;
  if (requestId !== error.request_id) return 'X-Request-Id differs from error.request_id';
  if (!(error.doc_url as string).endsWith(`#${error.code as string}`)) return 'doc_url does not name the code';
  return undefined;
}

/** Starts a steady load; see LoadOptions. */
export function startLoad(opts: LoadOptions): RunningLoad {
  if (opts.urls.length === 0 || opts.keys.length === 0 || opts.paths.length === 0) {
    throw new Error('startLoad needs at least one url, key and path');
  }
  const intervalMs = 1_000 / Math.max(0.1, opts.ratePerSec);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxInFlight = opts.maxInFlight ?? 64;
  const started = Date.now();
  const report: LoadReport = {
    sent: 0,
    skipped: 0,
    byStatus: {},
    failures: 0,
    contractViolations: [],
    byCode: {},
    samples: [],
    startedAt: started,
    elapsedMs: 0,
  };
  const pending = new Set<Promise<void>>();
  let n = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const one = async (i: number): Promise<void> => {
    const u = i % opts.urls.length;
    const key = opts.keys[i % opts.keys.length]!;
    const path = opts.paths[i % opts.paths.length]!;
    const at = Date.now() - started;
    const sample: LoadSample = { at, status: 0, ms: 0, url: u };
    try {
      const res = await fetch(`${opts.urls[u]}${path}`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = await res.text();
      sample.status = res.status;
      if (res.status < 200 || res.status > 299) {
        const reason = contractShapeViolation(res.status, body, res.headers.get('x-request-id'));
        if (reason !== undefined)
          report.contractViolations.push({ status: res.status, body: body.slice(0, 500), reason });
        else {
          sample.code = (JSON.parse(body) as { error: { code: string } }).error.code;
          report.byCode[sample.code] = (report.byCode[sample.code] ?? 0) + 1;
        }
      }
    } catch {
      report.failures += 1;
    }
    sample.ms = Date.now() - started - at;
    report.byStatus[String(sample.status)] = (report.byStatus[String(sample.status)] ?? 0) + 1;
    report.samples.push(sample);
  };

  let resolveDone!: (r: LoadReport) => void;
  const done = new Promise<LoadReport>((resolve) => (resolveDone = resolve));
  const finish = async (): Promise<void> => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    while (pending.size > 0) await Promise.allSettled([...pending]);
    report.elapsedMs = Date.now() - started;
    report.samples.sort((a, b) => a.at - b.at);
    resolveDone(report);
  };

  // Ticks are scheduled against the start time, so a slow tick does not lower the rate.
  const tick = (): void => {
    if (stopped) return;
    const elapsed = Date.now() - started;
    if (elapsed >= opts.durationMs) {
      void finish();
      return;
    }
    const due = Math.min(Math.floor(elapsed / intervalMs) + 1, Math.ceil(opts.durationMs / intervalMs));
    while (n < due) {
      if (pending.size >= maxInFlight) {
        report.skipped += 1;
      } else {
        report.sent += 1;
        const p = one(n).finally(() => pending.delete(p));
        pending.add(p);
      }
      n += 1;
    }
    timer = setTimeout(tick, Math.max(1, n * intervalMs - elapsed));
  };
  tick();

  return {
    done,
    async stop() {
      if (!stopped) void finish();
      return done;
    },
    snapshot: () => report,
  };
}

/** Statuses of the samples sent in [fromMs, toMs) (ms since the load started). */
export function statusesBetween(report: LoadReport, fromMs: number, toMs: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of report.samples) {
    if (s.at >= fromMs && s.at < toMs) out[String(s.status)] = (out[String(s.status)] ?? 0) + 1;
  }
  return out;
}

/** A one-line summary for logs and docs: `sent 600: 200×590, 503×10; violations 0; failures 0`. */
export function describeLoad(report: LoadReport): string {
  const statuses = Object.entries(report.byStatus)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, c]) => `${s}×${c}`)
    .join(', ');
  return `sent ${report.sent} in ${(report.elapsedMs / 1000).toFixed(1)} s: ${statuses}; skipped ${report.skipped}; violations ${report.contractViolations.length}; failures ${report.failures}`;
}

/** Sum of every sample of a Prometheus metric on a /metrics page, of those with all `labels` (0 when absent). */
export async function metricSum(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(url, { signal: AbortSignal.timeout(5_000) })).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((label) => line.includes(label))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Decisions taken by the gateways' local fallback limiters so far (`cds_gateway_rate_limit_fallback_total`, all replicas). */
export async function fallbackCount(gatewayUrls: string[]): Promise<number> {
  let sum = 0;
  for (const url of gatewayUrls) sum += await metricSum(`${url}/metrics`, 'cds_gateway_rate_limit_fallback_total');
  return sum;
}
