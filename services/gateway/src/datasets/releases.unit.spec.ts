import { BACKFILL_AFTER_MS, datasetById, type LedgerEntry } from '@cds/contracts';
import { easternInstant } from '@cds/schedule';
import { describe, expect, it } from 'vitest';
import { lagText, monthlyLag, monthsBetween } from './conditions.ts';
import { LedgerIndex } from './ledger-index.ts';
import { judgeCalendar, judgeRelease, observedReleases, type CalendarRelease } from './releases.ts';

const legacy = datasetById('cftc_legacy')!;
const spot = datasetById('eia_spot_prices')!;
const GRACE = 2 * 3_600_000;

/** A COT release of Friday 2025-11-21 15:30 ET, carrying the positions of Tuesday 2025-10-07 (the 2025 catch-up). */
const catchUp: CalendarRelease = {
  rule: 'cot-weekly',
  report: 'Commitments of Traders',
  date: '2025-11-21',
  time: '15:30',
  at: easternInstant('2025-11-21', '15:30'),
  dataDate: '2025-10-07',
  shifted: {
    from: easternInstant('2025-10-10', '15:30'),
    reason: '2025 federal government shutdown: CFTC catch-up schedule',
  },
};
const atMs = catchUp.at.getTime();
const entry = (lo: string, hi: string, fMs: number, over: Partial<LedgerEntry> = {}): LedgerEntry => ({
  lo,
  hi,
  f: new Date(fMs).toISOString(),
  p: catchUp.at.toISOString(),
  ...over,
});
const judge = (entries: LedgerEntry[], nowMs: number, release = catchUp) =>
  judgeRelease(legacy, release, {
    entries: new LedgerIndex(entries),
    previousDataDate: '2025-09-30',
    graceMs: GRACE,
    nowMs,
  });

describe('judgeRelease (docs/freshness.md)', () => {
  it('a release served within the grace is published, with its lag, shift and publication time', () => {
    const j = judge([entry('2025-10-07', '2025-10-07', atMs + 600_000, { e: true })], atMs + 3 * 86_400_000);
    expect(j.record).toEqual({
      dataset: 'cftc_legacy',
      report: 'Commitments of Traders',
      scheduled_at: '2025-11-21T20:30:00.000Z',
      local_date: '2025-11-21',
      data_date: '2025-10-07',
      status: 'published',
      shifted: { from: '2025-10-10T19:30:00.000Z', reason: '2025 federal government shutdown: CFTC catch-up schedule' },
      first_served_at: '2025-11-21T20:40:00.000Z',
      lag_seconds: 600,
      published_at: '2025-11-21T20:30:00.000Z',
      published_at_estimated: true,
    });
    expect(j.sinceMs).toBeUndefined();
  });

  it('the earliest first-served time among the entries holding its data counts', () => {
    const j = judge(
      [
        entry('2025-10-01', '2025-10-07', atMs + 900_000),
        entry('2025-10-07', '2025-10-07', atMs + 300_000, { p: '2025-11-22T10:00:00.000Z' }),
      ],
      atMs + 86_400_000,
    );
    expect(j.record).toMatchObject({ status: 'published', lag_seconds: 300 });
  });

  it('served after the grace: late, since the grace ended; not served: scheduled, late, then missing', () => {
    const served = judge([entry('2025-10-07', '2025-10-07', atMs + GRACE + 1)], atMs + 86_400_000);
    expect(served.record).toMatchObject({ status: 'late', lag_seconds: (GRACE + 1) / 1000 });
    expect(served.sinceMs).toBe(atMs + GRACE);

    expect(judge([], atMs - 1).record.status).toBe('scheduled');
    expect(judge([], atMs + GRACE - 1).record.status).toBe('scheduled');
    const late = judge([], atMs + GRACE);
    expect(late.record).toMatchObject({ status: 'late', first_served_at: null, lag_seconds: null });
    expect(late.sinceMs).toBe(atMs + GRACE);
    expect(judge([], atMs + BACKFILL_AFTER_MS - 1).record.status).toBe('late');
    const missing = judge([], atMs + BACKFILL_AFTER_MS);
    expect(missing.record.status).toBe('missing');
    expect(missing.sinceMs).toBe(atMs + BACKFILL_AFTER_MS);
  });

  it('served more than 7 days after its time: published and backfilled (loaded afterwards)', () => {
    const j = judge([entry('2020-01-01', '2025-10-31', atMs + BACKFILL_AFTER_MS + 1)], atMs + 30 * 86_400_000);
    expect(j.record).toMatchObject({ status: 'published', backfilled: true });
    expect(j.sinceMs).toBeUndefined();
  });

  it('only data after the previous release counts: an entry of older dates does not serve it', () => {
    // Holds 2025-09-30 (the previous release's date) but nothing after it.
    const j = judge([entry('2025-09-20', '2025-09-30', atMs - 86_400_000)], atMs + 86_400_000);
    expect(j.record.status).toBe('late');
  });

  it('a release whose data date has no observation (a holiday Friday) is served by the days before it', () => {
    // The WPSR of Wednesday 2025-04-23 carries the spot prices through Friday 04-18 (Good Friday: none that day).
    const wpsr: CalendarRelease = {
      rule: 'wpsr-weekly',
      report: 'Weekly Petroleum Status Report',
      date: '2025-04-23',
      time: '10:30',
      at: easternInstant('2025-04-23', '10:30'),
      dataDate: '2025-04-18',
    };
    const served = wpsr.at.getTime() + 1_800_000;
    const j = judgeRelease(spot, wpsr, {
      entries: new LedgerIndex([
        { lo: '2025-04-14', hi: '2025-04-17', f: new Date(served).toISOString(), p: wpsr.at.toISOString() },
      ]),
      previousDataDate: '2025-04-11',
      graceMs: GRACE,
      nowMs: served + 1,
    });
    expect(j.record).toMatchObject({ status: 'published', lag_seconds: 1800 });
  });

  it('a cancelled release is cancelled, with the reason, whatever the ledger holds', () => {
    const j = judge([], atMs + BACKFILL_AFTER_MS * 2, { ...catchUp, cancelled: 'not published' });
    expect(j.record).toMatchObject({ status: 'cancelled', cancelled_reason: 'not published', first_served_at: null });
  });
});

describe('judgeCalendar', () => {
  it("lists the window's releases oldest first, each served after the previous release's data date", () => {
    const release = (date: string, dataDate: string, cancelled?: string): CalendarRelease => ({
      rule: 'cot-weekly',
      report: 'Commitments of Traders',
      date,
      time: '15:30',
      at: easternInstant(date, '15:30'),
      dataDate,
      ...(cancelled === undefined ? {} : { cancelled }),
    });
    const calendar = [
      release('2025-09-12', '2025-09-09'),
      release('2025-09-19', '2025-09-16'),
      release('2025-09-26', '2025-09-23', 'closed'),
      release('2025-10-03', '2025-09-30'),
    ];
    const f = (date: string) => easternInstant(date, '15:40').toISOString();
    const entries: LedgerEntry[] = [
      { lo: '2025-09-09', hi: '2025-09-09', f: f('2025-09-12'), p: f('2025-09-12') },
      { lo: '2025-09-16', hi: '2025-09-16', f: f('2025-09-19'), p: f('2025-09-19') },
      // The 09-23 data came with the next release (the cancelled one's previous data date is skipped).
      { lo: '2025-09-23', hi: '2025-09-30', f: f('2025-10-03'), p: f('2025-10-03') },
    ];
    const judged = judgeCalendar(legacy, calendar, {
      entries: new LedgerIndex(entries),
      graceMs: GRACE,
      nowMs: Date.parse('2025-10-10T00:00:00Z'),
      startDate: '2025-09-15',
      endDate: '2025-10-31',
    });
    expect(judged.map((j) => [j.record.local_date, j.record.status, j.record.lag_seconds])).toEqual([
      ['2025-09-19', 'published', 600],
      ['2025-09-26', 'cancelled', null],
      ['2025-10-03', 'published', 600],
    ]);
  });
});

describe('observedReleases (a dataset no rule computes)', () => {
  it('lists its ledger entries in the window by their publication date in New York, unscheduled', () => {
    const monthly = datasetById('eia_monthly')!;
    const judged = observedReleases(
      monthly,
      new LedgerIndex([
        { lo: '2025-07-31', hi: '2025-07-31', f: '2025-09-30T15:00:00.000Z', p: '2025-09-30T14:00:00.000Z' },
        // 01:00Z on Nov 1 is still Oct 31 in New York.
        { lo: '2025-08-31', hi: '2025-08-31', f: '2025-11-01T01:05:00.000Z', p: '2025-11-01T01:00:00.000Z', e: true },
      ]),
      { startDate: '2025-10-01', endDate: '2025-10-31' },
    );
    expect(judged.map((j) => j.record)).toEqual([
      {
        dataset: 'eia_monthly',
        report: monthly.title,
        scheduled_at: null,
        local_date: '2025-10-31',
        data_date: '2025-08-31',
        status: 'published',
        first_served_at: '2025-11-01T01:05:00.000Z',
        lag_seconds: null,
        published_at: '2025-11-01T01:00:00.000Z',
        published_at_estimated: true,
      },
    ]);
  });
});

describe('monthlyLag', () => {
  it('p50 and p95 by nearest rank over the releases served live; backfilled, cancelled and unserved ones left out', () => {
    const rec = (local_date: string, lag: number | null, more: object = {}) => ({
      record: {
        dataset: 'cftc_legacy',
        report: 'r',
        scheduled_at: `${local_date}T20:30:00.000Z`,
        local_date,
        data_date: local_date,
        status: 'published' as const,
        first_served_at: null,
        lag_seconds: lag,
        ...more,
      },
    });
    const november = Array.from({ length: 20 }, (_, i) =>
      rec(`2025-11-${String(i + 1).padStart(2, '0')}`, 60 * (i + 1)),
    );
    const lags = monthlyLag(
      [
        ...november,
        rec('2025-11-21', 999_999, { backfilled: true }),
        rec('2025-11-22', null, { status: 'late' }),
        rec('2025-11-23', null, { status: 'cancelled' }),
        rec('2025-10-03', 30),
      ],
      ['2025-12', '2025-11', '2025-10'],
    );
    expect(lags).toEqual([
      { month: '2025-12', releases: 0, p50_lag_seconds: null, p95_lag_seconds: null },
      { month: '2025-11', releases: 20, p50_lag_seconds: 600, p95_lag_seconds: 1140 },
      { month: '2025-10', releases: 1, p50_lag_seconds: 30, p95_lag_seconds: 30 },
    ]);
  });

  it('months of a window newest first, across a year end', () => {
    expect(monthsBetween('2024-11-15', '2025-02-01')).toEqual(['2025-02', '2025-01', '2024-12', '2024-11']);
  });

  it('writes a lag for people', () => {
    expect([lagText(45), lagText(600), lagText(9000), lagText(3 * 86_400 + 7200)]).toEqual([
      '45 s',
      '10 min',
      '2 h 30 min',
      '3 d 2 h',
    ]);
  });
});

describe('LedgerIndex', () => {
  it('finds the earliest served entry holding a date in a range, past entries that end before it, in any order given', () => {
    const e = (lo: string, hi: string, f: string): LedgerEntry => ({ lo, hi, f, p: f });
    const index = new LedgerIndex([
      e('2025-03-01', '2025-03-07', '2025-03-12T15:00:00.000Z'),
      e('2020-01-01', '2025-02-28', '2025-03-01T00:00:00.000Z'),
      e('2025-03-08', '2025-03-14', '2025-03-19T15:00:00.000Z'),
      e('2025-03-05', '2025-03-05', '2025-03-10T15:00:00.000Z'),
    ]);
    expect(index.entries.map((x) => x.lo)).toEqual(['2020-01-01', '2025-03-01', '2025-03-05', '2025-03-08']);
    expect(index.firstServed('2025-03-07', '2025-02-28')?.entry.f).toBe('2025-03-10T15:00:00.000Z');
    expect(index.firstServed('2025-03-14', '2025-03-07')?.entry.f).toBe('2025-03-19T15:00:00.000Z');
    expect(index.firstServed('2025-02-14', undefined)?.entry.f).toBe('2025-03-01T00:00:00.000Z');
    expect(index.firstServed('2025-03-21', '2025-03-14')).toBeUndefined();
    expect(LedgerIndex.EMPTY.firstServed('2025-03-21', undefined)).toBeUndefined();
  });
});
