import type { PulledMessage, StallReport } from '@cds/messaging';
import type { Logger } from 'pino';
import type { ProjectionStats } from '../metrics.ts';
import type { BatchApplyResult } from '../runner/apply-event.ts';
import type { ChangePublishOutcome } from './change-records.ts';
import type { StreamGap } from './gap-detector.ts';

/**
 * What a projection worker reports as it goes: each report updates the projection's statistics
 * (read by /metrics) and logs what an operator needs. The worker's other parts only call it.
 */
export interface ProjectionObserver {
  /** A batch arrived: the projection is behind since its first message at the latest. */
  batchStarted(first: PulledMessage): void;
  gap(gap: StreamGap): void;
  /** `count` events were applied with `result`. */
  applied(count: number, result: BatchApplyResult): void;
  /** The after-apply reactors of a batch took `ms`. */
  reacted(ms: number): void;
  /** The batch is handled up to `position`; `last` is its last message (its pending count, its time). */
  batchDone(position: number, last: PulledMessage): void;
  changeRecordsPublished(out: ChangePublishOutcome): void;
  changeRecordsFailed(count: number): void;
  parked(msg: PulledMessage, reason: string): void;
  retry(err: unknown, batch: readonly PulledMessage[], attempt: number): void;
  reopen(reason: string): void;
  stall(stuck: StallReport): void;
  recoveryFailed(stuck: StallReport, stallMs: number): void;
  recovered(stuck: StallReport, stalledForMs: number): void;
}

export function createProjectionObserver(stats: ProjectionStats, log: Logger): ProjectionObserver {
  return {
    batchStarted(first) {
      stats.behindSinceMs ??= first.storedAtMs;
    },
    gap({ after, seq, lost }) {
      stats.gaps += lost;
      log.error({ after, seq, lost }, 'stream gap: messages deleted before delivery');
    },
    applied(count, result) {
      stats.events.applied += result.changedBy.size;
      stats.events.ignored += count - result.changedBy.size;
      stats.documents += result.written;
      stats.conflicts += result.conflicts;
      for (const phase of ['load', 'fold', 'write'] as const) stats.phaseMs[phase] += result.phaseMs?.[phase] ?? 0;
    },
    reacted(ms) {
      stats.phaseMs.after += ms;
    },
    batchDone(position, last) {
      stats.lastPosition = position;
      stats.pending = last.pending;
      // The next unapplied event is newer than the last of this batch: its time bounds the lag.
      stats.behindSinceMs = stats.pending === 0 ? undefined : last.storedAtMs;
    },
    changeRecordsPublished(out) {
      for (const outcome of ['stored', 'duplicate'] as const) {
        const counts = stats.changeRecords[outcome];
        for (const r of out[outcome]) counts.set(r.topic, (counts.get(r.topic) ?? 0) + 1);
      }
    },
    changeRecordsFailed(count) {
      stats.changeFailures += count;
    },
    parked(msg, reason) {
      stats.parked += 1;
      log.warn({ seq: msg.seq, subject: msg.subject, reason }, 'event parked');
    },
    retry(err, batch, attempt) {
      stats.retries += 1;
      log.warn({ err, from: batch[0]?.seq, to: batch.at(-1)?.seq, attempt }, 'transient failure; retrying in place');
    },
    reopen(reason) {
      log.warn({ reason }, 'reopening the pull');
    },
    stall(stuck) {
      stats.stalls += 1;
      log.error(
        { stuck },
        stuck.phase === 'handling'
          ? 'projection stalled in a batch: aborting the attempt and retrying it'
          : 'projection stalled waiting for pending messages: reopening the pull',
      );
    },
    recoveryFailed(stuck, stallMs) {
      stats.stallRecoveryFailures += 1;
      log.fatal({ stuck, stallMs }, 'projection still stalled after recovery: /healthz fails');
    },
    recovered(stuck, stalledForMs) {
      log.warn({ phase: stuck.phase, stalledForMs }, 'projection moving again');
    },
  };
}
