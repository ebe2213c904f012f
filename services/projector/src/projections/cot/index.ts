import type { CotReportsBatch, DataEvent } from '@cds/contracts';
import { cotBucketId, type CotBucketDoc, type StoredCotReport, type StoredGroup } from '@cds/read-models';
import { commodityOf, cotReportSource, dateRange, nextMeta, readPath, type Projection } from '../types.ts';

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

function yearOf(date: string): number {
  return Number(date.slice(0, 4));
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
 * date, raw long/short/spreading only (net is computed on read). Each report is a fact merged by
 * date as per-date last-writer-wins on the stream position (`_meta.parts[date]`), so an older
 * event never overwrites a newer one, whatever order they are applied in. A report keeps the
 * `source` and the `occurred_at` (as `last_updated`) of the event that wrote it.
 */
export const cotProjection: Projection<CotBucketDoc> = {
  name: 'cot',
  // 3: reports and parts packed as JSON text. 4: source and last_updated per report.
  version: 4,
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
      _meta: { position: 0, version: 4, parts: {} },
    };
  },
  evolve(doc, event: DataEvent, position) {
    if (event.type !== 'cot.reports.recorded') return doc;
    const { commodity_id: commodityId, format } = event.data;
    if (commodityId !== doc.commodity_id || format !== doc.format) return doc;
    const parts: Record<string, number> = { ...doc._meta.parts };
    const byDate = new Map(doc.reports.map((r) => [r.report_date, r] as const));
    let changed = false;
    for (const report of event.data.reports as readonly Report[]) {
      if (yearOf(report.report_date) !== doc.year) continue;
      if ((parts[report.report_date] ?? 0) >= position) continue;
      byDate.set(report.report_date, toStored(event, report));
      parts[report.report_date] = position;
      changed = true;
    }
    if (!changed) return doc;
    const reports = [...byDate.values()].sort((a, b) =>
      a.report_date < b.report_date ? -1 : a.report_date > b.report_date ? 1 : 0,
    );
    return {
      _id: doc._id,
      commodity_id: commodityId,
      format,
      year: doc.year,
      first_date: reports[0]?.report_date ?? '',
      last_date: reports.at(-1)?.report_date ?? '',
      count: reports.length,
      reports,
      _meta: nextMeta(doc._meta, cotProjection.version, position, parts),
    };
  },
};
