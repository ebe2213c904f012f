/**
 * Slows down repeated failed authentication from one client address: after `maxFailures` failures
 * within `windowMs`, further requests from that address WITHOUT a valid key are refused (429) until
 * the window passes. Requests with a valid key, and other addresses, are never affected, so one
 * client guessing keys cannot lock anybody else out. Per replica, bounded in memory.
 */
export class FailedAuthLimiter {
  readonly #failures = new Map<string, { count: number; windowStart: number }>();
  readonly #maxFailures: number;
  readonly #windowMs: number;
  readonly #maxClients: number;

  constructor(opts: { maxFailures?: number; windowMs?: number; maxClients?: number } = {}) {
    this.#maxFailures = opts.maxFailures ?? 30;
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#maxClients = opts.maxClients ?? 50_000;
  }

  /** Seconds the address must wait, or 0 when it may try. */
  blockedFor(address: string, nowMs: number): number {
    const entry = this.#failures.get(address);
    if (entry === undefined || nowMs - entry.windowStart >= this.#windowMs) return 0;
    if (entry.count < this.#maxFailures) return 0;
    return Math.max(1, Math.ceil((entry.windowStart + this.#windowMs - nowMs) / 1000));
  }

  recordFailure(address: string, nowMs: number): void {
    const entry = this.#failures.get(address);
    if (entry === undefined || nowMs - entry.windowStart >= this.#windowMs) {
      if (entry === undefined && this.#failures.size >= this.#maxClients) this.#evict(nowMs);
      this.#failures.set(address, { count: 1, windowStart: nowMs });
      return;
    }
    entry.count += 1;
  }

  #evict(nowMs: number): void {
    for (const [addr, e] of this.#failures) if (nowMs - e.windowStart >= this.#windowMs) this.#failures.delete(addr);
    // Still full: drop the oldest insertion (Map keeps insertion order).
    while (this.#failures.size >= this.#maxClients) this.#failures.delete(this.#failures.keys().next().value as string);
  }
}
