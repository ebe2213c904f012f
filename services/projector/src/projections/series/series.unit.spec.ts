import { describe, expect, it } from 'vitest';
import { DataEvent } from '@cds/contracts';
import { foldEvents, seriesRecorded } from '../../testing/events.ts';
import { seriesProjection } from './index.ts';

describe('series projection', () => {
  it('given no bucket, when points are recorded, then one sorted bucket with first/last/count', () => {
    const event = seriesRecorded(
      'CRUDE_OIL_WTI',
      [
        ['2024-01-03', 72.1],
        ['2024-01-02', 71.5],
      ],
      { unit: 'USD/bbl' },
    );
    expect(DataEvent.safeParse(event).success).toBe(true);
    const docs = foldEvents(seriesProjection, [[event, 7]]);
    const doc = docs.get('CRUDE_OIL_WTI:price:2024');
    expect(doc).toMatchObject({
      commodity_id: 'CRUDE_OIL_WTI',
      type: 'price',
      year: 2024,
      frequency: 'daily',
      unit: 'USD/bbl',
      first_date: '2024-01-02',
      last_date: '2024-01-03',
      count: 2,
      points: [
        { d: '2024-01-02', v: 71.5 },
        { d: '2024-01-03', v: 72.1 },
      ],
    });
    expect(doc?._meta.position).toBe(7);
  });

  it('given a bucket, when a later event has a point for the same date, then it replaces it and merges the rest', () => {
    const docs = foldEvents(seriesProjection, [
      seriesRecorded('GOLD', [
        ['2023-05-01', 1],
        ['2023-05-02', 2],
      ]),
      seriesRecorded('GOLD', [
        ['2023-05-02', 20],
        ['2023-04-28', 0.5],
      ]),
    ]);
    const doc = docs.get('GOLD:price:2023')!;
    expect(doc.points).toEqual([
      { d: '2023-04-28', v: 0.5 },
      { d: '2023-05-01', v: 1 },
      { d: '2023-05-02', v: 20 },
    ]);
    expect(doc.count).toBe(3);
    expect(doc._meta.position).toBe(2);
  });

  it('keys a batch spanning a year boundary to two buckets and splits its points', () => {
    // The contract puts one period per event; the reducer still splits by year if one spans two.
    const event = seriesRecorded(
      'GOLD',
      [
        ['2023-12-29', 1],
        ['2024-01-02', 2],
      ],
      { period: '202' },
    );
    expect(seriesProjection.keyOf(event)).toEqual(['GOLD:price:2023', 'GOLD:price:2024']);
    const docs = foldEvents(seriesProjection, [event]);
    expect(docs.get('GOLD:price:2023')!.points).toEqual([{ d: '2023-12-29', v: 1 }]);
    expect(docs.get('GOLD:price:2024')!.points).toEqual([{ d: '2024-01-02', v: 2 }]);
  });

  it('replay: applying the same events again at their positions returns the very same documents', () => {
    const events = [
      seriesRecorded('GOLD', [['2023-05-01', 1]]),
      seriesRecorded('GOLD', [
        ['2023-05-01', 2],
        ['2023-06-01', 3],
      ]),
    ];
    const once = foldEvents(seriesProjection, events);
    const twice = foldEvents(seriesProjection, events, once);
    expect(twice).toEqual(once);
    for (const [id, doc] of once) expect(twice.get(id)).toBe(doc);
  });

  it('out of order: an older event applied after a newer one adds its dates but never overrides a newer point', () => {
    const e1 = seriesRecorded('GOLD', [
      ['2023-05-01', 1],
      ['2023-05-02', 1],
    ]);
    const e2 = seriesRecorded('GOLD', [
      ['2023-05-02', 2],
      ['2023-05-03', 2],
    ]);
    const inOrder = foldEvents(seriesProjection, [
      [e1, 10],
      [e2, 11],
    ]);
    const reversed = foldEvents(seriesProjection, [
      [e2, 11],
      [e1, 10],
    ]);
    expect(reversed).toEqual(inOrder);
    expect(inOrder.get('GOLD:price:2023')!.points.map((p) => p.v)).toEqual([1, 2, 2]);
  });
});
