import { describe, expect, it } from 'vitest';
import type { CatalogDoc } from '@cds/read-models';
import { viewPoints, type SeriesRangeQuery, type ViewedPoint } from '@cds/store';
import type { ReadModelRepository } from '../repository/repository.ts';
import type { RouteContext } from '../http/route-context.ts';
import { convertSeries, type SeriesToConvert } from './convert-series.ts';

// The kept run of a conversion (convert-series.ts): the read memo hands every request the same
// objects, so the same objects give back the same converted points; a new object converts afresh.

const usdDoc = {
  _id: 'FX_EUR_USD',
  id: 'FX_EUR_USD',
  listed: false,
  series: {
    price: { type: 'price', frequency: 'daily', first_date: '2026-04-01', last_date: '2026-04-02', source: 'ecb:USD' },
  },
} as unknown as CatalogDoc;

/**
 * The rates as the store reads them: the current view as given; any other view (as_of) by the view's
 * rule over the rates stamped as a backfilled year is, one estimated release at the last day's 16:00.
 */
function contextOver(rates: () => ViewedPoint[]): RouteContext {
  const stamp = { p: '2026-04-02T14:00:00.000Z', f: '2026-04-02T14:00:00.000Z', e: true as const };
  const read = (q: SeriesRangeQuery): ViewedPoint[] => {
    if (q.view === undefined) return rates();
    const current = rates().map((p) => ({ d: p.d, v: p.v, r: 0 }));
    return viewPoints({ current, releases: [{ ...stamp, lo: current[0]!.d, hi: current.at(-1)!.d }] }, q.view);
  };
  const repository = {
    unlistedEntries: () => Promise.resolve([usdDoc]),
    readSeries: (q: SeriesRangeQuery) =>
      Promise.resolve({ points: q.commodityId === 'FX_EUR_USD' ? read(q) : [], before: [], unit: undefined }),
  } as unknown as ReadModelRepository;
  return { repository, today: () => '2026-04-20', nowMs: () => Date.parse('2026-04-20T12:00:00Z') };
}

const wti: ViewedPoint[] = [
  { d: '2026-04-01', v: 60 },
  { d: '2026-04-02', v: 66 },
];

function ask(inRange: readonly ViewedPoint[], asOf?: string): SeriesToConvert {
  return {
    commodityId: 'CRUDE_OIL_WTI',
    type: 'price',
    native: 'daily',
    unit: 'USD/bbl',
    currency: 'EUR',
    toUnit: undefined,
    asOf,
    inRange,
    before: [],
  };
}

describe('a conversion asked again', () => {
  it('gives back the same converted points while the points and rates are the same objects', async () => {
    const rates: ViewedPoint[] = [
      { d: '2026-04-01', v: 1.2 },
      { d: '2026-04-02', v: 1.1 },
    ];
    const ctx = contextOver(() => [...rates]);
    const first = await convertSeries(ctx, ask([...wti]));
    const again = await convertSeries(ctx, ask([...wti]));
    expect(again!.inRange).toBe(first!.inRange);
    expect(first!.inRange.map((p) => p.v)).toEqual([50, 60]);
    expect(again!.conversion.currency).toMatchObject({ carried: 0, missing: 0 });
  });

  it('converts afresh when a rate is a new object (a changed rate read anew); as_of converts with the rates known then', async () => {
    let rates: ViewedPoint[] = [
      { d: '2026-04-01', v: 1.2 },
      { d: '2026-04-02', v: 1.1 },
    ];
    const ctx = contextOver(() => rates);
    const first = await convertSeries(ctx, ask(wti));
    rates = [rates[0]!, { d: '2026-04-02', v: 1.2 }];
    const changed = await convertSeries(ctx, ask(wti));
    expect(changed!.inRange).not.toBe(first!.inRange);
    expect(changed!.inRange.map((p) => p.v)).toEqual([50, 55]);
    // as of 2 April 13:00 UTC the 2nd's rate (16:00 Frankfurt, 14:00 UTC) was not out: carried from the 1st,
    // itself known from its own day's 16:00 although stamped with the 2nd's
    const asOf = await convertSeries(ctx, ask(wti, '2026-04-02T13:00:00.000Z'));
    expect(asOf!.inRange.map((p) => p.v)).toEqual([50, 55]);
    expect(asOf!.inRange[1]!.fxDate).toBe('2026-04-01');
    expect(asOf!.conversion.currency).toMatchObject({ carried: 1 });
  });
});
