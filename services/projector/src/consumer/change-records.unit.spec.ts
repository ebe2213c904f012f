import { ChangeRecord, DataEvent } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { catalogProjection, cotProjection, seriesProjection } from '../projections/index.ts';
import { commodityUpserted, cotRecorded, seriesRecorded } from '../testing/events.ts';
import { changeRecordId, changeRecordOf } from './change-records.ts';

const landed = new Date('2026-11-24T09:30:00.123Z');

describe('change records', () => {
  it('ids are evt_ and the first 32 hex digits of SHA-256 over projection, event id, topic and commodity', () => {
    // echo -n 'series:abc:price:GOLD' | sha256sum → eec6c812e5497fd4244c5e160367ac1b9e7bfa9a…
    expect(changeRecordId('series', 'abc', 'price', 'GOLD')).toBe('evt_eec6c812e5497fd4244c5e160367ac1b');
    const ids = new Set([
      changeRecordId('series', 'abc', 'price', 'GOLD'),
      changeRecordId('cot', 'abc', 'price', 'GOLD'),
      changeRecordId('series', 'abd', 'price', 'GOLD'),
      changeRecordId('series', 'abc', 'volume', 'GOLD'),
      changeRecordId('series', 'abc', 'price', 'GOLD_2'),
    ]);
    expect(ids.size).toBe(5);
  });

  it('a series event: series.updated with its type, the dates it carries and the request reading exactly them', () => {
    const event = seriesRecorded(
      'CRUDE_OIL_WTI',
      [
        ['2024-01-03', 72.1],
        ['2024-01-01', 70.2],
        ['2024-01-02', 71.5],
      ],
      { type: 'volume' },
    );
    expect(DataEvent.safeParse(event).success).toBe(true);
    const record = changeRecordOf(seriesProjection, event, landed);
    expect(record).toEqual({
      id: changeRecordId('series', event.id, 'volume', 'CRUDE_OIL_WTI'),
      type: 'series.updated',
      commodity: 'CRUDE_OIL_WTI',
      topic: 'volume',
      series_type: 'volume',
      first_date: '2024-01-01',
      newest_date: '2024-01-03',
      landed_at: '2026-11-24T09:30:00.123Z',
      path: '/api/v1/commodities/CRUDE_OIL_WTI/series?type=volume&start_date=2024-01-01&end_date=2024-01-03',
    });
    expect(ChangeRecord.parse(record)).toEqual(record);
    // The same change, later: the same id (only landed_at moves).
    expect(changeRecordOf(seriesProjection, event, new Date(landed.getTime() + 60_000))?.id).toBe(record!.id);
  });

  it('a COT event: cot.updated with the topic cot_<format>', () => {
    for (const format of ['legacy', 'disaggregated'] as const) {
      const event = cotRecorded(
        'GOLD',
        [
          ['2024-01-09', 12],
          ['2024-01-02', 10],
        ],
        { format },
      );
      expect(DataEvent.safeParse(event).success).toBe(true);
      const record = changeRecordOf(cotProjection, event, landed);
      expect(ChangeRecord.parse(record)).toEqual({
        id: changeRecordId('cot', event.id, `cot_${format}`, 'GOLD'),
        type: 'cot.updated',
        commodity: 'GOLD',
        topic: `cot_${format}`,
        format,
        first_date: '2024-01-02',
        newest_date: '2024-01-09',
        landed_at: landed.toISOString(),
        path: `/api/v1/commodities/GOLD/cot?format=${format}&start_date=2024-01-02&end_date=2024-01-09`,
      });
    }
  });

  it('the catalog projection records nothing, whatever the event', () => {
    for (const event of [
      commodityUpserted('GOLD'),
      seriesRecorded('GOLD', [['2024-01-02', 1]]),
      cotRecorded('GOLD', [['2024-01-02', 1]]),
    ]) {
      expect(changeRecordOf(catalogProjection, event, landed)).toBeUndefined();
    }
    // Nor do series and cot for events they do not handle.
    expect(changeRecordOf(seriesProjection, commodityUpserted('GOLD'), landed)).toBeUndefined();
    expect(changeRecordOf(cotProjection, seriesRecorded('GOLD', [['2024-01-02', 1]]), landed)).toBeUndefined();
  });
});
