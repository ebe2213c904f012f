import { describe, expect, it } from 'vitest';
import {
  freshnessOf,
  isBusinessDay,
  lastDueRelease,
  lastReleaseAtOrBefore,
  nextRelease,
  releasesOfYear,
  editionReleaseAt,
  editionReleasesOfYear,
} from './index.ts';

const iso = (d: Date | undefined) => d?.toISOString();
const wasde = 'wasde' as const;

describe('editionReleaseAt: the release instant of an edition', () => {
  it('is 12:00 New York on the published date: EDT in June (16:00Z), EST in January (17:00Z)', () => {
    expect(iso(editionReleaseAt('2026-06'))).toBe('2026-06-11T16:00:00.000Z');
    expect(iso(editionReleaseAt('2026-05'))).toBe('2026-05-12T16:00:00.000Z');
    expect(iso(editionReleaseAt('2026-01'))).toBe('2026-01-12T17:00:00.000Z');
    // Before 2013-01-11 USDA released at 08:30 New York (EDT: 12:30Z)
    expect(iso(editionReleaseAt('2010-07'))).toBe('2010-07-09T12:30:00.000Z');
    expect(iso(editionReleaseAt('2012-12'))).toBe('2012-12-11T13:30:00.000Z');
    expect(iso(editionReleaseAt('2013-01'))).toBe('2013-01-11T17:00:00.000Z');
  });

  it('follows the DST changes: the March release after the change, the November one after the end', () => {
    // 2026: DST from Sunday March 8 to Sunday November 1
    expect(iso(editionReleaseAt('2026-03'))).toBe('2026-03-10T16:00:00.000Z');
    expect(iso(editionReleaseAt('2026-10'))).toBe('2026-10-09T16:00:00.000Z');
    expect(iso(editionReleaseAt('2026-11'))).toBe('2026-11-10T17:00:00.000Z');
    // 2014: DST began March 9; the March 10 release is already EDT
    expect(iso(editionReleaseAt('2014-03'))).toBe('2014-03-10T16:00:00.000Z');
  });

  it('is undefined for a cancelled month (October 2013, January 2019, October 2025) and a year without a table', () => {
    expect(editionReleaseAt('2025-10')).toBeUndefined();
    expect(editionReleaseAt('2013-10')).toBeUndefined();
    expect(editionReleaseAt('2019-01')).toBeUndefined();
    expect(iso(editionReleaseAt('2019-02'))).toBe('2019-02-08T17:00:00.000Z');
    // the dates of the released files where a research list said otherwise: July and October 2021
    expect(iso(editionReleaseAt('2021-07'))).toBe('2021-07-12T16:00:00.000Z');
    expect(iso(editionReleaseAt('2021-10'))).toBe('2021-10-12T16:00:00.000Z');
    expect(editionReleaseAt('2027-01')).toBeUndefined();
    expect(editionReleaseAt('2009-12')).toBeUndefined();
    expect(editionReleaseAt('2026-13')).toBeUndefined();
    expect(editionReleaseAt('2026-6')).toBeUndefined();
  });

  it('after the 2025 shutdown: November on the 14th, December on the 9th', () => {
    expect(iso(editionReleaseAt('2025-11'))).toBe('2025-11-14T17:00:00.000Z');
    expect(iso(editionReleaseAt('2025-12'))).toBe('2025-12-09T17:00:00.000Z');
  });

  it('every tabled date is a business day between the 8th and the 14th', () => {
    for (let year = 2010; year <= 2026; year++) {
      for (const r of editionReleasesOfYear(year)) {
        if (r.report.includes('estimated')) continue;
        expect(isBusinessDay(r.date), r.date).toBe(true);
        expect(Number(r.date.slice(8)), r.date).toBeGreaterThanOrEqual(8);
        expect(Number(r.date.slice(8)), r.date).toBeLessThanOrEqual(14);
      }
    }
  });
});

describe('the supply-demand-monthly rule: releases of a year', () => {
  it('2026 has twelve, 2025 eleven (no October)', () => {
    expect(editionReleasesOfYear(2026).map((r) => r.date.slice(5))).toEqual([
      '01-12',
      '02-10',
      '03-10',
      '04-09',
      '05-12',
      '06-11',
      '07-10',
      '08-12',
      '09-11',
      '10-09',
      '11-10',
      '12-10',
    ]);
    expect(editionReleasesOfYear(2025).map((r) => r.date.slice(5, 7))).not.toContain('10');
    expect(editionReleasesOfYear(2025)).toHaveLength(11);
  });

  it('a year without a table is estimated: the 12th, or the next business day, flagged in the title', () => {
    const y2027 = editionReleasesOfYear(2027);
    expect(y2027).toHaveLength(12);
    expect(y2027.every((r) => r.report.endsWith('(date estimated)') && r.time === '12:00')).toBe(true);
    // 2027-06-12 is a Saturday: Monday the 14th
    expect(y2027[5]!.date).toBe('2027-06-14');
    // 2027-10-12 is a Tuesday
    expect(y2027[9]!.date).toBe('2027-10-12');
    expect(releasesOfYear(2027).filter((r) => r.source === wasde)).toHaveLength(12);
  });
});

describe('freshness of the supply and demand source', () => {
  it('the edition is due two hours after 12:00 New York, its data dated the first of its month', () => {
    // June 2026: 16:00Z, grace to 18:00Z
    expect(freshnessOf(wasde, '2026-05-01', new Date('2026-06-11T17:59:00Z')).late).toBe(false);
    const after = freshnessOf(wasde, '2026-05-01', new Date('2026-06-11T18:00:00Z'));
    expect(after.due).toMatchObject({ date: '2026-06-11', time: '12:00', dataDate: '2026-06-01' });
    expect(after.late).toBe(true);
    expect(after.next).toMatchObject({ date: '2026-07-10', dataDate: '2026-07-01' });
    expect(freshnessOf(wasde, '2026-06-01', new Date('2026-06-11T18:00:00Z')).late).toBe(false);
  });

  it('a cancelled month is never due: October 2025 skips from September to November 14', () => {
    const october = new Date('2025-10-20T18:00:00Z');
    const f = freshnessOf(wasde, '2025-09-01', october);
    expect(f.due.date).toBe('2025-09-12');
    expect(f.late).toBe(false);
    expect(f.next.date).toBe('2025-11-14');
    // still not late the day before November's release, late once it is due
    expect(freshnessOf(wasde, '2025-09-01', new Date('2025-11-13T20:00:00Z')).late).toBe(false);
    expect(freshnessOf(wasde, '2025-09-01', new Date('2025-11-14T19:00:00Z')).late).toBe(true);
    expect(lastReleaseAtOrBefore(wasde, new Date('2025-11-14T17:00:00Z')).date).toBe('2025-11-14');
  });

  it('runs on past the table: January 2027 is estimated on the 12th', () => {
    expect(nextRelease(wasde, new Date('2026-12-11T00:00:00Z'))).toMatchObject({ date: '2027-01-12' });
    expect(lastDueRelease(wasde, new Date('2027-01-12T19:00:00Z'))).toMatchObject({
      date: '2027-01-12',
      dataDate: '2027-01-01',
    });
  });
});
