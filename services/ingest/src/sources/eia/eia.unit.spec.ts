import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SeriesPointRecord } from '@cds/contracts';
import { chunked, collect, ownFixturePath, realFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { createParseStats } from '../common/stats.ts';
import type { SeriesItem, SourceItem } from '../types.ts';
import { parseEiaApiJson } from './parse-api.ts';
import { parseEiaCsv } from './parse-csv.ts';
import { CATALOG } from '../registry.ts';

const RWTC = realFixturePath('eia_rwtc_wti_spot_daily_2022_excerpt.csv');
const WCESTUS1 = realFixturePath('eia_wcestus1_crude_stocks_weekly_2024_excerpt.csv');
const series = (items: SourceItem[]) => items.filter((i): i is SeriesItem => i.kind === 'series');

/** Data rows of an EIA CSV split independently: lines after the 5th (4 preamble + header). */
function rawRows(path: string): { line: number; date: string; value: string }[] {
  return readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .map((l, i) => ({ l, line: i + 1 }))
    .slice(5)
    .filter(({ l }) => l !== '')
    .map(({ l, line }) => {
      const [date, value] = l.split(',');
      return { line, date: date!, value: value! };
    });
}

const toIso = (mdY: string) => {
  const [m, d, y] = mdY.split('/');
  return `${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
};

describe('EIA CSV downloads (real excerpts)', () => {
  it('parses RWTC daily (CRLF, no final newline, newest first) row by row', async () => {
    const stats = createParseStats();
    const items = series(await collect(parseEiaCsv(chunked(RWTC, 40), { catalog: CATALOG, file: 'rwtc.csv', stats })));
    const raw = rawRows(RWTC);
    expect(raw).toHaveLength(61);
    expect(stats).toMatchObject({ rows: 61, emitted: 61, rejected: 0 });
    expect(items).toHaveLength(61);
    items.forEach((item, i) => {
      expect(item).toMatchObject({
        commodity_id: 'CRUDE_OIL_WTI',
        series_type: 'price',
        frequency: 'daily',
        unit: 'USD/bbl',
      });
      expect(item.point).toEqual({ date: toIso(raw[i]!.date), value: Number(raw[i]!.value) });
      expect(SeriesPointRecord.parse(item.point)).toEqual(item.point);
    });
    // newest first as in the file; M/D/YYYY with an unpadded day
    expect(items[0]!.point).toEqual({ date: '2022-11-28', value: 77.1 });
    expect(items.at(-1)!.point.date).toBe('2022-09-01');
    expect(items.find((i) => i.point.date === '2022-11-09')).toBeDefined();
  });

  it('parses WCESTUS1 weekly (LF) and finds the series in the preamble URL', async () => {
    const items = series(await collect(parseEiaCsv(chunked(WCESTUS1), { catalog: CATALOG, file: 'wcestus1.csv' })));
    const raw = rawRows(WCESTUS1);
    expect(items).toHaveLength(35);
    items.forEach((item, i) => {
      expect(item).toMatchObject({ commodity_id: 'CRUDE_OIL_WTI', series_type: 'stocks', frequency: 'weekly' });
      expect(item.point).toEqual({ date: toIso(raw[i]!.date), value: Number(raw[i]!.value) });
    });
    expect(items[0]!.point).toEqual({ date: '2024-08-30', value: 418310 });
    expect(items.at(-1)!.point.date).toBe('2024-01-05');
  });

  it('rejects bad rows with their line and keeps going; skips empty values', async () => {
    const text = readFileSync(WCESTUS1, 'utf8').split('\n');
    const broken = [...text.slice(0, 6), '13/45/2024,1', '08/09/2024,', '08/02/2024,abc', ...text.slice(6, 8)].join(
      '\n',
    );
    const stats = createParseStats();
    const items = await collect(parseEiaCsv([broken], { catalog: CATALOG, file: 'w.csv', stats }));
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([
      { kind: 'rejected', file: 'w.csv', line: 7, reason: 'invalid weekly date "13/45/2024"' },
      { kind: 'rejected', file: 'w.csv', line: 9, reason: 'value is not a number "abc"' },
    ]);
    expect(series(items)).toHaveLength(3);
    expect(stats.skippedByReason).toEqual({ missing_value: 1 });
  });

  it('rejects a file whose frequency differs from the mapped series', async () => {
    const monthly = 'Title\nhttps://www.eia.gov/dnav/pet/hist/RWTCM.htm\nx\ny\nMonth,Price\nNov 2022,84.37\n';
    const items = await collect(parseEiaCsv([monthly], { catalog: CATALOG, file: 'm.csv' }));
    expect(items).toEqual([
      { kind: 'rejected', file: 'm.csv', line: 5, reason: 'file is monthly but series RWTC is mapped as daily' },
    ]);
  });
});

describe('EIA API v2 JSON', () => {
  it('maps response.data[] by series id, numbers or numeric strings, skipping null and unknown series', async () => {
    const stats = createParseStats();
    const items = await collect(
      parseEiaApiJson(chunked(ownFixturePath('eia_api_v2_wcestus1_sample.json'), 33), {
        catalog: CATALOG,
        file: 'api',
        stats,
      }),
    );
    expect(series(items).map((i) => [i.commodity_id, i.series_type, i.frequency, i.point])).toEqual([
      ['CRUDE_OIL_WTI', 'stocks', 'weekly', { date: '2024-08-16', value: 426029 }],
      ['CRUDE_OIL_WTI', 'stocks', 'weekly', { date: '2024-08-23', value: 425183 }],
      ['CRUDE_OIL_WTI', 'stocks', 'weekly', { date: '2024-08-30', value: 418310 }],
    ]);
    expect(stats).toMatchObject({ rows: 4, emitted: 3, skipped: 1, skippedByReason: { unknown_series: 1 } });
  });

  it('rejects a period that does not fit the series frequency', async () => {
    const items = await collect(
      parseEiaApiJson(chunked(ownFixturePath('eia_api_v2_rwtc_sample.json')), { catalog: CATALOG, file: 'api' }),
    );
    expect(series(items).map((i) => i.point)).toEqual([
      { date: '2022-11-25', value: 76.45 },
      { date: '2022-11-28', value: 77.1 },
    ]);
    expect(items.at(-1)).toEqual({
      kind: 'rejected',
      file: 'api',
      line: 3,
      reason: 'period "2022-11" is not a daily period',
    });
  });

  it('reports a body without a data array', async () => {
    const items = await collect(
      parseEiaApiJson(['{"error":"invalid api_key","code":403}'], { catalog: CATALOG, file: 'api' }),
    );
    expect(items).toEqual([{ kind: 'rejected', file: 'api', line: 1, reason: expect.stringContaining('no "data"') }]);
  });
});
