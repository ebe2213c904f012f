import type { CotReportsBatch, DataEvent } from '@cds/contracts';
import {
  cotBucketId,
  releaseFolder,
  type CotBucketDoc,
  type ItemKind,
  type ReleaseStamp,
  type StoredCotReport,
  type StoredGroup,
  yearOf,
} from '@cds/read-models';
import { cotReportStamp as calendarStamp } from '@cds/schedule';
import { firstSeenOf, stampOf } from '../releases.ts';
import {
  commodityOf,
  cotReportSource,
  dateRange,
  changeLog,
  nextMeta,
  withVersions,
  readPath,
  type EvolvedDoc,
  type Projection,
} from '../types.ts';

type Report = CotReportsBatch['reports'][number];

const GROUPS = {
  legacy: ['commercial', 'non_commercial', 'non_reportable'],
  disaggregated: ['producer_merchant', 'swap_dealer', 'managed_money', 'other_reportable'],
} as const;

function groupsOf(format: CotBucketDoc['format'], report: Report): Record<string, StoredGroup> {
  const out: Record<string, StoredGroup> = {};
  const r = report as unknown as Record<string, { long: number; short: number; spreading?: number }>;
  for (const name of GROUPS[format]) {
    const g = r[name];
    if (g === undefined) continue;
    out[name] =
      g.spreading === undefined
        ? { long: g.long, short: g.short }
        : { long: g.long, short: g.short, spreading: g.spreading };
  }
  return out;
}

function sameGroups(a: Record<string, StoredGroup>, b: Record<string, StoredGroup>): boolean {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((n) => {
    const x = a[n]!;
    const y = b[n];
    return y !== undefined && x.long === y.long && x.short === y.short && x.spreading === y.spreading;
  });
}

/** Reports are dated by `report_date` and equal when their positions are (not their provenance or release). */
export const REPORT_KIND: ItemKind<StoredCotReport> = {
  dateOf: (r) => r.report_date,
  same: (a, b) => a.open_interest === b.open_interest && a.exchange === b.exchange && sameGroups(a.groups, b.groups),
};

/**
 * A report's release: its stated `published_at`, else the CFTC calendar's Friday 15:30 New York
 * (estimated; the stamp the ingest gives, libs/schedule `cotReportStamp`).
 */
export function cotReportRelease(report: Report, firstSeenAt: string): ReleaseStamp {
  const calendar = report.published_at === undefined ? calendarPublishedAt(report.report_date) : undefined;
  // the calendar's instant is `toISOString` text already: nothing to normalize
  if (calendar !== undefined) return { publishedAt: calendar, firstSeenAt, estimated: true };
  return stampOf(report, () => calendarPublishedAt(report.report_date) ?? firstSeenAt, firstSeenAt);
}

/** The calendar's publication per report date, remembered: working it out (time zones, holidays) is most of a fold. */
const calendar = new Map<string, string | undefined>();
const CALENDAR_ENTRIES = 50_000;

function calendarPublishedAt(reportDate: string): string | undefined {
  if (calendar.has(reportDate)) return calendar.get(reportDate);
  if (calendar.size >= CALENDAR_ENTRIES) calendar.clear();
  const published = calendarStamp(reportDate).published_at;
  calendar.set(reportDate, published);
  return published;
}

function toStored(event: DataEvent & { type: 'cot.reports.recorded' }, report: Report): StoredCotReport {
  const stored: StoredCotReport = {
    report_date: report.report_date,
    open_interest: report.open_interest,
    groups: groupsOf(event.data.format, report),
  };
  if (report.exchange !== undefined) stored.exchange = report.exchange;
  const source = cotReportSource(event, report);
  if (source !== undefined) stored.source = source;
  stored.last_updated = event.occurred_at;
  return stored;
}

/**
 * cot: one bucket per commodity, format and calendar year (`CotBucketDoc`), reports sorted by
 * date, raw long/short/spreading only (net is computed on read). Each report is published by its
 * own release (its `published_at`, else the CFTC calendar's, estimated): the reports of an event
 * are grouped by release and each group folded with `foldRelease`, so `reports` holds the newest
 * version of each date by publication time and `revised` the older ones, whatever order events
 * arrive in. A version keeps the `source` and the `occurred_at` (as `last_updated`) of the event
 * that wrote it; a report that only repeats the version in force leaves it as it is, and an event
 * that changes no version leaves the document as it is (no write). A batch's events are folded at
 * once (`evolveAll`, as the series projection does).
 */
export const cotProjection: Projection<CotBucketDoc> = {
  name: 'cot',
  // 3: reports and parts packed as JSON text. 4: source and last_updated per report. 5: versions.
  version: 5,
  handles: ['cot.reports.recorded'],
  filterSubject: 'cds.data.cot.>',
  keyOf(event) {
    if (event.type !== 'cot.reports.recorded') return [];
    const years = new Set(event.data.reports.map((r) => yearOf(r.report_date)));
    return [...years].sort().map((y) => cotBucketId(event.data.commodity_id, event.data.format, y));
  },
  commodityOf,
  changeOf(event) {
    if (event.type !== 'cot.reports.recorded') return undefined;
    const { commodity_id: commodity, format, reports } = event.data;
    const range = dateRange((reports as readonly Report[]).map((r) => r.report_date));
    if (range === undefined) return undefined;
    return {
      type: 'cot.updated',
      commodity,
      topic: `cot_${format}`,
      format,
      first_date: range.first,
      newest_date: range.newest,
      path: readPath('cot', commodity, { format, start_date: range.first, end_date: range.newest }),
    };
  },
  initial(id) {
    // `${commodity}:${format}:${year}`; commodity ids are UPPER_SNAKE_CASE, so ':' only separates.
    const [commodityId = '', format = 'legacy', year = '0'] = id.split(':');
    return {
      _id: id,
      commodity_id: commodityId,
      format: format as CotBucketDoc['format'],
      year: Number(year),
      first_date: '',
      last_date: '',
      count: 0,
      reports: [],
      _meta: { position: 0, version: 5 },
    };
  },
  evolve(doc, event: DataEvent, position) {
    return evolveAll(doc, [{ event, position }]).doc;
  },
  evolveAll,
};

function evolveAll(
  doc: CotBucketDoc,
  events: readonly { event: DataEvent; position: number }[],
): EvolvedDoc<CotBucketDoc> {
  const held = { current: doc.reports, revised: doc.revised ?? [], releases: doc.releases ?? [] };
  const folder = releaseFolder(held, REPORT_KIND);
  // Which events the document reflects (the runner's `reflected`: change records after a crash):
  // the latest event that changed each report date's versions. The versions' order is publication time.
  const log = changeLog(doc._meta);
  for (const { event, position: at } of events) {
    if (event.type !== 'cot.reports.recorded') continue;
    const { commodity_id: commodityId, format } = event.data;
    if (commodityId !== doc.commodity_id || format !== doc.format) continue;
    const firstSeen = firstSeenOf(event);
    const releases = new Map<string, { stamp: ReleaseStamp; items: StoredCotReport[] }>();
    for (const report of event.data.reports as readonly Report[]) {
      if (yearOf(report.report_date) !== doc.year) continue;
      const stamp = cotReportRelease(report, firstSeen);
      const key = `${stamp.publishedAt}|${stamp.estimated}`;
      const group = releases.get(key) ?? releases.set(key, { stamp, items: [] }).get(key)!;
      group.items.push(toStored(event, report));
    }
    const changedDates = new Set<string>();
    let changed = false;
    for (const { stamp, items } of releases.values()) changed = folder.fold(stamp, items, changedDates) || changed;
    if (changed) log.record(at, changedDates);
  }
  const { changedBy } = log;
  if (changedBy.length === 0) return { doc, changedBy };
  const folded = folder.parts();
  const reports = folded.current;
  const next: CotBucketDoc = {
    _id: doc._id,
    commodity_id: doc.commodity_id,
    format: doc.format,
    year: doc.year,
    first_date: reports[0]?.report_date ?? '',
    last_date: reports.at(-1)?.report_date ?? '',
    count: reports.length,
    reports,
    _meta: nextMeta(doc._meta, cotProjection.version, log.position, log.parts),
  };
  return { doc: withVersions(next, folded), changedBy };
}
