import type { JetStreamManager } from '@nats-io/jetstream';

/** Counts stream messages deleted (or purged) between two sequences a consumer delivered in a row. */
export interface GapDetector {
  /** Messages lost between `prev` and `seq` (exclusive): 0 when none. */
  check(prev: number, seq: number): Promise<number>;
}

/**
 * A consumer that sees the whole stream has a gap whenever the sequence jumps. A filtered consumer
 * skips other subjects' sequences normally, so a jump is only a gap when the stream reports the
 * skipped sequences deleted (or purged below its first sequence); the deleted list is refreshed
 * at most every `refreshMs`, so a deletion newer than that may go unnoticed until the next jump.
 */
export function createGapDetector(opts: {
  jsm: JetStreamManager;
  stream: string;
  wholeStream: boolean;
  refreshMs?: number;
  now?: () => number;
}): GapDetector {
  const refreshMs = opts.refreshMs ?? 1_000;
  const now = opts.now ?? Date.now;
  let state: { at: number; firstSeq: number; deleted: number[] } | undefined;
  return {
    async check(prev, seq) {
      if (prev <= 0 || seq <= prev + 1) return 0;
      if (opts.wholeStream) return seq - prev - 1;
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
