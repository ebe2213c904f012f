import { describe, expect, it } from 'vitest';
import { seriesProjection } from '../projections/index.ts';
import type { SeriesBucketDoc } from '@cds/read-models';
import { seriesRecorded } from '../testing/events.ts';
import { pulled } from '../testing/worker-parts.ts';
import type { AfterApply } from './after-apply.ts';
import { createProjectionObserver } from './observer.ts';
import { createProjectionProcessor } from './processor.ts';
import { createProjectorMetrics } from '../metrics.ts';
import { recordingLogger } from '../testing/worker-parts.ts';

const attempt = { signal: new AbortController().signal, progress: () => {} };
const event = seriesRecorded('GOLD', [['2024-01-02', 1]]);

function setUp() {
  const calls: string[] = [];
  const caches: unknown[] = [];
  let collection = 'series';
  const metrics = createProjectorMetrics();
  const stats = metrics.of('series');
  const processor = createProjectionProcessor<SeriesBucketDoc>({
    projection: seriesProjection,
    store: { active: () => Promise.resolve({ collection }) } as never,
    gaps: { check: (prev, seqs) => Promise.resolve(Math.max(prev, ...seqs)) },
    observer: createProjectionObserver(stats, recordingLogger().log),
    reactors: ['notices', 'records'].map((name): AfterApply => ({ events }) => {
      calls.push(`${name} ${events.map((e) => e.position).join(',')}`);
    }),
    operationTimeoutMs: 1_000,
    from: 4,
    apply: (_target, _projection, events, opts) => {
      calls.push(`apply ${events.map((e) => e.position).join(',')}`);
      caches.push(opts?.cache);
      return Promise.resolve({
        changedBy: new Set(events.map((e) => e.position)),
        reflected: new Set<number>(),
        written: events.length,
        conflicts: 0,
        outcome: 'applied',
      });
    },
  });
  return { processor, calls, caches, stats, metrics, swap: (c: string) => (collection = c) };
}

describe('the projection processor', () => {
  it('applies the decoded events of a batch, then runs the reactors in order, then moves its position', async () => {
    const { processor, calls, stats, metrics } = setUp();
    expect(processor.position()).toBe(4);
    await processor.handle([pulled(5, event), pulled(6, undefined), pulled(7, event, { pending: 2 })], attempt);
    expect(calls).toEqual(['apply 5,7', 'notices 5,7', 'records 5,7']);
    expect(processor.position()).toBe(7);
    expect([stats.events.applied, stats.lastPosition, stats.pending]).toEqual([2, 7, 2]);
    await metrics.shutdown();
  });

  it('a batch of poison alone applies nothing and runs no reactor, but still moves the position', async () => {
    const { processor, calls, metrics } = setUp();
    await processor.handle([pulled(5, undefined), pulled(6, undefined)], attempt);
    expect(calls).toEqual([]);
    expect(processor.position()).toBe(6);
    await metrics.shutdown();
  });

  it('keeps its document cache across batches and starts it afresh when the active collection changes', async () => {
    const { processor, caches, swap, metrics } = setUp();
    await processor.handle([pulled(5, event)], attempt);
    await processor.handle([pulled(6, event)], attempt);
    swap('series_rebuild_1');
    await processor.handle([pulled(7, event)], attempt);
    expect(caches[0]).toBe(caches[1]);
    expect(caches[2]).not.toBe(caches[1]);
    await metrics.shutdown();
  });

  it('a reactor that throws fails the attempt before the position moves', async () => {
    const { metrics } = setUp();
    const failing = createProjectionProcessor<SeriesBucketDoc>({
      projection: seriesProjection,
      store: { active: () => Promise.resolve({ collection: 'series' }) } as never,
      gaps: { check: (prev, seqs) => Promise.resolve(Math.max(prev, ...seqs)) },
      observer: createProjectionObserver(metrics.of('series'), recordingLogger().log),
      reactors: [
        () => {
          throw new Error('not stored');
        },
      ],
      operationTimeoutMs: 1_000,
      from: 4,
      apply: () =>
        Promise.resolve({
          changedBy: new Set([5]),
          reflected: new Set<number>(),
          written: 1,
          conflicts: 0,
          outcome: 'applied',
        }),
    });
    await expect(failing.handle([pulled(5, event)], attempt)).rejects.toThrow('not stored');
    expect(failing.position()).toBe(4);
    await metrics.shutdown();
  });
});
