import { describe, expect, it } from 'vitest';
import type { DataEvent } from '@cds/contracts';
import { commodityUpserted, cotRecorded, foldEvents, seriesRecorded } from '../../testing/events.ts';
import { catalogProjection } from './index.ts';

describe('catalog projection', () => {
  it('given nothing, when a commodity is upserted, then it is listed with its entry fields', () => {
    const docs = foldEvents(catalogProjection, [commodityUpserted('CRUDE_OIL_WTI', 'WTI crude')]);
    expect(docs.get('CRUDE_OIL_WTI')).toEqual({
      _id: 'CRUDE_OIL_WTI',
      id: 'CRUDE_OIL_WTI',
      listed: true,
      name: 'WTI crude',
      category: 'energy',
      unit: 'USD/bbl',
      series: {},
      _meta: { position: 1, version: 4, parts: { entry: 1 } },
    });
  });

  it('given series first, then the descriptor exists on an unlisted document until the catalog event arrives', () => {
    const docs = foldEvents(catalogProjection, [
      seriesRecorded(
        'GOLD',
        [
          ['2023-05-01', 1],
          ['2023-05-03', 1],
        ],
        { unit: 'USD/ozt' },
      ),
      cotRecorded('GOLD', [['2024-01-02', 5]]),
    ]);
    expect(docs.get('GOLD')).toMatchObject({
      listed: false,
      series: {
        price: {
          type: 'price',
          frequency: 'daily',
          first_date: '2023-05-01',
          last_date: '2023-05-03',
          unit: 'USD/ozt',
        },
        cot_legacy: { type: 'cot_legacy', frequency: 'weekly', first_date: '2024-01-02', last_date: '2024-01-02' },
      },
    });
    const listed = foldEvents(catalogProjection, [[commodityUpserted('GOLD', 'Gold'), 3]], docs);
    expect(listed.get('GOLD')).toMatchObject({ listed: true, name: 'Gold', series: docs.get('GOLD')!.series });
  });

  it('lists a descriptor per COT dataset a commodity has: cot_legacy, cot_legacy_combined, cot_cit, …', () => {
    const docs = foldEvents(catalogProjection, [
      cotRecorded('CORN', [['2024-01-02', 5]], { source: 'cftc:legacy:002602' }),
      cotRecorded(
        'CORN',
        [
          ['2024-01-09', 5],
          ['2023-12-26', 5],
        ],
        { scope: 'futures_and_options', source: 'cftc:legacy_combined:002602' },
      ),
      cotRecorded('CORN', [['2024-01-02', 5]], { format: 'disaggregated', scope: 'futures_and_options' }),
      cotRecorded('CORN', [['2024-01-02', 5]], { format: 'cit', publishedAt: '2024-01-05T15:30:00-05:00' }),
    ]);
    const series = docs.get('CORN')!.series;
    expect(Object.keys(series).sort()).toEqual([
      'cot_cit',
      'cot_disaggregated_combined',
      'cot_legacy',
      'cot_legacy_combined',
    ]);
    expect(series.cot_legacy_combined).toMatchObject({
      type: 'cot_legacy_combined',
      frequency: 'weekly',
      first_date: '2023-12-26',
      last_date: '2024-01-09',
      source: 'cftc:legacy_combined:002602',
      // the calendar's Friday of the first report, as for cot_legacy
      first_published_at: '2023-12-29T20:30:00.000Z',
    });
    expect(series.cot_legacy).toMatchObject({ first_date: '2024-01-02', source: 'cftc:legacy:002602' });
    expect(series.cot_cit).toMatchObject({ type: 'cot_cit', first_published_at: '2024-01-05T20:30:00.000Z' });
  });

  it("keeps a price series' basis last-writer-wins with its source (a real price replacing a demo one)", () => {
    const demo = seriesRecorded('GOLD', [['2023-05-01', 1]], { source: 'demo', priceBasis: 'demo' });
    const real = seriesRecorded('GOLD', [['2023-05-31', 1950.2]], {
      source: 'worldbank:GOLD',
      priceBasis: 'monthly_average',
    });
    for (const order of [
      [
        [demo, 1],
        [real, 2],
      ],
      [
        [real, 2],
        [demo, 1],
      ],
    ] as const) {
      const docs = foldEvents(
        catalogProjection,
        order.map(([e, p]) => [e, p] as [typeof e, number]),
      );
      expect(docs.get('GOLD')!.series.price).toMatchObject({
        source: 'worldbank:GOLD',
        price_basis: 'monthly_average',
      });
    }
  });

  it('widens descriptor dates with every batch, in any order', () => {
    const a = seriesRecorded('GOLD', [['2023-05-01', 1]]);
    const b = seriesRecorded('GOLD', [['2021-01-04', 1]], { period: '2021' });
    const c = seriesRecorded('GOLD', [['2024-02-01', 1]], { period: '2024' });
    const inOrder = foldEvents(catalogProjection, [
      [a, 1],
      [b, 2],
      [c, 3],
    ]);
    const shuffled = foldEvents(catalogProjection, [
      [c, 3],
      [a, 1],
      [b, 2],
    ]);
    expect(shuffled).toEqual(inOrder);
    expect(inOrder.get('GOLD')!.series.price).toMatchObject({ first_date: '2021-01-04', last_date: '2024-02-01' });
  });

  it('replay: the same events again change nothing; an older upsert never overrides a newer one', () => {
    const events = [
      commodityUpserted('GOLD', 'Gold v1'),
      seriesRecorded('GOLD', [['2023-05-01', 1]]),
      commodityUpserted('GOLD', 'Gold v2'),
    ];
    const once = foldEvents(catalogProjection, events);
    const twice = foldEvents(catalogProjection, events, once);
    expect(twice.get('GOLD')).toBe(once.get('GOLD'));
    expect(once.get('GOLD')!.name).toBe('Gold v2');
  });

  it('first_published_at: the earliest release of the events seen for a series or a COT format, in any order', () => {
    const older = seriesRecorded('GOLD', [['2021-05-01', 1]], { publishedAt: '2021-06-02T14:00:00Z' });
    const newer = seriesRecorded('GOLD', [['2021-05-01', 2]], { publishedAt: '2022-03-02T14:00:00Z' });
    // without published_at: the ingest time (occurred_at)
    const unstated = seriesRecorded('GOLD', [['2023-05-01', 1]], { occurredAt: '2024-06-01T00:00:00Z' });
    const cot = cotRecorded('GOLD', [
      ['2024-01-09', 5],
      ['2024-01-02', 5],
    ]);
    const events: [DataEvent, number][] = [
      [newer, 1],
      [unstated, 2],
      [older, 3],
      [cot, 4],
    ];
    const inOrder = foldEvents(catalogProjection, events);
    const reversed = foldEvents(catalogProjection, [...events].reverse());
    expect(reversed).toEqual(inOrder);
    const series = inOrder.get('GOLD')!.series;
    expect(series.price!.first_published_at).toBe('2021-06-02T14:00:00.000Z');
    // COT: the calendar's release of the batch's earliest report
    expect(series.cot_legacy!.first_published_at).toBe('2024-01-05T20:30:00.000Z');
    expect(foldEvents(catalogProjection, events, inOrder).get('GOLD')).toBe(inOrder.get('GOLD'));
    expect(foldEvents(catalogProjection, [unstated]).get('GOLD')!.series.price!.first_published_at).toBe(
      '2024-06-01T00:00:00.000Z',
    );
  });
});
