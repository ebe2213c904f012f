import { describe, expect, it } from 'vitest';
import { DataEvent } from '@cds/contracts';
import { cotRecorded, foldEvents, seriesRecorded } from '../testing/events.ts';
import { catalogProjection } from './catalog/index.ts';
import { cotProjection } from './cot/index.ts';
import { seriesProjection } from './series/index.ts';
import type { ProjectedDoc, Projection } from './types.ts';

// Provenance through the reducers: `source` is the batch's (last-writer-wins by stream position),
// `last_updated` the latest occurred_at of the events with data of the series (a max), so replay,
// redelivery and reordering leave both where they are.

const T1 = '2026-11-20T21:00:00Z';
const T2 = '2026-11-23T09:30:00Z';
const T3 = '2026-11-24T04:00:00Z';
const BOTH = [seriesProjection, catalogProjection] as unknown as Projection<ProjectedDoc>[];

describe('provenance in the read models', () => {
  const first = seriesRecorded('CRUDE_OIL_WTI', [['2026-11-16', 70]], { source: 'eia:RWTC', occurredAt: T1 });
  const revised = seriesRecorded(
    'CRUDE_OIL_WTI',
    [
      ['2026-11-16', 71],
      ['2026-11-17', 72],
    ],
    { source: 'eia:RWTC', occurredAt: T2 },
  );

  it('given a series batch with a source, then the bucket and the catalog descriptor carry it and its ingest time', () => {
    expect(DataEvent.safeParse(first).success).toBe(true);
    const buckets = foldEvents(seriesProjection, [first]);
    expect(buckets.get('CRUDE_OIL_WTI:price:2026')).toMatchObject({ source: 'eia:RWTC', last_updated: T1 });
    const catalog = foldEvents(catalogProjection, [first]);
    expect(catalog.get('CRUDE_OIL_WTI')!.series.price).toEqual({
      type: 'price',
      frequency: 'daily',
      first_date: '2026-11-16',
      last_date: '2026-11-16',
      source: 'eia:RWTC',
      last_updated: T1,
      first_published_at: '2026-11-20T21:00:00.000Z',
    });
  });

  it('when a later event revises the series, then last_updated moves to its occurred_at', () => {
    const buckets = foldEvents(seriesProjection, [first, revised]);
    expect(buckets.get('CRUDE_OIL_WTI:price:2026')).toMatchObject({ last_updated: T2, count: 2 });
    expect(foldEvents(catalogProjection, [first, revised]).get('CRUDE_OIL_WTI')!.series.price!.last_updated).toBe(T2);
  });

  it('replay: the same events again leave the documents identical (last_updated does not move)', () => {
    for (const projection of BOTH) {
      const once = foldEvents(projection, [first, revised]);
      const twice = foldEvents(projection, [first, revised], once);
      expect(twice).toEqual(once);
      for (const [id, doc] of once) expect(twice.get(id)).toBe(doc);
    }
  });

  it('reordering: an older event applied last changes neither source nor last_updated', () => {
    const otherSource = seriesRecorded('CRUDE_OIL_WTI', [['2026-11-18', 73]], { source: 'demo', occurredAt: T3 });
    const events: [DataEvent, number][] = [
      [first, 1],
      [revised, 2],
      [otherSource, 3],
    ];
    const orders = [
      [0, 1, 2],
      [2, 1, 0],
      [1, 2, 0],
      [2, 0, 1],
    ];
    for (const projection of BOTH) {
      const results = orders.map((o) =>
        foldEvents(
          projection,
          o.map((i) => events[i]!),
        ),
      );
      for (const r of results) expect(r).toEqual(results[0]);
    }
    const catalog = foldEvents(catalogProjection, events).get('CRUDE_OIL_WTI')!;
    // the newest event by stream position names the source; the latest ingest time is kept
    expect(catalog.series.price).toMatchObject({ source: 'demo', last_updated: T3, last_date: '2026-11-18' });
  });

  it('last_updated is the max occurred_at even when stream order and ingest time disagree', () => {
    const late = seriesRecorded('GOLD', [['2026-01-05', 1]], { source: 'demo', occurredAt: T3 });
    const early = seriesRecorded('GOLD', [['2026-01-05', 2]], { source: 'demo', occurredAt: T1 });
    for (const order of [
      [
        [late, 1],
        [early, 2],
      ],
      [
        [early, 2],
        [late, 1],
      ],
    ] as [DataEvent, number][][]) {
      const bucket = foldEvents(seriesProjection, order).get('GOLD:price:2026')!;
      expect(bucket.last_updated).toBe(T3);
      // Without published_at a batch is published when ingested: the later-ingested value is
      // current, whatever the stream order, and the other one is kept as a revised version.
      expect(bucket.points[0]!.v).toBe(1);
      expect(bucket.revised).toMatchObject([{ d: '2026-01-05', v: 2 }]);
    }
  });

  it('an event from before batches carried a source: demo by its envelope, otherwise none', () => {
    const demo = seriesRecorded('GOLD', [['2026-01-05', 1]], { envelopeSource: 'demo' });
    expect(foldEvents(seriesProjection, [demo]).get('GOLD:price:2026')!.source).toBe('demo');
    const file = seriesRecorded('GOLD', [['2026-01-05', 1]], { envelopeSource: 'ohlcv:gold.csv' });
    expect(foldEvents(seriesProjection, [file]).get('GOLD:price:2026')).not.toHaveProperty('source');
    expect(foldEvents(catalogProjection, [file]).get('GOLD')!.series.price).not.toHaveProperty('source');
  });

  describe('COT reports', () => {
    const cftc = cotRecorded(
      'CRUDE_OIL_WTI',
      [
        ['2026-11-10', 100],
        ['2026-11-17', 110],
      ],
      { source: 'cftc:legacy:067651', occurredAt: T1, contractCode: '067651' },
    );
    // A restatement says when it was published (a later release): with only the calendar's
    // estimate both would share one instant, and the order of arrival would decide.
    const restated = cotRecorded('CRUDE_OIL_WTI', [['2026-11-17', 111]], {
      source: 'cftc:legacy:067651',
      occurredAt: T2,
      contractCode: '067651',
      publishedAt: T2,
    });

    it('each report keeps the source and occurred_at of the event that wrote it, in any order, replay included', () => {
      const inOrder = foldEvents(cotProjection, [
        [cftc, 1],
        [restated, 2],
      ]);
      const reversed = foldEvents(cotProjection, [
        [restated, 2],
        [cftc, 1],
      ]);
      expect(reversed).toEqual(inOrder);
      expect(foldEvents(cotProjection, [cftc, restated], inOrder)).toEqual(inOrder);
      const reports = inOrder.get('CRUDE_OIL_WTI:legacy:2026')!.reports;
      expect(reports.map((r) => [r.report_date, r.open_interest, r.source, r.last_updated])).toEqual([
        ['2026-11-10', 100, 'cftc:legacy:067651', T1],
        ['2026-11-17', 111, 'cftc:legacy:067651', T2],
      ]);
      expect(inOrder.get('CRUDE_OIL_WTI:legacy:2026')!._meta.version).toBe(6);
    });

    it('the catalog descriptor of the format carries the source and the latest ingest time', () => {
      const catalog = foldEvents(catalogProjection, [
        [restated, 2],
        [cftc, 1],
      ]).get('CRUDE_OIL_WTI')!;
      expect(catalog.series.cot_legacy).toMatchObject({ source: 'cftc:legacy:067651', last_updated: T2 });
    });

    it('an event without a batch source: a CFTC row is attributed by its contract code, a demo one by its envelope', () => {
      const old = cotRecorded('GOLD', [['2026-11-17', 5]], { contractCode: '088691', envelopeSource: 'cftc-legacy' });
      expect(foldEvents(cotProjection, [old]).get('GOLD:legacy:2026')!.reports[0]!.source).toBe('cftc:legacy:088691');
      const demo = cotRecorded('GOLD', [['2026-11-17', 5]], { contractCode: '088691', envelopeSource: 'demo' });
      expect(foldEvents(cotProjection, [demo]).get('GOLD:legacy:2026')!.reports[0]!.source).toBe('demo');
    });
  });
});
