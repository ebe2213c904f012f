import type { LedgerEntry } from '@cds/contracts';

const byLo = (a: LedgerEntry, b: LedgerEntry) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0);

/** The first index in [0, n) where `ok` holds, for an `ok` false then true along the indexes; n when none. */
function firstWhere(n: number, ok: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ok(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * A dataset's ledger entries sorted by `lo`, indexed for the release judgement: the running maximum
 * of `hi` (so the entries that end before a date are skipped by a binary search) and each entry's
 * first-served and publication instants, parsed once.
 */
export class LedgerIndex {
  static readonly EMPTY = new LedgerIndex([]);
  readonly entries: readonly LedgerEntry[];
  readonly #maxHi: string[];
  readonly #fMs: number[];
  readonly #pMs: number[];

  constructor(entries: readonly LedgerEntry[]) {
    this.entries = [...entries].sort(byLo);
    this.#maxHi = [];
    let max = '';
    for (const e of this.entries) {
      if (e.hi > max) max = e.hi;
      this.#maxHi.push(max);
    }
    this.#fMs = this.entries.map((e) => Date.parse(e.f));
    this.#pMs = this.entries.map((e) => Date.parse(e.p));
  }

  /**
   * The entry first served (earliest `f`) among those holding a date after `after` up to `upTo`
   * (holding `upTo` itself when `after` is undefined), with that instant; undefined when none.
   */
  firstServed(upTo: string, after: string | undefined): { entry: LedgerEntry; ms: number } | undefined {
    const reaches = (hi: string) => (after === undefined ? hi >= upTo : hi > after);
    const n = this.entries.length;
    const from = firstWhere(n, (i) => reaches(this.#maxHi[i]!));
    const to = firstWhere(n, (i) => this.entries[i]!.lo > upTo);
    let best: number | undefined;
    for (let i = from; i < to; i++) {
      if (!reaches(this.entries[i]!.hi)) continue;
      if (best === undefined || this.#fMs[i]! < this.#fMs[best]!) best = i;
    }
    return best === undefined ? undefined : { entry: this.entries[best]!, ms: this.#fMs[best]! };
  }

  /** The entries published (`p`) in [fromMs, toMs), in `lo` order. */
  publishedBetween(fromMs: number, toMs: number): LedgerEntry[] {
    return this.entries.filter((_e, i) => this.#pMs[i]! >= fromMs && this.#pMs[i]! < toMs);
  }
}
