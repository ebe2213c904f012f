import { BACKFILL_AFTER_MS, type DatasetRow, type ReleaseRecord, type ReleaseRule } from '@cds/contracts';
import { localParts, type CalendarRelease } from '@cds/schedule';
import { type LedgerIndex } from './ledger-index.ts';

export type { CalendarRelease };

/** Every release of a rule scheduled on the local dates startDate..endDate, sorted by time, cancelled ones included (libs/schedule `calendarReleases`). */
export type CalendarOf = (rule: ReleaseRule, startDate: string, endDate: string) => readonly CalendarRelease[];

/** A release judged against the ledger, with what the conditions and the feed need beside its record. */
export interface JudgedRelease {
  record: ReleaseRecord;
  /** Its scheduled instant (ms); undefined for a dataset no rule computes. */
  atMs?: number;
  /** Since when it is late or missing (ms): its time plus the grace, or plus BACKFILL_AFTER_MS. */
  sinceMs?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const DAY_MS = 86_400_000;

/**
 * A scheduled release judged at `nowMs` (docs/freshness.md). It is served by the ledger entries
 * holding a date after the previous release's data date up to its own (`previousDataDate`; only its
 * data date itself when there is no previous one), first when the earliest of them was. Cancelled:
 * `cancelled`. Served by its time plus the grace: `published`; served more than BACKFILL_AFTER_MS
 * after its time: `published` and `backfilled`; served in between: `late`. Not served: `scheduled`
 * until its time plus the grace, then `late`, and `missing` from BACKFILL_AFTER_MS after its time.
 */
export function judgeRelease(
  dataset: DatasetRow,
  release: CalendarRelease,
  opts: { entries: LedgerIndex; previousDataDate: string | undefined; graceMs: number; nowMs: number },
): JudgedRelease {
  const atMs = release.at.getTime();
  const base = {
    dataset: dataset.id,
    report: release.report,
    scheduled_at: iso(atMs),
    local_date: release.date,
    data_date: release.dataDate,
    ...(release.shifted === undefined
      ? {}
      : { shifted: { from: release.shifted.from.toISOString(), reason: release.shifted.reason } }),
  };
  if (release.cancelled !== undefined) {
    return {
      record: {
        ...base,
        status: 'cancelled',
        cancelled_reason: release.cancelled,
        first_served_at: null,
        lag_seconds: null,
      },
      atMs,
    };
  }
  const dueMs = atMs + opts.graceMs;
  const served = opts.entries.firstServed(release.dataDate, opts.previousDataDate);
  if (served === undefined) {
    const status = opts.nowMs < dueMs ? 'scheduled' : opts.nowMs - atMs < BACKFILL_AFTER_MS ? 'late' : 'missing';
    const sinceMs = status === 'late' ? dueMs : status === 'missing' ? atMs + BACKFILL_AFTER_MS : undefined;
    return {
      record: { ...base, status, first_served_at: null, lag_seconds: null },
      atMs,
      ...(sinceMs === undefined ? {} : { sinceMs }),
    };
  }
  const lagMs = served.ms - atMs;
  const backfilled = lagMs > BACKFILL_AFTER_MS;
  const late = !backfilled && served.ms > dueMs;
  return {
    record: {
      ...base,
      status: late ? 'late' : 'published',
      first_served_at: iso(served.ms),
      lag_seconds: lagMs / 1000,
      ...(backfilled ? { backfilled: true } : {}),
      published_at: served.entry.p,
      ...(served.entry.e === true ? { published_at_estimated: true } : {}),
    },
    atMs,
    ...(late ? { sinceMs: dueMs } : {}),
  };
}

/**
 * The releases of a calendar judged against a dataset's ledger, oldest first. `calendar` may start
 * before the window (its earlier releases give the first one's previous data date); only releases
 * dated `startDate`..`endDate` are returned.
 */
export function judgeCalendar(
  dataset: DatasetRow,
  calendar: readonly CalendarRelease[],
  opts: { entries: LedgerIndex; graceMs: number; nowMs: number; startDate: string; endDate: string },
): JudgedRelease[] {
  const { entries } = opts;
  const out: JudgedRelease[] = [];
  let previousDataDate: string | undefined;
  for (const release of calendar) {
    if (release.date > opts.endDate) break;
    if (release.date >= opts.startDate) {
      out.push(judgeRelease(dataset, release, { ...opts, entries, previousDataDate }));
    }
    if (release.cancelled === undefined) previousDataDate = release.dataDate;
  }
  return out;
}

/**
 * A dataset no rule computes: its releases are its ledger entries (each a stretch of data first
 * served together), dated by their publication time in New York, published, without a schedule.
 */
export function observedReleases(
  dataset: DatasetRow,
  entries: LedgerIndex,
  opts: { startDate: string; endDate: string },
): JudgedRelease[] {
  const out: JudgedRelease[] = [];
  // New York is 4 to 5 hours behind UTC: only publication times within a day of the window need its local date.
  const fromMs = Date.parse(opts.startDate) - DAY_MS;
  const toMs = Date.parse(opts.endDate) + 2 * DAY_MS;
  for (const e of entries.publishedBetween(fromMs, toMs)) {
    const localDate = localParts(new Date(e.p)).date;
    if (localDate < opts.startDate || localDate > opts.endDate) continue;
    out.push({
      record: {
        dataset: dataset.id,
        report: dataset.title,
        scheduled_at: null,
        local_date: localDate,
        data_date: e.hi,
        status: 'published',
        first_served_at: e.f,
        lag_seconds: null,
        published_at: e.p,
        ...(e.e === true ? { published_at_estimated: true } : {}),
      },
    });
  }
  return out.sort((a, b) =>
    a.record.local_date !== b.record.local_date
      ? a.record.local_date < b.record.local_date
        ? -1
        : 1
      : a.record.data_date < b.record.data_date
        ? -1
        : 1,
  );
}
