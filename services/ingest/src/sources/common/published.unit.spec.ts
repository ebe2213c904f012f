import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { realFixturePath } from '../../../test/helpers/source-fixtures.ts';
import type { SeriesItem, SourceItem } from '../types.ts';
import { cotReportStamp, easternStamp, stampFromCalendar, statedDayStamp } from './published.ts';

const point = (date: string, published?: SeriesItem['published']): SeriesItem => ({
  kind: 'series',
  commodity_id: 'CRUDE_OIL_WTI',
  series_type: 'price',
  frequency: 'daily',
  point: { date, value: 1 },
  ...(published !== undefined ? { published } : {}),
});

describe('publication stamps', () => {
  it("reads NASS's load_time as New York wall-clock time, DST included", () => {
    // the real record set: Crop Production of 2012-08-10 (8:30 ET then), loaded 12:59:15 EDT
    const rows = (
      JSON.parse(readFileSync(realFixturePath('nass_quickstats_api_corn_yield_va_2012.json'), 'utf8')) as {
        data: { load_time: string }[];
      }
    ).data;
    expect(rows.map((r) => easternStamp(r.load_time)?.at)).toContain('2012-08-10T16:59:15.000Z');
    expect(easternStamp('2012-12-31 00:00:00')).toEqual({ at: '2012-12-31T05:00:00.000Z', estimated: false });
    expect(easternStamp('2026-01-12 12:00:00.000')).toEqual({ at: '2026-01-12T17:00:00.000Z', estimated: false });
    expect(easternStamp('2025-07-01 09:05')?.at).toBe('2025-07-01T13:05:00.000Z');
    for (const bad of ['', '2025-02-30 12:00:00', '2025-01-01 24:00:00', 'yesterday', '2025-01-01'])
      expect(easternStamp(bad), bad).toBeUndefined();
  });

  it('dates a stated day at its start in UTC, and a COT report on its release calendar', () => {
    expect(statedDayStamp('2025-11-04')).toEqual({ at: '2025-11-04T00:00:00.000Z', estimated: false });
    expect(cotReportStamp('2025-03-04')).toEqual({
      published_at: '2025-03-07T20:30:00.000Z',
      published_at_estimated: true,
    });
    expect(cotReportStamp('2025-02-30')).toEqual({});
  });

  it("stamps an EIA fetch's points with the last WPSR at or before it, not a point the release cannot have carried", () => {
    // fetched Tuesday 2025-03-18 15:00Z: the last release was Wednesday 2025-03-12 10:30 EDT
    const now = new Date('2025-03-18T15:00:00Z');
    const items: SourceItem[] = [
      point('2025-03-07'),
      point('2025-03-11'),
      point('2025-03-12'),
      point('2025-03-17'),
      point('2025-03-05', { at: '2025-03-06T00:00:00.000Z', estimated: false }),
      // a stated time after the fetch is not believed: the calendar's release instead
      point('2025-03-06', { at: '2025-03-19T00:00:00.000Z', estimated: false }),
      { kind: 'rejected', file: 'f', line: 1, reason: 'r' },
    ];
    const out = stampFromCalendar(items, 'eia', now);
    expect(out.map((i) => (i.kind === 'series' ? i.published : i.kind))).toEqual([
      { at: '2025-03-12T14:30:00.000Z', estimated: true },
      { at: '2025-03-12T14:30:00.000Z', estimated: true },
      // dated on or after the release's day: unstamped, the event takes the ingest time
      undefined,
      undefined,
      { at: '2025-03-06T00:00:00.000Z', estimated: false },
      { at: '2025-03-12T14:30:00.000Z', estimated: true },
      'rejected',
    ]);
  });
});
