/**
 * Counts failures per client (an address, or its bucket: `clientBucket`) in a fixed window that
 * starts with the client's first failure: past `maxFailures` within `windowMs`, `blockedFor` says how
 * many seconds the client must wait. Callers decide what a failure is and what waiting refuses: the
 * gateway refuses further requests without a valid key (valid keys never wait), the admin API every
 * request of the address. Per process, bounded in memory (`maxClients`: windows that ended are
 * dropped first, then the oldest).
 */
export class FailureLimiter {
  readonly #failures = new Map<string, { count: number; windowStart: number }>();
  readonly #maxFailures: number;
  readonly #windowMs: number;
  readonly #maxClients: number;

  constructor(opts: { maxFailures: number; windowMs: number; maxClients: number }) {
    this.#maxFailures = opts.maxFailures;
    this.#windowMs = opts.windowMs;
    this.#maxClients = opts.maxClients;
  }

  /** Seconds the client must wait, or 0 when it may try. */
  blockedFor(client: string, nowMs: number): number {
    const entry = this.#failures.get(client);
    if (entry === undefined || nowMs - entry.windowStart >= this.#windowMs) return 0;
    if (entry.count < this.#maxFailures) return 0;
    return Math.max(1, Math.ceil((entry.windowStart + this.#windowMs - nowMs) / 1000));
  }

  recordFailure(client: string, nowMs: number): void {
    const entry = this.#failures.get(client);
    if (entry === undefined || nowMs - entry.windowStart >= this.#windowMs) {
      if (entry === undefined && this.#failures.size >= this.#maxClients) this.#evict(nowMs);
      this.#failures.set(client, { count: 1, windowStart: nowMs });
      return;
    }
    entry.count += 1;
  }

  #evict(nowMs: number): void {
    for (const [c, e] of this.#failures) if (nowMs - e.windowStart >= this.#windowMs) this.#failures.delete(c);
    // Still full: drop the oldest insertion (a Map keeps insertion order).
    while (this.#failures.size >= this.#maxClients) this.#failures.delete(this.#failures.keys().next().value as string);
  }
}
