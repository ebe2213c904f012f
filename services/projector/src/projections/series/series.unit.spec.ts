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
    // no published_at: one release, at the ingest time, estimated
    expect(doc?.points.map((p) => p.r)).toEqual([0, 0]);
    expect(doc?.releases).toEqual([
      { p: '2024-06-01T00:00:00.000Z', f: '2024-06-01T00:00:00.000Z', e: true, lo: '2024-01-02', hi: '2024-01-03' },
    ]);
    expect(doc).not.toHaveProperty('revised');
    expect(doc?._meta.version).toBe(4);
  });

  it('given a bucket, when a later event has a point for the same date, then it replaces it and merges the rest', () => {
    const docs = foldEvents(seriesProjection, [
      seriesRecorded('GOLD', [
        ['2023-05-01', 1],
        ['2023-05-02', 2],
      ]),
      // ingested a day later (without a stated publication time, the ingest time is the estimate)
      seriesRecorded(
        'GOLD',
        [
          ['2023-05-02', 20],
          ['2023-04-28', 0.5],
        ],
        { occurredAt: '2024-06-02T00:00:00Z' },
      ),
    ]);
    const doc = docs.get('GOLD:price:2023')!;
    expect(doc.points).toMatchObject([
      { d: '2023-04-28', v: 0.5 },
      { d: '2023-05-01', v: 1 },
      { d: '2023-05-02', v: 20 },
    ]);
    expect(doc.count).toBe(3);
    expect(doc._meta.position).toBe(2);
    // the replaced value is kept as a revised version
    expect(doc.revised).toMatchObject([{ d: '2023-05-02', v: 2 }]);
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
    expect(docs.get('GOLD:price:2023')!.points).toEqual([{ d: '2023-12-29', v: 1, r: 0 }]);
    expect(docs.get('GOLD:price:2024')!.points).toEqual([{ d: '2024-01-02', v: 2, r: 0 }]);
    expect(docs.get('GOLD:price:2023')!.releases).toMatchObject([{ lo: '2023-12-29', hi: '2023-12-29' }]);
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
    // Without published_at a batch is published when ingested: e1 before e2.
    const e1 = seriesRecorded(
      'GOLD',
      [
        ['2023-05-01', 1],
        ['2023-05-02', 1],
      ],
      { occurredAt: '2024-06-01T00:00:00Z' },
    );
    const e2 = seriesRecorded(
      'GOLD',
      [
        ['2023-05-02', 2],
        ['2023-05-03', 2],
      ],
      { occurredAt: '2024-06-02T00:00:00Z' },
    );
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
    expect(reversed.get('GOLD:price:2023')!.points.map((p) => p.v)).toEqual([1, 2, 2]);
  });

  describe('versions', () => {
    // Two Pink-Sheet-like vintages of a monthly series, both carrying May 2021.
    const june = seriesRecorded(
      'COPPER',
      [
        ['2021-04-01', 9336],
        ['2021-05-01', 10184],
      ],
      { frequency: 'monthly', publishedAt: '2021-06-02T14:00:00Z', occurredAt: '2026-11-01T10:00:00Z' },
    );
    const march = seriesRecorded(
      'COPPER',
      [
        ['2021-05-01', 10161.9],
        ['2021-06-01', 9612.5],
      ],
      { frequency: 'monthly', publishedAt: '2022-03-02T14:00:00Z', occurredAt: '2026-11-01T09:00:00Z' },
    );
    const id = 'COPPER:price:2021';

    it('an older vintage applied after a newer one brings no old value back: the older value is a revised version', () => {
      const docs = foldEvents(seriesProjection, [
        [march, 2],
        [june, 1],
      ]);
      const doc = docs.get(id)!;
      expect(doc.points.map((p) => [p.d, p.v, doc.releases![p.r!]!.p])).toEqual([
        ['2021-04-01', 9336, '2021-06-02T14:00:00.000Z'],
        ['2021-05-01', 10161.9, '2022-03-02T14:00:00.000Z'],
        ['2021-06-01', 9612.5, '2022-03-02T14:00:00.000Z'],
      ]);
      expect(doc.revised!.map((p) => [p.d, p.v, doc.releases![p.r!]!.p])).toEqual([
        ['2021-05-01', 10184, '2021-06-02T14:00:00.000Z'],
      ]);
      // stated publication times are not estimated; first_seen is the event's occurred_at
      expect(doc.releases).toEqual([
        { p: '2021-06-02T14:00:00.000Z', f: '2026-11-01T10:00:00.000Z', lo: '2021-04-01', hi: '2021-05-01' },
        { p: '2022-03-02T14:00:00.000Z', f: '2026-11-01T09:00:00.000Z', lo: '2021-05-01', hi: '2021-06-01' },
      ]);
      expect(doc).toMatchObject({ first_date: '2021-04-01', last_date: '2021-06-01', count: 3 });
      // the stored form does not depend on the arrival order
      const inOrder = foldEvents(seriesProjection, [june, march]);
      expect(docs).toEqual(inOrder);
    });

    it('a replay of either vintage returns the very same document', () => {
      const once = foldEvents(seriesProjection, [
        [march, 2],
        [june, 1],
      ]);
      for (const [event, position] of [
        [june, 1],
        [march, 2],
      ] as const) {
        const again = foldEvents(seriesProjection, [[event, position]], once);
        expect(again.get(id)).toBe(once.get(id));
      }
    });

    it('a vintage that confirms the values in force changes no version', () => {
      const confirm = seriesRecorded('COPPER', [['2021-05-01', 10161.9]], {
        frequency: 'monthly',
        publishedAt: '2022-04-04T14:00:00Z',
      });
      const before = foldEvents(seriesProjection, [june, march]).get(id)!;
      const after = foldEvents(seriesProjection, [[confirm, 3]], new Map([[id, before]])).get(id)!;
      expect(after.points).toEqual(before.points);
      expect(after.revised).toEqual(before.revised);
      // the release is remembered (it carried the date), estimated or not as it said
      expect(after.releases!.at(-1)).toMatchObject({ p: '2022-04-04T14:00:00.000Z', lo: '2021-05-01' });
      expect(after.releases!.at(-1)).not.toHaveProperty('e');
    });

    it('an estimated stated publication time is flagged', () => {
      const estimated = seriesRecorded('COPPER', [['2021-05-01', 1]], {
        frequency: 'monthly',
        publishedAt: '2021-06-02T10:00:00-04:00',
        publishedAtEstimated: true,
      });
      const doc = foldEvents(seriesProjection, [estimated]).get(id)!;
      expect(doc.releases).toEqual([
        { p: '2021-06-02T14:00:00.000Z', f: '2024-06-01T00:00:00.000Z', e: true, lo: '2021-05-01', hi: '2021-05-01' },
      ]);
    });
  });
});
