const DAY_MS = 86_400_000;

/**
 * Today's UTC date (YYYY-MM-DD), formatted once per day rather than once per request: the one
 * "today" memo of the gateway, the query and the response cache.
 */
export class UtcDay {
  #day = Number.NaN;
  #iso = '';

  /** The UTC date of `nowMs`. */
  of(nowMs: number): string {
    const day = Math.floor(nowMs / DAY_MS);
    if (day !== this.#day) {
      this.#day = day;
      this.#iso = new Date(day * DAY_MS).toISOString().slice(0, 10);
    }
    return this.#iso;
  }
}

/** `today()` over a clock (a Date or epoch milliseconds), through one UtcDay. */
export function utcToday(clock: () => Date | number): () => string {
  const day = new UtcDay();
  return () => {
    const now = clock();
    return day.of(typeof now === 'number' ? now : now.getTime());
  };
}
