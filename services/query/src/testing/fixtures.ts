import type {
  CatalogDoc,
  CotBucketDoc,
  CotDoc,
  SeriesBucketDoc,
  StoredGroup,
  StoredPoint,
  StoredFigure,
  StoredSeriesDescriptor,
  SupplyDemandBucketDoc,
} from '@cds/read-models';
import { cotBucketId, releaseFolder, seriesBucketId } from '@cds/read-models';
import {
  cotDatasetOf,
  type CotFormat,
  type CotScope,
  defaultCotScope,
  type SeriesType,
  supplyDemandBucketId,
  supplyDemandFigureKey,
  type SupplyDemandCheck,
  type SupplyDemandStatus,
} from '@cds/contracts';

const meta = { position: 1, version: 1 };

/** A listed catalog document; `series` descriptors keyed by type. */
export function catalogDoc(
  id: string,
  fields: Partial<Omit<CatalogDoc, '_id' | 'id' | 'series' | '_meta'>> & { series?: StoredSeriesDescriptor[] } = {},
): CatalogDoc {
  const { series = [], ...rest } = fields;
  return {
    _id: id,
    id,
    name: rest.name ?? id.replaceAll('_', ' ').toLowerCase(),
    category: rest.category ?? 'metals',
    listed: rest.listed ?? true,
    ...rest,
    series: Object.fromEntries(series.map((d) => [d.type, d])),
    _meta: meta,
  };
}

/** Series buckets (one per calendar year) holding the given ascending points. */
export function seriesBuckets(
  commodityId: string,
  type: SeriesType,
  points: StoredPoint[],
  opts: { frequency?: StoredSeriesDescriptor['frequency']; unit?: string } = {},
): SeriesBucketDoc[] {
  const byYear = new Map<number, StoredPoint[]>();
  for (const p of points) {
    const y = Number(p.d.slice(0, 4));
    byYear.set(y, [...(byYear.get(y) ?? []), p]);
  }
  return [...byYear].map(([year, pts]) => ({
    _id: seriesBucketId(commodityId, type, year),
    commodity_id: commodityId,
    type,
    year,
    frequency: opts.frequency ?? 'daily',
    ...(opts.unit === undefined ? {} : { unit: opts.unit }),
    first_date: pts[0]!.d,
    last_date: pts[pts.length - 1]!.d,
    count: pts.length,
    points: pts,
    _meta: meta,
  }));
}

/** The descriptor matching a set of points. */
export function descriptorOf(
  type: StoredSeriesDescriptor['type'],
  points: { d: string }[],
  frequency: StoredSeriesDescriptor['frequency'] = 'daily',
  unit?: string,
): StoredSeriesDescriptor {
  return {
    type,
    frequency,
    first_date: points[0]!.d,
    last_date: points[points.length - 1]!.d,
    ...(unit === undefined ? {} : { unit }),
  };
}

/** Every date from `from` to `to` inclusive, or only weekdays. */
export function dateRange(from: string, to: string, weekdaysOnly = false): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    const d = new Date(t);
    if (weekdaysOnly && (d.getUTCDay() === 0 || d.getUTCDay() === 6)) continue;
    out.push(d.toISOString().slice(0, 10));
  }
  return out;
}

/**
 * A stored COT report with deterministic positions derived from `seed`; `scope` futures_and_options
 * makes it a combined report (cit's is always).
 */
export function cotDoc(
  commodityId: string,
  format: CotFormat,
  reportDate: string,
  seed = 1,
  scope: CotScope = defaultCotScope(format),
): CotDoc {
  const g = (k: number, spreading: boolean) => ({
    long: 1000 * seed + k * 10,
    short: 700 * seed + k * 37,
    ...(spreading ? { spreading: 50 * k } : {}),
  });
  const groups: Record<string, StoredGroup> =
    format === 'legacy'
      ? { commercial: g(1, false), non_commercial: g(2, true), non_reportable: g(3, false) }
      : format === 'cit'
        ? {
            commercial: g(1, false),
            non_commercial: g(2, true),
            index_traders: g(5, false),
            non_reportable: g(3, false),
          }
        : {
            producer_merchant: g(1, false),
            swap_dealer: g(2, true),
            managed_money: g(3, true),
            other_reportable: g(4, true),
          };
  return {
    commodity_id: commodityId,
    format,
    ...(scope === 'futures_only' ? {} : { scope }),
    report_date: reportDate,
    exchange: 'CMX',
    open_interest: 5000 * seed,
    groups,
  };
}

/**
 * Stored COT buckets (one per commodity, COT dataset and year) holding the given reports, as the
 * projector writes them: a combined dataset's bucket carries its scope, a futures-only one's none.
 */
export function cotBuckets(reports: readonly CotDoc[]): CotBucketDoc[] {
  const byId = new Map<string, CotBucketDoc>();
  const sorted = [...reports].sort((a, b) => (a.report_date < b.report_date ? -1 : 1));
  for (const { commodity_id: commodityId, format, scope, ...report } of sorted) {
    const year = Number(report.report_date.slice(0, 4));
    const id = cotBucketId(commodityId, cotDatasetOf({ format, scope }), year);
    let bucket = byId.get(id);
    if (bucket === undefined) {
      bucket = {
        _id: id,
        commodity_id: commodityId,
        format,
        ...(scope === undefined || scope === 'futures_only' ? {} : { scope }),
        year,
        first_date: report.report_date,
        last_date: '',
        count: 0,
        reports: [],
        _meta: meta,
      };
      byId.set(id, bucket);
    }
    bucket.reports.push(report);
    bucket.last_date = report.report_date;
    bucket.count += 1;
  }
  return [...byId.values()];
}

/** One release of a balance sheet for `supplyDemandSheet`: when, its status, and [attribute, unit, value] rows. */
export interface SheetRelease {
  /** published_at (`toISOString()` text). */
  p: string;
  /** first_seen_at; defaults to `p`. */
  f?: string;
  estimated?: boolean;
  status?: SupplyDemandStatus;
  failed?: SupplyDemandCheck[];
  figures: readonly (readonly [string, string, number])[];
}

/** Equal versions: value, status and failed checks (a release repeating them only confirms). */
const sameFigure = (a: StoredFigure, b: StoredFigure) =>
  a.v === b.v && a.s === b.s && (a.x ?? []).join() === (b.x ?? []).join();

/** A balance sheet with its releases folded in (libs/read-models versions.ts), as the projector stores it. */
export function supplyDemandSheet(
  commodityId: string,
  region: string,
  marketingYear: string,
  releases: readonly SheetRelease[],
): SupplyDemandBucketDoc {
  const folder = releaseFolder<StoredFigure>(
    { current: [], revised: [], releases: [] },
    { dateOf: (f) => f.k, same: sameFigure },
  );
  for (const r of releases) {
    const items = r.figures.map(([a, u, v]) => ({
      k: supplyDemandFigureKey(a, u),
      a,
      u,
      v,
      s: r.status ?? 'projection',
      ...(r.failed === undefined ? {} : { x: r.failed }),
    }));
    folder.fold({ publishedAt: r.p, firstSeenAt: r.f ?? r.p, estimated: r.estimated === true }, items);
  }
  const parts = folder.parts();
  return {
    _id: supplyDemandBucketId(commodityId, region, marketingYear),
    commodity_id: commodityId,
    region,
    marketing_year: marketingYear,
    figures: parts.current,
    revised: parts.revised,
    releases: parts.releases,
    source: 'wasde:wasde0626.xml',
    last_updated: releases.at(-1)?.f ?? releases.at(-1)?.p,
    _meta: meta,
  };
}
