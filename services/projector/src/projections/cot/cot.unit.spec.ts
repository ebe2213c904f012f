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
          r: 0,
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
          r: 1,
        },
      ],
      // no published_at: each report's release is the CFTC calendar's Friday 15:30 New York, estimated
      releases: [
        { p: '2024-01-05T20:30:00.000Z', f: '2024-06-01T00:00:00.000Z', e: true, lo: '2024-01-02', hi: '2024-01-02' },
        { p: '2024-01-12T20:30:00.000Z', f: '2024-06-01T00:00:00.000Z', e: true, lo: '2024-01-09', hi: '2024-01-09' },
      ],
      // the event that last changed each report (the runner's `reflected`)
      _meta: { position: 3, version: 5, parts: { '2024-01-02': 3, '2024-01-09': 3 } },
    });
    expect(docs.get('GOLD:legacy:2023')!.reports.map((r) => r.report_date)).toEqual(['2023-12-26']);
  });

  it('given a report, when a later event restates it, then the later values win and other dates stay', () => {
    const docs = foldEvents(cotProjection, [
      cotRecorded('GOLD', [
        ['2024-01-02', 100],
        ['2024-01-09', 110],
      ]),
      // seen a day later, under the same calendar release
      cotRecorded('GOLD', [['2024-01-02', 90]], { occurredAt: '2024-06-02T00:00:00Z' }),
    ]);
    const bucket = docs.get('GOLD:legacy:2024')!;
    expect(bucket.reports.map((r) => [r.report_date, r.open_interest])).toEqual([
      ['2024-01-02', 90],
      ['2024-01-09', 110],
    ]);
    expect(bucket.count).toBe(2);
    // under the same calendar release: a correction, its own version when it was seen; the old one kept
    expect(bucket.revised).toMatchObject([{ report_date: '2024-01-02', open_interest: 100 }]);
  });

  it('replay and late arrival: a replay changes nothing; a restatement published later wins in any order', () => {
    const e1 = cotRecorded('GOLD', [
      ['2024-01-02', 100],
      ['2024-01-16', 120],
    ]);
    const e2 = cotRecorded('GOLD', [['2024-01-02', 90]], { publishedAt: '2024-01-12T20:30:00Z' });
    const once = foldEvents(cotProjection, [e1, e2]);
    const replayed = foldEvents(cotProjection, [e1, e2], once);
    expect(replayed.get('GOLD:legacy:2024')).toBe(once.get('GOLD:legacy:2024'));
    const reversed = foldEvents(cotProjection, [
      [e2, 2],
      [e1, 1],
    ]);
    expect(reversed).toEqual(once);
    expect(once.get('GOLD:legacy:2024')!.reports.map((r) => r.open_interest)).toEqual([90, 120]);
  });

  it('stamps each report with its own release: stated, else the calendar (holiday shifts included), estimated', () => {
    const stated = cotRecorded('GOLD', [['2025-03-04', 1]], { publishedAt: '2025-03-07T15:30:00-05:00' });
    const doc = foldEvents(cotProjection, [stated]).get('GOLD:legacy:2025')!;
    expect(doc.releases).toEqual([
      { p: '2025-03-07T20:30:00.000Z', f: '2024-06-01T00:00:00.000Z', lo: '2025-03-04', hi: '2025-03-04' },
    ]);
    // Thanksgiving week 2026: the release moves from Friday to Monday
    const thanksgiving = cotRecorded('GOLD', [
      ['2026-11-17', 1],
      ['2026-11-24', 2],
    ]);
    const bucket = foldEvents(cotProjection, [thanksgiving]).get('GOLD:legacy:2026')!;
    expect(bucket.reports.map((r) => [r.report_date, bucket.releases![r.r!]])).toEqual([
      ['2026-11-17', expect.objectContaining({ p: '2026-11-20T20:30:00.000Z', e: true })],
      ['2026-11-24', expect.objectContaining({ p: '2026-11-30T20:30:00.000Z', e: true })],
    ]);
  });

  it('a report that repeats the version in force, with other provenance, changes nothing', () => {
    const first = cotRecorded('GOLD', [['2024-01-02', 100]], { source: 'cftc:legacy:1' });
    const again = cotRecorded('GOLD', [['2024-01-02', 100]], {
      source: 'cftc:legacy:2',
      occurredAt: '2024-07-01T00:00:00Z',
    });
    const once = foldEvents(cotProjection, [first]);
    const after = foldEvents(cotProjection, [[again, 2]], once);
    expect(after.get('GOLD:legacy:2024')).toBe(once.get('GOLD:legacy:2024'));
  });
});
