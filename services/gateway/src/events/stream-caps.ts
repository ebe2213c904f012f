import { clientBucket } from '@cds/http';

/**
 * The defaults of SSE_MAX_STREAMS and SSE_MAX_STREAMS_PER_CLIENT (config.ts): sized against a
 * 384 MiB replica where each stream may hold 256 KiB unsent (docs/reliability.md, "Stream caps").
 */
export const SSE_STREAM_CAP_DEFAULTS = { maxStreams: 500, maxStreamsPerClient: 50 } as const;

/** A place taken for one stream; `release` frees it (once: later calls do nothing). */
export interface StreamPlace {
  release(): void;
}

export type StreamCapDecision = { ok: true; place: StreamPlace } | { ok: false; cap: 'replica' | 'client' };

/**
 * The streams open on this replica, in all and per client bucket (`clientBucket`). A place is taken
 * as a stream request passes its checks, before the account's slot (Redis) is asked, and held until
 * the response closes, so requests still being checked count too: a burst of opens cannot overshoot
 * the caps. These caps bound the replica's memory (each stream may buffer SSE_MAX_UNSENT_BYTES);
 * the plan's per-account limit (stream-slots.ts) is a separate, cluster-wide one.
 */
export class StreamCaps {
  readonly maxStreams: number;
  readonly maxStreamsPerClient: number;
  #open = 0;
  readonly #byClient = new Map<string, number>();

  constructor(opts: { maxStreams?: number | undefined; maxStreamsPerClient?: number | undefined } = {}) {
    this.maxStreams = opts.maxStreams ?? SSE_STREAM_CAP_DEFAULTS.maxStreams;
    this.maxStreamsPerClient = opts.maxStreamsPerClient ?? SSE_STREAM_CAP_DEFAULTS.maxStreamsPerClient;
  }

  /** Places held (streams open or being checked). */
  get size(): number {
    return this.#open;
  }

  /** Places held by the client bucket of `address`. */
  heldBy(address: string): number {
    return this.#byClient.get(clientBucket(address)) ?? 0;
  }

  /** Takes a place for a stream from `address`, unless its client or the replica is at its cap. */
  take(address: string): StreamCapDecision {
    const bucket = clientBucket(address);
    const held = this.#byClient.get(bucket) ?? 0;
    if (held >= this.maxStreamsPerClient) return { ok: false, cap: 'client' };
    if (this.#open >= this.maxStreams) return { ok: false, cap: 'replica' };
    this.#open += 1;
    this.#byClient.set(bucket, held + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#open -= 1;
      const left = (this.#byClient.get(bucket) ?? 1) - 1;
      if (left > 0) this.#byClient.set(bucket, left);
      else this.#byClient.delete(bucket);
    };
    return { ok: true, place: { release } };
  }
}
