import { describe, expect, it } from 'vitest';
import { DataEvent } from '@cds/contracts';
import { cotRecorded, foldEvents } from '../../testing/events.ts';
import { cotProjection } from './index.ts';

describe('cot projection', () => {
  it('given nothing, when a batch of reports is recorded, then one document per report date with raw groups', () => {
    const event = cotRecorded('GOLD', [
      ['2024-01-02', 100],
      ['2024-01-09', 110],
    ]);
    expect(DataEvent.safeParse(event).success).toBe(true);
    const docs = foldEvents(cotProjection, [[event, 3]]);
    expect([...docs.keys()]).toEqual(['GOLD:legacy:2024-01-02', 'GOLD:legacy:2024-01-09']);
    expect(docs.get('GOLD:legacy:2024-01-09')).toEqual({
      _id: 'GOLD:legacy:2024-01-09',
      commodity_id: 'GOLD',
      format: 'legacy',
      report_date: '2024-01-09',
      open_interest: 110,
      groups: {
        commercial: { long: 110, short: 1 },
        non_commercial: { long: 2, short: 3, spreading: 4 },
        non_reportable: { long: 5, short: 6 },
      },
      _meta: { position: 3, version: 1 },
    });
  });

  it('given a report, when a later event restates it, then the later values win', () => {
    const docs = foldEvents(cotProjection, [
      cotRecorded('GOLD', [['2024-01-02', 100]]),
      cotRecorded('GOLD', [['2024-01-02', 90]]),
    ]);
    expect(docs.get('GOLD:legacy:2024-01-02')!.open_interest).toBe(90);
  });

  it('replay and late arrival: an event at or below the stored position changes nothing', () => {
    const e1 = cotRecorded('GOLD', [['2024-01-02', 100]]);
    const e2 = cotRecorded('GOLD', [['2024-01-02', 90]]);
    const once = foldEvents(cotProjection, [e1, e2]);
    const replayed = foldEvents(cotProjection, [e1, e2], once);
    expect(replayed.get('GOLD:legacy:2024-01-02')).toBe(once.get('GOLD:legacy:2024-01-02'));
    const reversed = foldEvents(cotProjection, [
      [e2, 2],
      [e1, 1],
    ]);
    expect(reversed).toEqual(once);
  });
});
