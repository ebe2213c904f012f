import {
  BACKFILL_AFTER_MS,
  type DatasetRow,
  type LedgerEntry,
  type ReleaseRecord,
  type ReleaseRule,
} from '@cds/contracts';
import { localParts, type CalendarRelease } from '@cds/schedule';

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

/** The entries that hold a date after `after` up to `dataDate` (only `dataDate` itself when `after` is unknown). */
function servingEntries(entries: readonly LedgerEntry[], dataDate: string, after: string | undefined): LedgerEntry[] {
  return entries.filter((e) => e.lo <= dataDate && (after === undefined ? e.hi >= dataDate : e.hi > after));
}

/** The entry first served among `serving` (the earliest `f`), if any. */
function firstServed(serving: readonly LedgerEntry[]): { entry: LedgerEntry; ms: number } | undefined {
  let best: { entry: LedgerEntry; ms: number } | undefined;
  for (const entry of serving) {
    const ms = Date.parse(entry.f);
    if (best === undefined || ms < best.ms) best = { entry, ms };
  }
  return best;
}

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
  opts: { entries: readonly LedgerEntry[]; previousDataDate: string | undefined; graceMs: number; nowMs: number },
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
  const served = firstServed(servingEntries(opts.entries, release.dataDate, opts.previousDataDate));
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
  opts: { entries: readonly LedgerEntry[]; graceMs: number; nowMs: number; startDate: string; endDate: string },
): JudgedRelease[] {
  const first = calendar.find((r) => r.date >= opts.startDate);
  // Only the entries that can serve a release of the window are scanned per release.
  const from = first === undefined ? opts.startDate : minDate(calendar, first);
  const entries = opts.entries.filter((e) => e.hi >= from);
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

/** The earliest data date the window's first release can be served by (its previous release's, else its own). */
function minDate(calendar: readonly CalendarRelease[], first: CalendarRelease): string {
  const i = calendar.indexOf(first);
  const previous = calendar.slice(0, i).findLast((r) => r.cancelled === undefined);
  return previous?.dataDate ?? first.dataDate;
}

/**
 * A dataset no rule computes: its releases are its ledger entries (each a stretch of data first
 * served together), dated by their publication time in New York, published, without a schedule.
 */
export function observedReleases(
  dataset: DatasetRow,
  entries: readonly LedgerEntry[],
  opts: { startDate: string; endDate: string },
): JudgedRelease[] {
  const out: JudgedRelease[] = [];
  for (const e of entries) {
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
