import { describe, expect, it } from 'vitest';
import { cotReportPublishedAt, lastDueRelease, lastReleaseAtOrBefore } from './index.ts';

const iso = (d: Date) => d.toISOString();

describe('cotReportPublishedAt: the release that carried a COT report', () => {
  it('is the Friday 15:30 New York time after the Tuesday (EST: 20:30Z)', () => {
    expect(iso(cotReportPublishedAt('2025-02-25'))).toBe('2025-02-28T20:30:00.000Z');
    expect(iso(cotReportPublishedAt('2025-03-04'))).toBe('2025-03-07T20:30:00.000Z');
  });

  it('follows daylight saving time (EDT: 19:30Z), on both sides of each change', () => {
    // DST began Sunday 2025-03-09; it ended Sunday 2024-11-03
    expect(iso(cotReportPublishedAt('2025-03-11'))).toBe('2025-03-14T19:30:00.000Z');
    expect(iso(cotReportPublishedAt('2024-10-29'))).toBe('2024-11-01T19:30:00.000Z');
    expect(iso(cotReportPublishedAt('2024-11-05'))).toBe('2024-11-08T20:30:00.000Z');
  });

  it('moves a Thanksgiving week report to the Monday after', () => {
    expect(iso(cotReportPublishedAt('2024-11-26'))).toBe('2024-12-02T20:30:00.000Z');
  });

  it("dates a report of Monday's positions (Tuesday a holiday) in its own week", () => {
    // Veterans Day on Tuesday 2031-11-11: Monday's positions, the usual Friday
    expect(iso(cotReportPublishedAt('2031-11-10'))).toBe('2031-11-14T20:30:00.000Z');
    // Christmas on Tuesday 2029-12-25
    expect(iso(cotReportPublishedAt('2029-12-24'))).toBe('2029-12-28T20:30:00.000Z');
  });

  it('dates a report a shutdown held back by the CFTC catch-up schedule (point in time)', () => {
    // 2025: the report of 09-30 on Wednesday 11-19, the one of 10-07 on Friday 11-21 (EST: 20:30Z)
    expect(iso(cotReportPublishedAt('2025-09-30'))).toBe('2025-11-19T20:30:00.000Z');
    expect(iso(cotReportPublishedAt('2025-10-07'))).toBe('2025-11-21T20:30:00.000Z');
    // Veterans Day Tuesday 2025-11-11: Monday's positions, published 12-12
    expect(iso(cotReportPublishedAt('2025-11-10'))).toBe('2025-12-12T20:30:00.000Z');
    expect(iso(cotReportPublishedAt('2025-12-16'))).toBe('2026-01-06T20:30:00.000Z');
    // 2018-19: Monday 2018-12-24 (Christmas Tuesday) on Friday 2019-02-01
    expect(iso(cotReportPublishedAt('2018-12-24'))).toBe('2019-02-01T20:30:00.000Z');
    // Back on the normal schedule: the report before the shutdown, and after the catch-up
    expect(iso(cotReportPublishedAt('2025-09-23'))).toBe('2025-09-26T19:30:00.000Z');
    expect(iso(cotReportPublishedAt('2026-01-27'))).toBe('2026-01-30T20:30:00.000Z');
  });
});

describe('lastReleaseAtOrBefore: the release a fetch can have seen, without the lateness grace', () => {
  it('takes a release from its scheduled instant on, where lastDueRelease waits for the grace', () => {
    // WPSR Wednesday 2025-03-12 10:30 EDT = 14:30Z
    const justAfter = new Date('2025-03-12T14:35:00Z');
    expect(lastReleaseAtOrBefore('eia', justAfter)).toMatchObject({ date: '2025-03-12', time: '10:30' });
    expect(lastDueRelease('eia', justAfter)).toMatchObject({ date: '2025-03-05' });
    expect(lastReleaseAtOrBefore('eia', new Date('2025-03-12T14:29:59Z'))).toMatchObject({ date: '2025-03-05' });
  });

  it('is never after the instant asked', () => {
    for (const source of ['cftc', 'eia', 'nass', 'worldbank', 'ams'] as const) {
      const now = new Date('2026-01-12T18:00:00Z');
      expect(lastReleaseAtOrBefore(source, now).at.getTime()).toBeLessThanOrEqual(now.getTime());
    }
  });
});
