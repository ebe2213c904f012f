import { describe, expect, it } from 'vitest';
import { freshnessOf, lastDueRelease, nextRelease, pinkSheetRelease } from './index.ts';

const at = (iso: string) => new Date(iso);

describe('CFTC: late 2 h after Friday 15:30 ET without that Tuesday', () => {
  // Friday 2026-11-20, 15:30 EST = 20:30Z; the grace ends at 22:30Z.
  it('is not late before the grace ends, late after it', () => {
    // The week before, Veterans Day (Wednesday 11-11) moved the release to Monday 11-16.
    const before = freshnessOf('cftc', '2026-11-10', at('2026-11-20T22:29:00Z'));
    expect(before.due).toMatchObject({ date: '2026-11-16', dataDate: '2026-11-10', shiftedBy: 'Veterans Day' });
    expect(before.late).toBe(false);
    // Released at 20:30Z already: the next one is Thanksgiving week's, moved to Monday.
    expect(before.next).toMatchObject({ date: '2026-11-30', time: '15:30' });
    expect(nextRelease('cftc', at('2026-11-20T20:29:00Z'))).toMatchObject({ date: '2026-11-20', time: '15:30' });

    const after = freshnessOf('cftc', '2026-11-10', at('2026-11-20T22:30:00Z'));
    expect(after.due).toMatchObject({ date: '2026-11-20', dataDate: '2026-11-17' });
    expect(after.late).toBe(true);
    expect(freshnessOf('cftc', '2026-11-17', at('2026-11-20T22:30:00Z')).late).toBe(false);
  });

  it('follows a Thanksgiving shift to Monday: not late on the usual Friday, late on the Monday', () => {
    const friday = freshnessOf('cftc', '2026-11-17', at('2026-11-27T23:00:00Z'));
    expect(friday.late).toBe(false);
    expect(friday.next).toMatchObject({ date: '2026-11-30', time: '15:30', dataDate: '2026-11-24' });
    expect(friday.next.shiftedBy).toBe('Thanksgiving Day');
    const monday = freshnessOf('cftc', '2026-11-17', at('2026-11-30T22:31:00Z'));
    expect(monday.due).toMatchObject({ date: '2026-11-30', dataDate: '2026-11-24' });
    expect(monday.late).toBe(true);
  });

  it('Christmas and New Year on Fridays (2026-12-25, 2027-01-01) move the releases to the Mondays after', () => {
    expect(nextRelease('cftc', at('2026-12-24T12:00:00Z'))).toMatchObject({
      date: '2026-12-28',
      dataDate: '2026-12-22',
    });
    expect(nextRelease('cftc', at('2026-12-31T12:00:00Z'))).toMatchObject({
      date: '2027-01-04',
      dataDate: '2026-12-29',
    });
    expect(lastDueRelease('cftc', at('2027-01-02T12:00:00Z'))).toMatchObject({ date: '2026-12-28' });
  });

  it('a Tuesday holiday makes the report carry Monday positions (Veterans Day 2025, caught up on 12-12)', () => {
    expect(lastDueRelease('cftc', at('2025-12-13T12:00:00Z'))).toMatchObject({
      date: '2025-12-12',
      dataDate: '2025-11-10',
      shiftedBy: '2025 federal government shutdown: catch-up schedule',
    });
  });

  it('follows the 2025 shutdown catch-up: not late while the CFTC published nothing, late after a catch-up day', () => {
    // 2025-11-15: the last release held was the one of 09-26 (report of 09-23); the next, 11-19, has 09-30.
    const during = freshnessOf('cftc', '2025-09-23', at('2025-11-15T12:00:00Z'));
    expect(during.due).toMatchObject({ date: '2025-09-26', dataDate: '2025-09-23' });
    expect(during.next).toMatchObject({ date: '2025-11-19', time: '15:30', dataDate: '2025-09-30' });
    expect(during.late).toBe(false);
    // Wednesday 2025-11-19 15:30 EST = 20:30Z, the grace ends at 22:30Z
    expect(freshnessOf('cftc', '2025-09-23', at('2025-11-19T22:31:00Z')).late).toBe(true);
    expect(freshnessOf('cftc', '2025-09-30', at('2025-11-19T22:31:00Z')).late).toBe(false);
    // 2018-19: nothing from the release of 2018-12-21 until 2019-02-01
    expect(lastDueRelease('cftc', at('2019-01-25T23:00:00Z'))).toMatchObject({
      date: '2018-12-21',
      dataDate: '2018-12-18',
    });
  });

  it('uses Eastern daylight time in summer (15:30 EDT = 19:30Z)', () => {
    expect(lastDueRelease('cftc', at('2026-03-13T21:29:00Z')).date).toBe('2026-03-06');
    expect(lastDueRelease('cftc', at('2026-03-13T21:30:00Z')).date).toBe('2026-03-13');
  });

  it('a source that never synced is late', () => {
    expect(freshnessOf('cftc', null, at('2026-11-24T12:00:00Z')).late).toBe(true);
  });
});

describe('EIA: the Weekly Petroleum Status Report, week ending the Friday before', () => {
  it('Wednesday 10:30 ET with the week ending the previous Friday', () => {
    const r = freshnessOf('eia', '2026-11-13', at('2026-11-25T17:31:00Z'));
    expect(r.due).toMatchObject({ date: '2026-11-25', time: '10:30', dataDate: '2026-11-20' });
    expect(r.late).toBe(true);
    expect(freshnessOf('eia', '2026-11-13', at('2026-11-25T17:29:00Z')).late).toBe(false);
    // Daily spot prices make the newest date newer than the weekly one: still fresh.
    expect(freshnessOf('eia', '2026-11-23', at('2026-11-25T17:31:00Z')).late).toBe(false);
  });

  it('a Monday holiday (MLK 2027-01-18) moves it to Thursday 11:00, so Wednesday is not late', () => {
    const wednesday = freshnessOf('eia', '2027-01-08', at('2027-01-20T20:00:00Z'));
    expect(wednesday.late).toBe(false);
    expect(wednesday.next).toMatchObject({ date: '2027-01-21', time: '11:00', dataDate: '2027-01-15' });
    // 11:00 EST = 16:00Z, grace to 18:00Z.
    expect(freshnessOf('eia', '2027-01-08', at('2027-01-21T17:59:00Z')).late).toBe(false);
    expect(freshnessOf('eia', '2027-01-08', at('2027-01-21T18:00:00Z')).late).toBe(true);
    expect(freshnessOf('eia', '2027-01-15', at('2027-01-21T18:00:00Z')).late).toBe(false);
  });

  it('Labor Day 2026 (Monday 09-07) moves it to Thursday 09-10', () => {
    expect(nextRelease('eia', at('2026-09-08T12:00:00Z'))).toMatchObject({ date: '2026-09-10', time: '11:00' });
  });
});

describe('NASS: the quarter-end reports carry stocks as of the first of their month', () => {
  it('after September, the Grain Stocks of 09-01 must be in; next is the last business day of March', () => {
    const r = freshnessOf('nass', '2026-09-01', at('2026-11-24T12:00:00Z'));
    expect(r.due).toMatchObject({ date: '2026-09-30', dataDate: '2026-09-01' });
    expect(r.late).toBe(false);
    expect(r.next).toMatchObject({ date: '2027-03-31', time: '12:00' });
    expect(freshnessOf('nass', '2026-06-01', at('2026-11-24T12:00:00Z')).late).toBe(true);
    // An annual value (dated 12-31, out in January) is newer than September's stocks.
    expect(freshnessOf('nass', '2025-12-31', at('2026-02-01T12:00:00Z')).late).toBe(false);
    // March 31 2026, 12:00 EDT = 16:00Z, grace to 18:00Z: then March 1 stocks are due.
    expect(freshnessOf('nass', '2025-12-31', at('2026-03-31T17:59:00Z')).late).toBe(false);
    expect(freshnessOf('nass', '2025-12-31', at('2026-03-31T18:00:00Z')).late).toBe(true);
    expect(freshnessOf('nass', '2026-03-01', at('2026-03-31T18:00:00Z')).late).toBe(false);
  });
});

describe('World Bank Pink Sheet: the 2nd business day of the month, late 30 h after 12:00 ET', () => {
  it('falls on the 2nd business day, as every "Updated on" date seen', () => {
    const day = (y: number, m: number) => pinkSheetRelease(y, m).date;
    // the vintages of test/fixtures (services/ingest) and the raw downloads
    expect([day(2022, 10), day(2024, 12), day(2025, 11), day(2025, 12), day(2026, 5), day(2026, 6)]).toEqual([
      '2022-10-04',
      '2024-12-03',
      '2025-11-04',
      '2025-12-02',
      '2026-05-04',
      '2026-06-02',
    ]);
    // New Year's Day on a Thursday: Friday the 2nd is the first business day, Monday the 5th the second
    expect(day(2026, 1)).toBe('2026-01-05');
  });

  it("carries the previous month's averages and is late from 18:00 ET the next day", () => {
    // December 2025 release: 2025-12-02 12:00 ET (17:00Z), due 30 h later
    expect(freshnessOf('worldbank', '2025-10-31', at('2025-12-03T22:59:00Z')).late).toBe(false);
    const due = freshnessOf('worldbank', '2025-10-31', at('2025-12-03T23:00:00Z'));
    expect(due.late).toBe(true);
    expect(due.due).toMatchObject({ date: '2025-12-02', dataDate: '2025-11-30' });
    expect(due.next).toMatchObject({ date: '2026-01-05', dataDate: '2025-12-31' });
    expect(freshnessOf('worldbank', '2025-11-30', at('2025-12-03T23:00:00Z')).late).toBe(false);
    expect(freshnessOf('worldbank', null, at('2025-12-03T23:00:00Z')).late).toBe(true);
  });
});
