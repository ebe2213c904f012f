import type { JetStreamManager } from '@nats-io/jetstream';

/** Counts stream messages deleted (or purged) between two sequences a consumer delivered in a row. */
export interface GapDetector {
  /** Messages lost between `prev` and `seq` (exclusive): 0 when none. */
  check(prev: number, seq: number): Promise<number>;
}

/**
 * A jump in the delivered sequences is a gap only when the stream no longer holds the skipped
 * sequences: reported deleted, or purged below its first sequence. A jump alone proves nothing,
 * even for a consumer of the whole stream: a filtered consumer skips other subjects' sequences, and
 * any durable restarted with messages delivered but unacknowledged (a projector killed mid-batch)
 * gets the messages after those first and the unacknowledged ones again once their ack wait runs
 * out, so its first delivery after the restart jumps past messages that are still there. The
 * deleted list is refreshed at most every `refreshMs`, so a deletion newer than that may go
 * unnoticed until the next jump.
 */
export function createGapDetector(opts: {
  jsm: JetStreamManager;
  stream: string;
  refreshMs?: number;
  now?: () => number;
}): GapDetector {
  const refreshMs = opts.refreshMs ?? 1_000;
  const now = opts.now ?? Date.now;
  let state: { at: number; firstSeq: number; deleted: number[] } | undefined;
  return {
    async check(prev, seq) {
      if (prev <= 0 || seq <= prev + 1) return 0;
      if (state === undefined || now() - state.at >= refreshMs) {
        const info = await opts.jsm.streams.info(opts.stream, { deleted_details: true });
        state = { at: now(), firstSeq: info.state.first_seq, deleted: info.state.deleted ?? [] };
      }
      const purged = Math.max(0, Math.min(seq, state.firstSeq) - prev - 1);
      const deleted = state.deleted.filter((d) => d > prev && d < seq && d >= state!.firstSeq).length;
      return purged + deleted;
    },
  };
}

/** Messages lost between two delivered sequences: `lost` deleted after `after` and before `seq`. */
export interface StreamGap {
  after: number;
  seq: number;
  lost: number;
}

/** The gap check of a consumer's batches (see `createBatchGapCheck`). */
export interface BatchGapCheck {
  /**
   * Checks each of `seqs` against the one delivered before it (`prev` for the first), reports each
   * gap to `onGap` once (a retried batch's gaps are not reported again) and returns the highest
   * sequence seen. Throws when `signal` aborts between two checks.
   */
  check(prev: number, seqs: readonly number[], signal: AbortSignal, onGap: (gap: StreamGap) => void): Promise<number>;
}

/** A BatchGapCheck over `gaps`, for a consumer whose acknowledged floor is `from`. */
export function createBatchGapCheck(gaps: GapDetector, from: number): BatchGapCheck {
  // Highest sequence already checked for gaps (a retried batch is not counted twice).
  let checkedTo = from;
  return {
    async check(prev, seqs, signal, onGap) {
      for (const seq of seqs) {
        const lost = await gaps.check(prev, seq);
        signal.throwIfAborted();
        if (lost > 0 && seq > checkedTo) onGap({ after: prev, seq, lost });
        prev = Math.max(prev, seq);
      }
      checkedTo = Math.max(checkedTo, prev);
      return prev;
    },
  };
}
