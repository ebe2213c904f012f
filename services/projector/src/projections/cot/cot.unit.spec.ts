import { describe, expect, it } from 'vitest';
import { DataEvent } from '@cds/contracts';
import { cotRecorded, foldEvents } from '../../testing/events.ts';
import { cotProjection } from './index.ts';

describe('cot projection', () => {
  it('given nothing, when a batch of reports is recorded, then one bucket per year with raw groups, sorted by date', () => {
    const event = cotRecorded('GOLD', [
      ['2024-01-09', 110],
      ['2023-12-26', 90],
      ['2024-01-02', 100],
    ]);
    expect(DataEvent.safeParse(event).success).toBe(true);
    const docs = foldEvents(cotProjection, [[event, 3]]);
    expect([...docs.keys()].sort()).toEqual(['GOLD:legacy:2023', 'GOLD:legacy:2024']);
    expect(docs.get('GOLD:legacy:2024')).toEqual({
      _id: 'GOLD:legacy:2024',
      commodity_id: 'GOLD',
      format: 'legacy',
      year: 2024,
      first_date: '2024-01-02',
      last_date: '2024-01-09',
      count: 2,
      reports: [
        {
          report_date: '2024-01-02',
          open_interest: 100,
          groups: {
            commercial: { long: 100, short: 1 },
            non_commercial: { long: 2, short: 3, spreading: 4 },
            non_reportable: { long: 5, short: 6 },
          },
          last_updated: '2024-06-01T00:00:00Z',
        },
        {
          report_date: '2024-01-09',
          open_interest: 110,
          groups: {
            commercial: { long: 110, short: 1 },
            non_commercial: { long: 2, short: 3, spreading: 4 },
            non_reportable: { long: 5, short: 6 },
          },
          last_updated: '2024-06-01T00:00:00Z',
        },
      ],
      _meta: { position: 3, version: 4, parts: { '2024-01-02': 3, '2024-01-09': 3 } },
    });
    expect(docs.get('GOLD:legacy:2023')!.reports.map((r) => r.report_date)).toEqual(['2023-12-26']);
  });

  it('given a report, when a later event restates it, then the later values win and other dates stay', () => {
    const docs = foldEvents(cotProjection, [
      cotRecorded('GOLD', [
        ['2024-01-02', 100],
        ['2024-01-09', 110],
      ]),
      cotRecorded('GOLD', [['2024-01-02', 90]]),
    ]);
    const bucket = docs.get('GOLD:legacy:2024')!;
    expect(bucket.reports.map((r) => [r.report_date, r.open_interest])).toEqual([
      ['2024-01-02', 90],
      ['2024-01-09', 110],
    ]);
    expect(bucket.count).toBe(2);
  });

  it('replay and late arrival: an event at or below a date position changes nothing, in any order', () => {
    const e1 = cotRecorded('GOLD', [
      ['2024-01-02', 100],
      ['2024-01-16', 120],
    ]);
    const e2 = cotRecorded('GOLD', [['2024-01-02', 90]]);
    const once = foldEvents(cotProjection, [e1, e2]);
    const replayed = foldEvents(cotProjection, [e1, e2], once);
    expect(replayed.get('GOLD:legacy:2024')).toBe(once.get('GOLD:legacy:2024'));
    const reversed = foldEvents(cotProjection, [
      [e2, 2],
      [e1, 1],
    ]);
    expect(reversed).toEqual(once);
  });
});
