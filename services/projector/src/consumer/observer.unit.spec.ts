import { afterEach, describe, expect, it } from 'vitest';
import { createProjectorMetrics, type ProjectorMetrics } from '../metrics.ts';
import { pulled, recordingLogger } from '../testing/worker-parts.ts';
import { createProjectionObserver } from './observer.ts';

describe('the projection observer', () => {
  let metrics: ProjectorMetrics | undefined;
  afterEach(async () => metrics?.shutdown());

  function observe() {
    metrics = createProjectorMetrics();
    const stats = metrics.of('series');
    const { log, lines } = recordingLogger();
    return { stats, lines, observer: createProjectionObserver(stats, log) };
  }

  it('counts what a batch did and keeps the lag from its first message until caught up', () => {
    const { stats, observer } = observe();
    observer.batchStarted(pulled(7, undefined, { storedAtMs: 70 }));
    observer.batchStarted(pulled(9, undefined, { storedAtMs: 90 }));
    expect(stats.behindSinceMs).toBe(70);
    observer.applied(5, {
      changedBy: new Set([7, 8]),
      reflected: new Set(),
      written: 3,
      conflicts: 1,
      outcome: 'applied',
    });
    expect(stats.events).toEqual({ applied: 2, ignored: 3 });
    expect([stats.documents, stats.conflicts]).toEqual([3, 1]);
    observer.batchDone(9, pulled(9, undefined, { pending: 4, storedAtMs: 90 }));
    expect([stats.lastPosition, stats.pending, stats.behindSinceMs]).toEqual([9, 4, 90]);
    observer.batchDone(12, pulled(12, undefined, { pending: 0 }));
    expect([stats.lastPosition, stats.pending, stats.behindSinceMs]).toEqual([12, 0, undefined]);
  });

  it('counts gaps, parked events, retries, stalls and change records, and logs each', () => {
    const { stats, lines, observer } = observe();
    observer.gap({ after: 3, seq: 7, lost: 3 });
    observer.parked(pulled(8, undefined), 'not JSON');
    observer.retry(new Error('down'), [pulled(9, undefined), pulled(10, undefined)], 2);
    observer.stall({ phase: 'handling' } as never);
    observer.recoveryFailed({ phase: 'waiting' } as never, 60_000);
    observer.recovered({ phase: 'handling' } as never, 1_500);
    const record = (topic: string) => ({ topic }) as never;
    observer.changeRecordsPublished({
      stored: [record('price'), record('price')],
      duplicate: [record('volume')],
      failed: [],
    });
    observer.changeRecordsFailed(2);
    expect([stats.gaps, stats.parked, stats.retries, stats.stalls, stats.stallRecoveryFailures]).toEqual([
      3, 1, 1, 1, 1,
    ]);
    expect([...stats.changeRecords.stored]).toEqual([['price', 2]]);
    expect([...stats.changeRecords.duplicate]).toEqual([['volume', 1]]);
    expect(stats.changeFailures).toBe(2);
    expect(lines.map(([level, msg]) => `${level}: ${msg}`)).toEqual([
      'error: stream gap: messages deleted before delivery',
      'warn: event parked',
      'warn: transient failure; retrying in place',
      'error: projection stalled in a batch: aborting the attempt and retrying it',
      'fatal: projection still stalled after recovery: /healthz fails',
      'warn: projection moving again',
    ]);
    expect(lines[0]![2]).toEqual({ after: 3, seq: 7, lost: 3 });
    expect(lines[2]![2]).toMatchObject({ from: 9, to: 10, attempt: 2 });
  });
});
