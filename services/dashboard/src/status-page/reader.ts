import { DatasetsResponse, ROUTES_BY_NAME } from '@cds/contracts';

/** What the status page got from the gateway: the datasets, or why not in a sentence a visitor reads. */
export type DatasetsRead = { ok: true; body: DatasetsResponse } | { ok: false; reason: string };

/** Reads GET /api/v1/datasets of the gateway for the status page. */
export interface DatasetsReader {
  read(): Promise<DatasetsRead>;
}

export interface DatasetsReaderOptions {
  /** The gateway's origin (cluster-internal, or the public API's origin). */
  gatewayUrl: string;
  /** Deadline of one read, headers and body together. */
  timeoutMs: number;
  /** A read is kept this long (the gateway's answer is cacheable for 60 s); 0: every page reads. */
  ttlMs: number;
  clock: () => number;
  /** Told of each failed read (the page shows the reason; the log gets the detail). */
  onError?: (detail: string) => void;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * The gateway's datasets, read server-side with a deadline: one read at a time however many pages
 * ask (the others wait for it), a good answer kept `ttlMs`, a failed one never kept.
 */
export function createDatasetsReader(opts: DatasetsReaderOptions): DatasetsReader {
  const url = `${opts.gatewayUrl.replace(/\/+$/, '')}${ROUTES_BY_NAME.datasets.path}`;
  let kept: { at: number; read: DatasetsRead } | undefined;
  let inFlight: Promise<DatasetsRead> | undefined;

  const fail = (reason: string, detail: string): DatasetsRead => {
    opts.onError?.(detail);
    return { ok: false, reason };
  };

  async function readOnce(): Promise<DatasetsRead> {
    let res: Response;
    let text: string;
    try {
      const signal = AbortSignal.timeout(opts.timeoutMs);
      res = await fetch(url, { headers: { accept: 'application/json' }, signal });
      text = await res.text();
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      return timedOut
        ? fail(`the API gateway did not answer within ${seconds(opts.timeoutMs)}`, `timeout after ${opts.timeoutMs} ms`)
        : fail('the API gateway could not be reached', err instanceof Error ? err.message : String(err));
    }
    if (!res.ok) {
      const why = res.status === 503 ? 'is starting or cannot read its data right now' : 'refused the request';
      return fail(`the API gateway ${why} (HTTP ${res.status})`, `HTTP ${res.status}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return fail('the API gateway answered something that is not JSON', 'not JSON');
    }
    const parsed = DatasetsResponse.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail(
        'the API gateway answered in a shape this page does not know',
        `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
      );
    }
    return { ok: true, body: parsed.data };
  }

  return {
    read() {
      if (kept !== undefined && opts.clock() - kept.at < opts.ttlMs) return Promise.resolve(kept.read);
      inFlight ??= readOnce()
        .then((read) => {
          kept = read.ok ? { at: opts.clock(), read } : undefined;
          return read;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
  };
}
