import {
  COT_CHECKS,
  COT_DATASETS,
  cotDatasetOf,
  cotSeriesType,
  type CotCheck,
  type CotDataset,
  type CotReportsBatch,
  type DataEvent,
} from '@cds/contracts';
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
  type RelatedDocs,
} from '../types.ts';

type Report = CotReportsBatch['reports'][number];

const GROUPS = {
  legacy: ['commercial', 'non_commercial', 'non_reportable'],
  disaggregated: ['producer_merchant', 'swap_dealer', 'managed_money', 'other_reportable'],
  // the CIT supplement: commercial and non-commercial excluding index traders (NoCIT)
  cit: ['commercial', 'non_commercial', 'index_traders', 'non_reportable'],
} as const;

/** The dataset a bucket id names (its middle part: `CORN:legacy_combined:2025`). */
function cotDatasetOfBucketId(id: string): CotDataset {
  const dataset = id.split(':')[1] ?? '';
  return dataset in COT_DATASETS ? (dataset as CotDataset) : 'legacy';
}

/**
 * The cross-report consistency checks (libs/contracts COT_CHECKS): for a report of each dataset,
 * the counterpart datasets of the same commodity and date it is compared with, the check, and
 * when it fails given this report's open interest and the counterpart's. The checks are run both
 * ways round: whichever report of a pair is folded second runs the check (see `crossChecks`).
 * CIT has none: its open interest is its own (only the three named checks exist).
 */
const COUNTERPARTS: Record<
  CotDataset,
  readonly { dataset: CotDataset; check: CotCheck; fails: (own: number, other: number) => boolean }[]
> = {
  legacy: [
    {
      dataset: 'legacy_combined',
      check: 'combined_oi_at_least_futures_only',
      fails: (own, combined) => combined < own,
    },
    { dataset: 'disaggregated', check: 'legacy_oi_equals_disaggregated_oi', fails: (own, other) => own !== other },
  ],
  disaggregated: [
    {
      dataset: 'disaggregated_combined',
      check: 'combined_oi_at_least_futures_only',
      fails: (own, combined) => combined < own,
    },
    { dataset: 'legacy', check: 'legacy_oi_equals_disaggregated_oi', fails: (own, other) => own !== other },
  ],
  legacy_combined: [
    { dataset: 'legacy', check: 'combined_oi_at_least_futures_only', fails: (own, futures) => own < futures },
    {
      dataset: 'disaggregated_combined',
      check: 'legacy_oi_equals_disaggregated_oi',
      fails: (own, other) => own !== other,
    },
  ],
  disaggregated_combined: [
    { dataset: 'disaggregated', check: 'combined_oi_at_least_futures_only', fails: (own, futures) => own < futures },
    { dataset: 'legacy_combined', check: 'legacy_oi_equals_disaggregated_oi', fails: (own, other) => own !== other },
  ],
  cit: [],
};

/** The bucket ids of `id`'s counterparts (same commodity and year): what its fold reads. */
function counterpartBuckets(id: string): string[] {
  const [commodityId = '', dataset = '', year = '0'] = id.split(':');
  if (!(dataset in COT_DATASETS)) return [];
  return COUNTERPARTS[dataset as CotDataset].map((c) => cotBucketId(commodityId, c.dataset, Number(year)));
}

/**
 * The checks a report fails: the source row's own (the ingest's `old_plus_other_equals_all`) and
 * the cross-report ones against the counterpart reports of the same commodity and date, as the
 * batch sees them (`open` gives a counterpart's open interest per date, undefined when it has no
 * report of that date). A check whose counterpart report is not stored yet is not run: the report
 * that completes the pair runs it and carries the failure. The CFTC publishes every report of a
 * week at once and the sync runs the futures-only datasets first (legacy before disaggregated), so
 * the flag lands on the combined or the disaggregated report; the report already stored is not
 * rewritten. In COT_CHECKS order, each once; undefined when none failed.
 */
export function crossChecks(
  dataset: CotDataset,
  report: { report_date: string; open_interest: number; failed_checks?: readonly CotCheck[] | undefined },
  open: (counterpart: CotDataset, date: string) => number | undefined,
): CotCheck[] | undefined {
  const failed = new Set<CotCheck>(report.failed_checks ?? []);
  for (const { dataset: other, check, fails } of COUNTERPARTS[dataset]) {
    const oi = open(other, report.report_date);
    if (oi !== undefined && fails(report.open_interest, oi)) failed.add(check);
  }
  return failed.size === 0 ? undefined : COT_CHECKS.filter((c) => failed.has(c));
}

/** Per counterpart dataset, its reports' open interest by date, read from a bucket once per fold. */
function counterpartOpenInterest(
  doc: CotBucketDoc,
  related: RelatedDocs<CotBucketDoc> | undefined,
): (counterpart: CotDataset, date: string) => number | undefined {
  const byDataset = new Map<CotDataset, Map<string, number> | undefined>();
  return (counterpart, date) => {
    if (related === undefined) return undefined;
    let oi = byDataset.get(counterpart);
    if (oi === undefined && !byDataset.has(counterpart)) {
      const bucket = related(cotBucketId(doc.commodity_id, counterpart, doc.year));
      oi = bucket === undefined ? undefined : new Map(bucket.reports.map((r) => [r.report_date, r.open_interest]));
      byDataset.set(counterpart, oi);
    }
    return oi?.get(date);
  };
}

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

function toStored(
  event: DataEvent & { type: 'cot.reports.recorded' },
  report: Report,
  failedChecks: CotCheck[] | undefined,
): StoredCotReport {
  const stored: StoredCotReport = {
    report_date: report.report_date,
    open_interest: report.open_interest,
    groups: groupsOf(event.data.format, report),
  };
  if (report.exchange !== undefined) stored.exchange = report.exchange;
  const source = cotReportSource(event, report);
  if (source !== undefined) stored.source = source;
  stored.last_updated = event.occurred_at;
  if (failedChecks !== undefined) stored.failed_checks = failedChecks;
  return stored;
}

/**
 * cot: one bucket per commodity, COT dataset (a format in a scope: `cotDatasetOf`) and
 * calendar year (`CotBucketDoc`; a futures-only dataset is named as its format, so those buckets
 * are as they were; a combined one's carries `scope`), reports sorted by date, raw
 * long/short/spreading only (net is computed on read). Each report is published by its own
 * release (its `published_at`, else the CFTC calendar's, estimated): the reports of an event are
 * grouped by release and each group folded with `foldRelease`, so `reports` holds the newest
 * version of each date by publication time and `revised` the older ones, whatever order events
 * arrive in. A version keeps the `source` and the `occurred_at` (as `last_updated`) of the event
 * that wrote it, and the consistency checks it failed (`crossChecks`: its own and those against the
 * counterpart buckets of the same commodity and year, `related`); a report that only repeats the
 * version in force leaves it as it is, and an event that changes no version leaves the document as
 * it is (no write). A batch's events are folded at once (`evolveAll`, as the series projection does).
 */
export const cotProjection: Projection<CotBucketDoc> = {
  name: 'cot',
  // 3: reports and parts packed as JSON text. 4: source and last_updated per report. 5: versions.
  // 6: datasets (scope on combined buckets), failed_checks.
  version: 6,
  handles: ['cot.reports.recorded'],
  filterSubject: 'cds.data.cot.>',
  // A backfill's COT events carry a year of reports (15 KB) each: 1,000 of them, their buckets and
  // counterparts took the projector to 515 MiB, past its 384 MiB (npm run bench:projection, the
  // whole COT history); at 1 MiB a batch it peaks at 352 MiB, with the same time and lag.
  batchBytes: 1024 * 1024,
  keyOf(event) {
    if (event.type !== 'cot.reports.recorded') return [];
    const dataset = cotDatasetOf(event.data);
    const years = new Set(event.data.reports.map((r) => yearOf(r.report_date)));
    return [...years].sort().map((y) => cotBucketId(event.data.commodity_id, dataset, y));
  },
  related: counterpartBuckets,
  commodityOf,
  changeOf(event) {
    if (event.type !== 'cot.reports.recorded') return undefined;
    const { commodity_id: commodity, format, reports } = event.data;
    const range = dateRange((reports as readonly Report[]).map((r) => r.report_date));
    if (range === undefined) return undefined;
    const dataset = cotDatasetOf(event.data);
    const { scope } = COT_DATASETS[dataset];
    const combined = scope !== 'futures_only';
    // cit is combined only: its request names no scope
    const query = { format, ...(combined && format !== 'cit' ? { scope } : {}) };
    return {
      type: 'cot.updated',
      commodity,
      topic: cotSeriesType(dataset),
      format,
      ...(combined ? { scope } : {}),
      first_date: range.first,
      newest_date: range.newest,
      path: readPath('cot', commodity, { ...query, start_date: range.first, end_date: range.newest }),
    };
  },
  initial(id) {
    // `${commodity}:${dataset}:${year}`; commodity ids are UPPER_SNAKE_CASE, so ':' only separates.
    const [commodityId = '', , year = '0'] = id.split(':');
    const { format, scope } = COT_DATASETS[cotDatasetOfBucketId(id)];
    return {
      _id: id,
      commodity_id: commodityId,
      format,
      ...(scope !== 'futures_only' ? { scope } : {}),
      year: Number(year),
      first_date: '',
      last_date: '',
      count: 0,
      reports: [],
      _meta: { position: 0, version: 6 },
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
  related?: RelatedDocs<CotBucketDoc>,
): EvolvedDoc<CotBucketDoc> {
  const held = { current: doc.reports, revised: doc.revised ?? [], releases: doc.releases ?? [] };
  const folder = releaseFolder(held, REPORT_KIND);
  const dataset = cotDatasetOf(doc);
  const open = counterpartOpenInterest(doc, related);
  // Which events the document reflects (the runner's `reflected`: change records after a crash):
  // the latest event that changed each report date's versions. The versions' order is publication time.
  const log = changeLog(doc._meta);
  for (const { event, position: at } of events) {
    if (event.type !== 'cot.reports.recorded') continue;
    if (event.data.commodity_id !== doc.commodity_id || cotDatasetOf(event.data) !== dataset) continue;
    const firstSeen = firstSeenOf(event);
    const releases = new Map<string, { stamp: ReleaseStamp; items: StoredCotReport[] }>();
    for (const report of event.data.reports as readonly Report[]) {
      if (yearOf(report.report_date) !== doc.year) continue;
      const stamp = cotReportRelease(report, firstSeen);
      const key = `${stamp.publishedAt}|${stamp.estimated}`;
      const group = releases.get(key) ?? releases.set(key, { stamp, items: [] }).get(key)!;
      group.items.push(toStored(event, report, crossChecks(dataset, report, open)));
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
    ...(doc.scope !== undefined ? { scope: doc.scope } : {}),
    year: doc.year,
    first_date: reports[0]?.report_date ?? '',
    last_date: reports.at(-1)?.report_date ?? '',
    count: reports.length,
    reports,
    _meta: nextMeta(doc._meta, cotProjection.version, log.position, log.parts),
  };
  return { doc: withVersions(next, folded), changedBy };
}
