import { describe, expect, it } from 'vitest';
import { chunked, collect, ownFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { createParseStats } from '../common/stats.ts';
import { parseOhlcvCsv } from './parse.ts';
import { CATALOG } from '../registry.ts';

describe('generic OHLCV CSV', () => {
  it('yields price (with OHLCV) and volume points, rejecting bad rows with their line', async () => {
    const stats = createParseStats();
    const items = await collect(
      parseOhlcvCsv(chunked(ownFixturePath('ohlcv_cl_sample.csv'), 30), {
        catalog: CATALOG,
        file: 'cl.csv',
        commodity: 'CRUDE_OIL_WTI',
        stats,
      }),
    );
    const prices = items.filter((i) => i.kind === 'series' && i.series_type === 'price');
    const volumes = items.filter((i) => i.kind === 'series' && i.series_type === 'volume');
    expect(prices.map((p) => (p.kind === 'series' ? p.point : null))).toEqual([
      { date: '2024-03-01', value: 79.97, open: 78.26, high: 80.85, low: 78.1, close: 79.97, volume: 312456 },
      { date: '2024-03-04', value: 78.74, open: 80, high: 80.62, low: 78.34, close: 78.74, volume: 298001 },
      { date: '2024-03-05', value: 78.15, open: 78.61, high: 79000, low: 77.59, close: 78.15, volume: 1204 },
    ]);
    expect(prices[0]).toMatchObject({ commodity_id: 'CRUDE_OIL_WTI', frequency: 'daily', unit: 'USD/bbl' });
    expect(volumes).toHaveLength(3);
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([
      { kind: 'rejected', file: 'cl.csv', line: 5, reason: expect.stringContaining('open above high') },
      { kind: 'rejected', file: 'cl.csv', line: 7, reason: 'invalid date "2024-13-01"' },
      { kind: 'rejected', file: 'cl.csv', line: 8, reason: 'close is not a number "x"' },
    ]);
    expect(stats.skippedByReason).toEqual({ missing_value: 1 });
  });

  it('rejects an unknown commodity and a header without the OHLCV columns', async () => {
    expect(await collect(parseOhlcvCsv(['Date,Close\n'], { catalog: CATALOG, file: 'x', commodity: 'NOPE' }))).toEqual([
      { kind: 'rejected', file: 'x', line: 1, reason: 'unknown commodity "NOPE"' },
    ]);
    expect(
      await collect(parseOhlcvCsv(['Date,Close\n2024-01-02,1\n'], { catalog: CATALOG, file: 'x', commodity: 'GOLD' })),
    ).toEqual([
      {
        kind: 'rejected',
        file: 'x',
        line: 1,
        reason: 'header lacks open, high, low, volume (expected Date,Open,High,Low,Close,Volume)',
      },
    ]);
  });
});
