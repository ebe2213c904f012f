import type {
  ConditionReason,
  ConsistencyDay,
  DatasetCondition,
  DatasetDay,
  MonthlyLag,
  ReleaseRecord,
  SourceErrorDay,
} from '@cds/contracts';
import { localParts } from '@cds/schedule';
import type { z } from 'zod';
import type { JudgedRelease } from './releases.ts';

type Condition = z.infer<typeof DatasetCondition>;
type Reason = z.infer<typeof ConditionReason>;

/** A day's condition with, for the feed, since when it holds (ms). */
export interface JudgedDay {
  day: z.infer<typeof DatasetDay>;
  sinceMs?: number;
}

const SEVERITY: Record<Condition, number> = { available: 0, degraded: 1, late: 2, missing: 3 };
const CONDITION_OF_STATUS: Partial<Record<ReleaseRecord['status'], Condition>> = {
  late: 'late',
  missing: 'missing',
};

/** "15:30 ET" of an instant in New York. */
function easternTime(iso: string): string {
  return `${localParts(new Date(iso)).time} ET`;
}

function releaseReason(r: ReleaseRecord): Reason | undefined {
  const when = r.scheduled_at === null ? r.local_date : `${r.local_date} ${easternTime(r.scheduled_at)}`;
  const name = `${r.report} scheduled ${when} (data of ${r.data_date})`;
  switch (r.status) {
    case 'late':
      return {
        kind: 'late_release',
        message:
          r.first_served_at === null
            ? `${name} is not served yet, past its time and the grace.`
            : `${name} was served ${lagText(r.lag_seconds ?? 0)} after its time, past the grace.`,
      };
    case 'missing':
      return { kind: 'missing_release', message: `${name} was not served within 7 days of its time.` };
    case 'cancelled':
      return {
        kind: 'cancelled',
        message: `The agency cancelled the ${r.report} of ${r.local_date}: ${r.cancelled_reason ?? 'no reason given'}.`,
      };
    default:
      return undefined;
  }
}

/** "2 h 5 min", "3 d 4 h", "45 s". */
export function lagText(seconds: number): string {
  const s = Math.round(Math.abs(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

function checkReason(c: ConsistencyDay): Reason {
  const checks = Object.keys(c.checks).join(', ');
  const reports = c.failed_reports === 1 ? '1 report' : `${c.failed_reports} reports`;
  return {
    kind: 'check_failed',
    message: `${reports} dated ${c.date} failed a consistency check (${checks}): ${c.commodities.join(', ')}.`,
  };
}

function errorReason(e: SourceErrorDay): Reason {
  const runs = e.failed_runs === 1 ? '1 sync run' : `${e.failed_runs} sync runs`;
  return { kind: 'source_errors', message: `${runs} of the source failed; the last: ${e.last_error}` };
}

/**
 * Each day's condition, in the order of `dates` (docs/freshness.md): `missing` when a release of
 * the day is missing, else `late` when one is late, else `degraded` when a consistency check failed
 * on the data a release of the day carried or the source answered errors that day, else `available`
 * (a cancelled release is a reason of an available day). Every reason of the day is listed.
 */
export function judgeDays(
  dates: readonly string[],
  inputs: {
    releases: readonly JudgedRelease[];
    /** The consistency failures of the dataset by the local date of the release that carried them. */
    checks: ReadonlyMap<string, readonly ConsistencyDay[]>;
    errors: ReadonlyMap<string, SourceErrorDay>;
  },
): JudgedDay[] {
  const byDate = new Map<string, JudgedRelease[]>();
  for (const r of inputs.releases) {
    const list = byDate.get(r.record.local_date) ?? [];
    list.push(r);
    byDate.set(r.record.local_date, list);
  }
  return dates.map((date) => {
    let condition: Condition = 'available';
    let sinceMs: number | undefined;
    const reasons: Reason[] = [];
    const raise = (to: Condition, since: number | undefined) => {
      if (SEVERITY[to] > SEVERITY[condition]) condition = to;
      if (since !== undefined) sinceMs = sinceMs === undefined ? since : Math.min(sinceMs, since);
    };
    for (const r of byDate.get(date) ?? []) {
      const reason = releaseReason(r.record);
      if (reason === undefined) continue;
      reasons.push(reason);
      const to = CONDITION_OF_STATUS[r.record.status];
      if (to !== undefined) raise(to, r.sinceMs);
    }
    for (const c of inputs.checks.get(date) ?? []) {
      reasons.push(checkReason(c));
      raise('degraded', undefined);
    }
    const error = inputs.errors.get(date);
    if (error !== undefined) {
      reasons.push(errorReason(error));
      raise('degraded', Date.parse(error.last_failed_at));
    }
    return { day: { date, condition, reasons }, ...(sinceMs === undefined ? {} : { sinceMs }) };
  });
}

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * The lag per month of `months` (YYYY-MM, in the order given): over the releases scheduled that
 * month (by their New York date) and served live, not backfilled; p50 and p95 by nearest rank.
 */
export function monthlyLag(
  releases: readonly JudgedRelease[],
  months: readonly string[],
): z.infer<typeof MonthlyLag>[] {
  const lags = new Map<string, number[]>(months.map((m) => [m, []]));
  for (const { record: r } of releases) {
    if (r.scheduled_at === null || r.lag_seconds === null || r.backfilled === true || r.status === 'cancelled') {
      continue;
    }
    lags.get(r.local_date.slice(0, 7))?.push(r.lag_seconds);
  }
  return months.map((month) => {
    const sorted = (lags.get(month) ?? []).sort((a, b) => a - b);
    return {
      month,
      releases: sorted.length,
      p50_lag_seconds: percentile(sorted, 50),
      p95_lag_seconds: percentile(sorted, 95),
    };
  });
}

/** The months of local dates `startDate`..`endDate`, newest first. */
export function monthsBetween(startDate: string, endDate: string): string[] {
  const out: string[] = [];
  let [y, m] = endDate.split('-').map(Number) as [number, number];
  const first = startDate.slice(0, 7);
  for (;;) {
    const month = `${y}-${String(m).padStart(2, '0')}`;
    if (month < first) break;
    out.push(month);
    m -= 1;
    if (m === 0) {
      m = 12;
      y -= 1;
    }
  }
  return out;
}
