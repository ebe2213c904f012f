import {
  CONDITION_DAYS,
  cotSeriesType,
  DATASETS,
  SUPPLY_DEMAND_SERIES_TYPE,
  type ConsistencyDay,
  type CotDataset,
  type DatasetRow,
  type DatasetSummary,
  type Incident,
  type MonthlyLag,
  type ReleaseRecord,
  type ReleaseRule,
} from '@cds/contracts';
import { addDays, easternInstant, LATE_GRACE_MS, localParts } from '@cds/schedule';
import type { z } from 'zod';
import type { CotChecksView } from '../status/cot-checks.ts';
import type { SourceErrorsView } from '../status/sync-state.ts';
import { judgeDays, monthlyLag, monthsBetween, type JudgedDay } from './conditions.ts';
import {
  judgeCalendar,
  observedReleases,
  type CalendarOf,
  type CalendarRelease,
  type JudgedRelease,
} from './releases.ts';
import type { IncidentView, LedgerView } from './tables.ts';

const DAY_MS = 86_400_000;
/** How far around today the board judges each calendar: the last release of a quarterly rule, 12 months of lag. */
const SPAN_DAYS = 400;
/** How far before a window the calendar is read, for its first release's previous data date. */
const LOOKBACK_DAYS = 120;
/** Windows of GET /releases kept (each recomputed at most once a second). */
const WINDOWS_KEPT = 64;

export interface DatasetsBoardSources {
  ledgers: LedgerView;
  incidents: IncidentView;
  errors: SourceErrorsView;
  checks?: CotChecksView | undefined;
  calendar: CalendarOf;
}

/** A non-available day of a dataset, for the feed. */
export interface ConditionChange {
  dataset: DatasetRow;
  day: JudgedDay['day'];
  /** Since when the condition holds (ms). */
  atMs: number;
}

export interface DatasetsDocument {
  data: DatasetSummary[];
  incidents: Incident[];
  /** Every day of the window whose condition is not `available`, newest first. */
  changes: ConditionChange[];
}

export interface ReleasesWindow {
  records: readonly ReleaseRecord[];
  freshness: z.infer<typeof MonthlyLag>[];
}

export interface DatasetsBoard {
  /** Every dataset's summary and the incidents at `nowMs` (recomputed at most once a second). */
  document(nowMs: number): DatasetsDocument;
  /** A dataset's releases dated `startDate`..`endDate`, oldest first, and the lag per month of the window. */
  releases(dataset: DatasetRow, startDate: string, endDate: string, nowMs: number): ReleasesWindow;
}

/** The New York date of an instant. */
export const localDate = (ms: number): string => localParts(new Date(ms)).date;

/** The dataset each consistency failure counts under, and whether its date is the data date (COT) or the release's own date (balance sheets). */
const CHECKED = new Map<string, { dataset: string; byDataDate: boolean }>();
for (const d of DATASETS) {
  for (const s of d.select) {
    if (s.kind === 'cot') CHECKED.set(cotSeriesType(s.dataset as CotDataset), { dataset: d.id, byDataDate: true });
    if (s.kind === 'supply_demand') CHECKED.set(SUPPLY_DEMAND_SERIES_TYPE, { dataset: d.id, byDataDate: false });
  }
}

/** A dataset's consistency failures by the local date of the release that carried them. */
function checksByDay(
  dataset: DatasetRow,
  failures: readonly ConsistencyDay[],
  releases: readonly JudgedRelease[],
): Map<string, ConsistencyDay[]> {
  const out = new Map<string, ConsistencyDay[]>();
  for (const c of failures) {
    const checked = CHECKED.get(c.dataset);
    if (checked?.dataset !== dataset.id) continue;
    let day: string | undefined = c.date;
    if (checked.byDataDate) {
      const carrier = releases.find((r) => r.record.status !== 'cancelled' && r.record.data_date >= c.date);
      day = carrier?.record.local_date;
    }
    if (day === undefined) continue;
    out.set(day, [...(out.get(day) ?? []), c]);
  }
  return out;
}

/** The incidents GET /datasets lists: open, or started in the last CONDITION_DAYS days; newest first. */
export function recentIncidents(all: readonly Incident[], nowMs: number): Incident[] {
  const since = nowMs - CONDITION_DAYS * DAY_MS;
  return all
    .filter((i) => i.state !== 'resolved' || Date.parse(i.started_at) >= since)
    .sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at));
}

/**
 * The datasets board: every dataset judged from memory (the followed ledger, error days, consistency
 * failures and incidents) against its calendar (docs/freshness.md). Calendars depend on the date
 * alone and are kept per rule for the day.
 */
export function createDatasetsBoard(src: DatasetsBoardSources): DatasetsBoard {
  const calendars = new Map<ReleaseRule, { today: string; releases: readonly CalendarRelease[] }>();
  const calendarAround = (rule: ReleaseRule, today: string) => {
    let kept = calendars.get(rule);
    if (kept?.today !== today) {
      kept = { today, releases: src.calendar(rule, addDays(today, -SPAN_DAYS), addDays(today, SPAN_DAYS)) };
      calendars.set(rule, kept);
    }
    return kept.releases;
  };

  const judge = (
    d: DatasetRow,
    calendar: readonly CalendarRelease[] | undefined,
    nowMs: number,
    startDate: string,
    endDate: string,
  ): JudgedRelease[] => {
    const entries = src.ledgers.entries(d.id);
    if (calendar === undefined) return observedReleases(d, entries, { startDate, endDate });
    return judgeCalendar(d, calendar, { entries, graceMs: LATE_GRACE_MS[d.source], nowMs, startDate, endDate });
  };

  const summarize = (d: DatasetRow, nowMs: number, failures: readonly ConsistencyDay[]) => {
    const today = localDate(nowMs);
    const span = { start: addDays(today, -SPAN_DAYS), end: addDays(today, SPAN_DAYS) };
    const judged = judge(d, d.rule === null ? undefined : calendarAround(d.rule, today), nowMs, span.start, span.end);
    const dates = Array.from({ length: CONDITION_DAYS }, (_, i) => addDays(today, -i));
    const days = judgeDays(dates, {
      releases: judged,
      checks: checksByDay(d, failures, judged),
      errors: src.errors.errorDays(d.source),
    });
    const past = judged.filter((r) => r.record.status !== 'cancelled' && (r.atMs ?? 0) <= nowMs);
    const next = judged.find((r) => r.record.status !== 'cancelled' && r.atMs !== undefined && r.atMs > nowMs);
    const summary: DatasetSummary = {
      id: d.id,
      source: d.source,
      title: d.title,
      calendar_rule: d.rule,
      condition: days[0]!.day.condition,
      days: days.map((j) => j.day),
      last_release: past.at(-1)?.record ?? null,
      next_release: next?.record ?? null,
      freshness: monthlyLag(judged, monthsBetween(addDays(today, -365), today).slice(0, 12)),
    };
    const changes = days
      .filter((j) => j.day.condition !== 'available')
      .map((j) => ({
        dataset: d,
        day: j.day,
        atMs: Math.min(nowMs, j.sinceMs ?? easternInstant(j.day.date, '00:00').getTime()),
      }));
    return { summary, changes };
  };

  let cached: { second: number; doc: DatasetsDocument } | undefined;
  const windows = new Map<string, { second: number; calendar?: readonly CalendarRelease[]; window: ReleasesWindow }>();

  return {
    document(nowMs) {
      const second = Math.floor(nowMs / 1000);
      if (cached?.second === second) return cached.doc;
      const failures = src.checks?.consistency(nowMs) ?? [];
      const judged = DATASETS.map((d) => summarize(d, nowMs, failures));
      const doc: DatasetsDocument = {
        data: judged.map((j) => j.summary),
        incidents: recentIncidents(src.incidents.all(), nowMs),
        changes: judged.flatMap((j) => j.changes).sort((a, b) => b.atMs - a.atMs),
      };
      cached = { second, doc };
      return doc;
    },
    releases(d, startDate, endDate, nowMs) {
      const second = Math.floor(nowMs / 1000);
      const key = `${d.id}|${startDate}|${endDate}`;
      const kept = windows.get(key);
      if (kept?.second === second) return kept.window;
      const calendar =
        kept?.calendar ??
        (d.rule === null ? undefined : src.calendar(d.rule, addDays(startDate, -LOOKBACK_DAYS), endDate));
      const judged = judge(d, calendar, nowMs, startDate, endDate);
      const window = {
        records: judged.map((j) => j.record),
        freshness: monthlyLag(judged, monthsBetween(startDate, endDate)),
      };
      if (!windows.has(key) && windows.size >= WINDOWS_KEPT) windows.clear();
      windows.set(key, { second, ...(calendar === undefined ? {} : { calendar }), window });
      return window;
    },
  };
}
