import type { DataEvent } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { cotProjection, seriesProjection, type ProjectedDoc, type Projection } from '../projections/index.ts';
import { cotRecorded, foldEvents, seriesRecorded } from '../testing/events.ts';
import { fold, type PositionedEvent } from './apply-event.ts';

/** The documents the events touch, each with its events in order (as the runner groups them). */
function touchedBy<D extends ProjectedDoc>(
  projection: Projection<D>,
  events: readonly PositionedEvent[],
): Map<string, PositionedEvent[]> {
  const touched = new Map<string, PositionedEvent[]>();
  for (const pe of events) {
    for (const id of projection.keyOf(pe.event)) touched.set(id, [...(touched.get(id) ?? []), pe]);
  }
  return touched;
}

function storedAfter<D extends ProjectedDoc>(projection: Projection<D>, events: readonly PositionedEvent[]) {
  const docs = foldEvents(
    projection,
    events.map(({ event, position }) => [event, position] as [DataEvent, number]),
  );
  return new Map([...docs].map(([id, d]) => [id, { ...d, _meta: { ...d._meta, rev: 1 } }]));
}

describe('fold: changedBy and reflected', () => {
  const a: PositionedEvent = {
    event: seriesRecorded('FOLD_OATS', [
      ['2023-12-30', 1],
      ['2024-01-02', 2],
    ]),
    position: 10,
  };
  const b: PositionedEvent = {
    event: seriesRecorded('FOLD_OATS', [['2024-01-03', 3]], { period: '2024' }),
    position: 11,
  };

  it('reports what changes as changedBy, and a redelivery of what the stored documents hold as reflected', () => {
    const first = fold(seriesProjection, touchedBy(seriesProjection, [a, b]), new Map());
    expect([...first.changedBy]).toEqual([10, 11]);
    expect(first.reflected.size).toBe(0);
    expect(first.writes).toHaveLength(2);

    // The same batch again over what it wrote: nothing to write, both reflected.
    const stored = storedAfter(seriesProjection, [a, b]);
    const again = fold(seriesProjection, touchedBy(seriesProjection, [a, b]), stored);
    expect(again.writes).toHaveLength(0);
    expect(again.changedBy.size).toBe(0);
    expect([...again.reflected].sort()).toEqual([10, 11]);
  });

  it('an event whose every part a later one rewrote is neither changed nor reflected', () => {
    const later: PositionedEvent = {
      event: seriesRecorded('FOLD_OATS', [
        ['2023-12-30', 5],
        ['2024-01-02', 6],
      ]),
      position: 12,
    };
    // a's points are versions of the stored buckets (versions.ts): a is redelivered over them
    const stored = storedAfter(seriesProjection, [a, later]);
    const res = fold(seriesProjection, touchedBy(seriesProjection, [a]), stored);
    expect(res.changedBy.size).toBe(0);
    expect(res.reflected.size).toBe(0);
    expect(res.writes).toHaveLength(0);
  });

  it('a partly written event (one bucket of two stored) is both changed and reflected', () => {
    const stored = storedAfter(seriesProjection, [a]);
    stored.delete('FOLD_OATS:price:2024');
    const res = fold(seriesProjection, touchedBy(seriesProjection, [a]), stored);
    expect([...res.changedBy]).toEqual([10]);
    expect([...res.reflected]).toEqual([10]);
    expect(res.writes.map((w) => w.doc._id)).toEqual(['FOLD_OATS:price:2024']);
  });

  it('COT: per report date', () => {
    const c: PositionedEvent = { event: cotRecorded('FOLD_OATS', [['2024-01-02', 1]]), position: 20 };
    const d: PositionedEvent = { event: cotRecorded('FOLD_OATS', [['2024-01-09', 2]]), position: 21 };
    const res = fold(cotProjection, touchedBy(cotProjection, [c, d]), storedAfter(cotProjection, [c]));
    expect([...res.changedBy]).toEqual([21]);
    expect([...res.reflected]).toEqual([20]);
  });

  it('a projection without parts: the stored position is what it reflects', () => {
    interface Counter extends ProjectedDoc {
      n: number;
    }
    // event by event (no evolveAll): the runner compares the documents
    const { evolveAll: _batched, ...perEvent } = seriesProjection;
    const counter: Projection<Counter> = {
      ...(perEvent as unknown as Projection<Counter>),
      initial: (id) => ({ _id: id, n: 0, _meta: { position: 0, version: 1 } }),
      evolve: (doc, _event, position) =>
        position <= doc._meta.position ? doc : { ...doc, n: doc.n + 1, _meta: { position, version: 1 } },
    };
    const id = counter.keyOf(b.event)[0]!;
    const stored = new Map([[id, { _id: id, n: 1, _meta: { position: 11, version: 1, rev: 1 } }]]);
    const res = fold(counter, new Map([[id, [a, b, { ...b, position: 13 }]]]), stored);
    expect([...res.reflected]).toEqual([11]);
    expect([...res.changedBy]).toEqual([13]);
  });

  it('an event that only confirms what a bucket holds (same release, values and attributes) writes nothing', () => {
    const stored = storedAfter(seriesProjection, [a, b]);
    // the same points under the same release, later in the stream: a second sync of an unchanged source
    const again = [a, b].map((e) => ({ ...e, position: e.position + 100 }));
    const res = fold(seriesProjection, touchedBy(seriesProjection, again), stored);
    expect(res.writes).toHaveLength(0);
    expect(res.changedBy.size).toBe(0);
    const cot: PositionedEvent = { event: cotRecorded('FOLD_OATS', [['2024-01-02', 1]]), position: 20 };
    const cotAgain = fold(
      cotProjection,
      touchedBy(cotProjection, [{ ...cot, position: 120 }]),
      storedAfter(cotProjection, [cot]),
    );
    expect(cotAgain.writes).toHaveLength(0);
  });

  it('a revision of one observation writes its bucket once for the batch, and only the event that revised it changed it', () => {
    const stored = storedAfter(seriesProjection, [a, b]);
    const revision: PositionedEvent = {
      event: seriesRecorded('FOLD_OATS', [['2024-01-03', 4]], { period: '2024', publishedAt: '2024-07-01T00:00:00Z' }),
      position: 30,
    };
    const confirm = { ...b, position: 31 };
    const res = fold(seriesProjection, touchedBy(seriesProjection, [revision, confirm]), stored);
    expect(res.writes.map((w) => w.doc._id)).toEqual(['FOLD_OATS:price:2024']);
    expect([...res.changedBy]).toEqual([30]);
    const doc = res.writes[0]!.doc as unknown as { points: { d: string; v: number }[]; revised: { v: number }[] };
    expect(doc.points.find((p) => p.d === '2024-01-03')!.v).toBe(4);
    expect(doc.revised.map((p) => p.v)).toEqual([3]);
  });
});
