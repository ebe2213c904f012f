const DAY_MS = 86_400_000;

/** Today's UTC date (YYYY-MM-DD), formatted once per day rather than once per request. */
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
