import type { NotificationTopic } from '@cds/contracts';

/** A change as the hub keeps it: what the filters look at, and the event's bytes, made once for every stream. */
export interface RingEntry {
  /** The `CDS_CHANGES` stream sequence: the event's `id:`. */
  seq: number;
  commodity: string;
  topic: NotificationTopic;
  /** The whole SSE event (`id:`, `event:`, `data:` lines and the blank line). */
  frame: string;
}

/**
 * The last `capacity` changes of the stream, in sequence order: the resume window of
 * `Last-Event-ID` on this replica. Count-bounded (memory is about capacity × the size of a frame,
 * ~0.5 KB), whatever the stream holds. `covered` is the sequence from which on the ring is
 * complete: every stream message after it is here (or was skipped as unparseable), so a client
 * that saw `covered` or later can resume without missing anything.
 */
export class ChangeRing {
  readonly capacity: number;
  readonly #entries: (RingEntry | undefined)[];
  #head = 0;
  #size = 0;
  #covered: number;
  #last: number;

  constructor(capacity: number, covered = 0) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('the ring holds at least one change');
    this.capacity = capacity;
    this.#entries = new Array<RingEntry | undefined>(capacity);
    this.#covered = covered;
    this.#last = covered;
  }

  /** The stream's first retained sequence is `first`: nothing before it can be sent anyway. */
  startAt(first: number): void {
    if (this.#size === 0 && first - 1 > this.#covered) {
      this.#covered = first - 1;
      this.#last = Math.max(this.#last, this.#covered);
    }
  }

  /** Appends a change (sequences increase; an older one is ignored). Evicts the oldest when full. */
  push(entry: RingEntry): boolean {
    if (entry.seq <= this.#last) return false;
    if (this.#size === this.capacity) {
      const oldest = this.#entries[this.#head]!;
      this.#covered = oldest.seq;
      this.#entries[this.#head] = undefined;
      this.#head = (this.#head + 1) % this.capacity;
      this.#size -= 1;
    }
    this.#entries[(this.#head + this.#size) % this.capacity] = entry;
    this.#size += 1;
    this.#last = entry.seq;
    return true;
  }

  get size(): number {
    return this.#size;
  }

  /** The last sequence seen (the covered floor while empty). */
  get lastSeq(): number {
    return this.#last;
  }

  get covered(): number {
    return this.#covered;
  }

  /** Whether every change after `seq` is still here. */
  canResume(seq: number): boolean {
    return seq >= this.#covered;
  }

  /** The entry at logical position `i` (0 = oldest). */
  at(i: number): RingEntry {
    if (i < 0 || i >= this.#size) throw new RangeError(`no ring entry ${i}`);
    return this.#entries[(this.#head + i) % this.capacity]!;
  }

  /** The logical position of the first entry after `seq` (`size` when none). */
  indexAfter(seq: number): number {
    let lo = 0;
    let hi = this.#size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
