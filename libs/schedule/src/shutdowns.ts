/**
 * Releases a lapse in federal funding moved: the CFTC's catch-up schedules for the Commitments of
 * Traders after a shutdown, as the CFTC announced them. Data, one row per report: the report's
 * date (its positions' date) and the New York date it was, or is to be, published at 15:30 ET.
 * A row whose publish date is the report's usual release (the schedule caught up) moves nothing.
 */
interface CatchUp {
  /** Why the releases moved, as a release's `shifted.reason` says it. */
  reason: string;
  /** Report date -> publish date (both YYYY-MM-DD). */
  reports: Readonly<Record<string, string>>;
}

const CATCH_UPS: readonly CatchUp[] = [
  {
    // Announced 2019-01-29: the report of Monday 2018-12-24 on Friday 2019-02-01, then one report
    // each Tuesday and Friday until current; the normal release of 2019-03-08 cleared it.
    reason: '2018-19 federal government shutdown: catch-up schedule',
    reports: {
      '2018-12-24': '2019-02-01',
      '2018-12-31': '2019-02-05',
      '2019-01-08': '2019-02-08',
      '2019-01-15': '2019-02-12',
      '2019-01-22': '2019-02-15',
      '2019-01-29': '2019-02-19',
      '2019-02-05': '2019-02-22',
      '2019-02-12': '2019-02-26',
      '2019-02-19': '2019-03-01',
      '2019-02-26': '2019-03-05',
      '2019-03-05': '2019-03-08',
    },
  },
  {
    // The CFTC's announcement of 2025-11-18, "CFTC to resume publishing COT reports" (its table
    // of report date, original and new publish date). The report of Monday 2025-11-10 has Monday's
    // positions (Veterans Day was the Tuesday); the release of 2026-01-23 is the normal one.
    reason: '2025 federal government shutdown: catch-up schedule',
    reports: {
      '2025-09-30': '2025-11-19',
      '2025-10-07': '2025-11-21',
      '2025-10-14': '2025-11-25',
      '2025-10-21': '2025-12-02',
      '2025-10-28': '2025-12-05',
      '2025-11-04': '2025-12-09',
      '2025-11-10': '2025-12-12',
      '2025-11-18': '2025-12-16',
      '2025-11-25': '2025-12-19',
      '2025-12-02': '2025-12-23',
      '2025-12-09': '2025-12-30',
      '2025-12-16': '2026-01-06',
      '2025-12-23': '2026-01-09',
      '2025-12-30': '2026-01-13',
      '2026-01-06': '2026-01-16',
      '2026-01-13': '2026-01-20',
      '2026-01-20': '2026-01-23',
    },
  },
];

/** The local time of every catch-up release in New York (the usual COT time). */
export const COT_CATCH_UP_TIME = '15:30';

const BY_REPORT = new Map(
  CATCH_UPS.flatMap((c) => Object.entries(c.reports).map(([report, date]) => [report, { date, reason: c.reason }])),
);

/** The most days a catch-up schedule published a report after its date (so a calendar looks back far enough). */
export const COT_CATCH_UP_MAX_DAYS = Math.max(
  ...[...BY_REPORT].map(([report, { date }]) => (Date.parse(date) - Date.parse(report)) / 86_400_000),
);

/** The catch-up publish date of a COT report (by its report date) and why, or undefined for one a schedule did not move. */
export function cotCatchUp(reportDate: string): { date: string; reason: string } | undefined {
  return BY_REPORT.get(reportDate);
}
