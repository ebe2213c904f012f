import type { CotReportsBatch, DataEvent } from '@cds/contracts';
import { cotDocId, type CotDoc, type StoredGroup } from '@cds/read-models';
import { commodityOf, nextMeta, type Projection } from '../types.ts';

type Report = CotReportsBatch['reports'][number];

const GROUPS = {
  legacy: ['commercial', 'non_commercial', 'non_reportable'],
  disaggregated: ['producer_merchant', 'swap_dealer', 'managed_money', 'other_reportable'],
} as const;

function groupsOf(format: CotDoc['format'], report: Report): Record<string, StoredGroup> {
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

/**
 * cot: one document per commodity, format and report date (`CotDoc`), raw long/short/spreading
 * only (net is computed on read). A document is one fact, so it is last-writer-wins as a whole on
 * the stream position: an older event never overwrites a newer one.
 */
export const cotProjection: Projection<CotDoc> = {
  name: 'cot',
  version: 1,
  handles: ['cot.reports.recorded'],
  filterSubject: 'cds.data.cot.>',
  keyOf(event) {
    if (event.type !== 'cot.reports.recorded') return [];
    return event.data.reports.map((r) => cotDocId(event.data.commodity_id, event.data.format, r.report_date));
  },
  commodityOf,
  initial(id) {
    const [commodityId = '', format = 'legacy', reportDate = ''] = id.split(':');
    return {
      _id: id,
      commodity_id: commodityId,
      format: format as CotDoc['format'],
      report_date: reportDate,
      open_interest: 0,
      groups: {},
      _meta: { position: 0, version: 1 },
    };
  },
  evolve(doc, event: DataEvent, position) {
    if (event.type !== 'cot.reports.recorded' || doc._meta.position >= position) return doc;
    const { commodity_id: commodityId, format } = event.data;
    if (commodityId !== doc.commodity_id || format !== doc.format) return doc;
    const report = (event.data.reports as readonly Report[]).find((r) => r.report_date === doc.report_date);
    if (report === undefined) return doc;
    const next: CotDoc = {
      _id: doc._id,
      commodity_id: commodityId,
      format,
      report_date: report.report_date,
      open_interest: report.open_interest,
      groups: groupsOf(format, report),
      _meta: nextMeta(doc._meta, cotProjection.version, position),
    };
    if (report.exchange !== undefined) next.exchange = report.exchange;
    return next;
  },
};
