import { LEDGER_MAX_ENTRIES, LEDGER_MERGE_GAP_DAYS, type LedgerEntry } from '@cds/contracts';
import { addDays } from '@cds/schedule';

/** Entries ordered by `lo`, then `hi`, then `p` (the stored order of a DatasetLedger). */
function byLo(a: LedgerEntry, b: LedgerEntry): number {
  if (a.lo !== b.lo) return a.lo < b.lo ? -1 : 1;
  if (a.hi !== b.hi) return a.hi < b.hi ? -1 : 1;
  return a.p < b.p ? -1 : a.p > b.p ? 1 : 0;
}

const releaseOf = (e: LedgerEntry): string => (e.e === true ? `${e.p}|e` : e.p);

/** A copy with `e` only when true (as stored). */
function entryOf(e: LedgerEntry): LedgerEntry {
  return e.e === true ? { lo: e.lo, hi: e.hi, f: e.f, p: e.p, e: true } : { lo: e.lo, hi: e.hi, f: e.f, p: e.p };
}

/**
 * One dataset's release ledger in memory (the value of its key in RELEASES_BUCKET, contracts
 * datasets.ts). Entries are kept per release (`p` and `e`), each release's sorted by `lo` and
 * apart by more than LEDGER_MERGE_GAP_DAYS, so adding a stretch is a lookup, a binary search and
 * the merge of its neighbours: an entry of the same release whose dates touch or lie within the gap
 * merges with it (the dates widened, the earlier `f` kept). Adding is idempotent and the order of
 * additions does not matter for `f`: a replay, a rebuild or another replica's copy merged in never
 * moves a `f` later.
 */
export class LedgerBook {
  private readonly releases = new Map<string, LedgerEntry[]>();
  private count = 0;

  /** How many entries it holds. */
  get size(): number {
    return this.count;
  }

  /** Adds a stretch; true when the ledger changed (a replay of what it holds changes nothing). */
  add(entry: LedgerEntry): boolean {
    const key = releaseOf(entry);
    let list = this.releases.get(key);
    if (list === undefined) {
      list = [];
      this.releases.set(key, list);
    }
    const from = addDays(entry.lo, -LEDGER_MERGE_GAP_DAYS);
    const to = addDays(entry.hi, LEDGER_MERGE_GAP_DAYS);
    // The first entry ending within the gap before `lo` (the list's `hi` ascend with its `lo`).
    let start = 0;
    let end = list.length;
    while (start < end) {
      const mid = (start + end) >>> 1;
      if (list[mid]!.hi < from) start = mid + 1;
      else end = mid;
    }
    let stop = start;
    while (stop < list.length && list[stop]!.lo <= to) stop += 1;
    if (stop === start) {
      list.splice(start, 0, entryOf(entry));
      this.count += 1;
      return true;
    }
    const first = list[start]!;
    let { lo, hi, f } = entry;
    for (let i = start; i < stop; i += 1) {
      const e = list[i]!;
      if (e.lo < lo) lo = e.lo;
      if (e.hi > hi) hi = e.hi;
      if (e.f < f) f = e.f;
    }
    if (stop - start === 1 && lo === first.lo && hi === first.hi && f === first.f) return false;
    list.splice(start, stop - start, entryOf({ ...entry, lo, hi, f }));
    this.count -= stop - start - 1;
    return true;
  }

  /** Every entry, sorted by `lo` (as stored). */
  entries(): LedgerEntry[] {
    const all: LedgerEntry[] = [];
    for (const list of this.releases.values()) all.push(...list);
    return all.sort(byLo);
  }

  /** Keeps the `max` entries with the latest `hi` (the oldest dropped first); how many were dropped. */
  trim(max: number = LEDGER_MAX_ENTRIES): number {
    const over = this.count - max;
    if (over <= 0) return 0;
    const oldest = this.entries()
      .sort((a, b) => (a.hi < b.hi ? -1 : a.hi > b.hi ? 1 : byLo(a, b)))
      .slice(0, over);
    const dropped = new Set(oldest);
    for (const [key, list] of this.releases) {
      const kept = list.filter((e) => !dropped.has(e));
      if (kept.length === 0) this.releases.delete(key);
      else this.releases.set(key, kept);
    }
    this.count -= over;
    return over;
  }
}

/**
 * The stored value of a dataset's ledger, at most `maxBytes` of JSON: when longer (a key must fit
 * the NATS server's max payload), its oldest entries by `hi` are dropped from the book until it fits.
 */
export function encodeLedger(dataset: string, book: LedgerBook, maxBytes: number): string {
  for (;;) {
    const text = JSON.stringify({ dataset, entries: book.entries() });
    const bytes = Buffer.byteLength(text);
    if (bytes <= maxBytes || book.size === 0) return text;
    const perEntry = bytes / book.size;
    book.trim(book.size - Math.max(1, Math.ceil((bytes - maxBytes) / perEntry)));
  }
}
