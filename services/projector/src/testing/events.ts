import {
  deterministicEventId,
  type CotCheck,
  type CotScope,
  type CommodityUpserted,
  type CotReportsRecorded,
  type DataEvent,
  type SeriesPointsRecorded,
  type SupplyDemandCheck,
  type SupplyDemandFiguresRecorded,
  type SupplyDemandStatus,
  editionOf,
} from '@cds/contracts';
import type { ProjectedDoc, Projection } from '../projections/types.ts';

const at = '2024-06-01T00:00:00Z';

export function commodityUpserted(id: string, name = `Name of ${id}`): CommodityUpserted {
  return {
    id: deterministicEventId('catalog.commodity.upserted', id, name),
    type: 'catalog.commodity.upserted',
    version: 1,
    occurred_at: at,
    source: 'test',
    data: { id, name, category: 'energy', unit: 'USD/bbl' },
  };
}

function publication(opts: { publishedAt?: string; publishedAtEstimated?: boolean }) {
  return {
    ...(opts.publishedAt !== undefined ? { published_at: opts.publishedAt } : {}),
    ...(opts.publishedAtEstimated !== undefined ? { published_at_estimated: opts.publishedAtEstimated } : {}),
  };
}

export function seriesRecorded(
  commodityId: string,
  points: [date: string, value: number][],
  opts: {
    type?: SeriesPointsRecorded['data']['series_type'];
    period?: string;
    unit?: string;
    /** The batch's provenance (`data.source`). */
    source?: string;
    priceBasis?: SeriesPointsRecorded['data']['price_basis'];
    /** Envelope `source` (default 'test'). */
    envelopeSource?: string;
    occurredAt?: string;
    /** The batch's `published_at` (and `published_at_estimated` when given). */
    publishedAt?: string;
    publishedAtEstimated?: boolean;
    frequency?: SeriesPointsRecorded['data']['frequency'];
  } = {},
): SeriesPointsRecorded {
  const period = opts.period ?? points[0]![0].slice(0, 4);
  return {
    id: deterministicEventId(
      'series.points.recorded',
      commodityId,
      JSON.stringify(points),
      opts.source ?? '',
      ...(opts.publishedAt === undefined ? [] : [opts.publishedAt]),
    ),
    type: 'series.points.recorded',
    version: 1,
    occurred_at: opts.occurredAt ?? at,
    source: opts.envelopeSource ?? 'test',
    data: {
      commodity_id: commodityId,
      series_type: opts.type ?? 'price',
      frequency: opts.frequency ?? 'daily',
      period,
      ...(opts.unit !== undefined ? { unit: opts.unit } : {}),
      ...(opts.source !== undefined ? { source: opts.source } : {}),
      ...(opts.priceBasis !== undefined ? { price_basis: opts.priceBasis } : {}),
      ...publication(opts),
      points: points.map(([date, value]) => ({ date, value })),
    },
  };
}

export function cotRecorded(
  commodityId: string,
  reports: [date: string, openInterest: number][],
  opts: {
    source?: string;
    envelopeSource?: string;
    occurredAt?: string;
    contractCode?: string;
    /** Default legacy. */
    format?: 'legacy' | 'disaggregated' | 'cit';
    /** The batch's scope (absent: none, futures only; cit takes only futures_and_options). */
    scope?: CotScope;
    /** Every report's own failed checks (the ingest's row checks). */
    failedChecks?: CotCheck[];
    /** Every report's `published_at` (and `published_at_estimated` when given). */
    publishedAt?: string;
    publishedAtEstimated?: boolean;
  } = {},
): CotReportsRecorded {
  const format = opts.format ?? 'legacy';
  const base = (report_date: string, open_interest: number) => ({
    report_date,
    ...(opts.contractCode !== undefined ? { contract_code: opts.contractCode } : {}),
    open_interest,
    ...(opts.failedChecks !== undefined ? { failed_checks: opts.failedChecks } : {}),
    ...publication(opts),
  });
  const envelope = {
    // The legacy id has no format in it (as before the option): only disaggregated ids name theirs.
    id: deterministicEventId(
      'cot.reports.recorded',
      commodityId,
      JSON.stringify(reports),
      opts.source ?? '',
      ...(format === 'legacy' ? [] : [format]),
      ...(opts.scope === undefined ? [] : [opts.scope]),
      ...(opts.failedChecks === undefined ? [] : opts.failedChecks),
      ...(opts.publishedAt === undefined ? [] : [opts.publishedAt]),
    ),
    type: 'cot.reports.recorded' as const,
    version: 1 as const,
    occurred_at: opts.occurredAt ?? at,
    source: opts.envelopeSource ?? 'test',
  };
  const source = {
    ...(opts.source !== undefined ? { source: opts.source } : {}),
    ...(opts.scope !== undefined ? { scope: opts.scope } : {}),
  };
  if (format === 'cit') {
    return {
      ...envelope,
      data: {
        commodity_id: commodityId,
        format,
        ...source,
        scope: 'futures_and_options',
        reports: reports.map(([date, oi]) => ({
          ...base(date, oi),
          commercial: { long: oi, short: 1 },
          non_commercial: { long: 2, short: 3, spreading: 4 },
          index_traders: { long: 11, short: 12 },
          non_reportable: { long: 5, short: 6 },
        })),
      },
    };
  }
  if (format === 'disaggregated') {
    return {
      ...envelope,
      data: {
        commodity_id: commodityId,
        format,
        ...source,
        reports: reports.map(([date, oi]) => ({
          ...base(date, oi),
          producer_merchant: { long: oi, short: 1 },
          swap_dealer: { long: 2, short: 3, spreading: 4 },
          managed_money: { long: 5, short: 6, spreading: 7 },
          other_reportable: { long: 8, short: 9, spreading: 10 },
        })),
      },
    };
  }
  return {
    ...envelope,
    data: {
      commodity_id: commodityId,
      format,
      ...source,
      reports: reports.map(([date, oi]) => ({
        ...base(date, oi),
        commercial: { long: oi, short: 1 },
        non_commercial: { long: 2, short: 3, spreading: 4 },
        non_reportable: { long: 5, short: 6 },
      })),
    },
  };
}

/** The June 2026 WASDE's release: 12:00 in New York on 2026-06-11. */
export const JUNE_2026 = '2026-06-11T16:00:00.000Z';

/**
 * One release of one balance sheet (default: US corn 2026/27 in the June 2026 edition, a
 * projection); `figures` as [attribute, value] in Million Bushels, or [attribute, value, unit].
 */
export function supplyDemandRecorded(
  figures: ([attribute: string, value: number] | [attribute: string, value: number, unit: string])[],
  opts: {
    commodityId?: string;
    region?: string;
    marketingYear?: string;
    status?: SupplyDemandStatus;
    /** The release (default JUNE_2026); the edition is its New York month. */
    publishedAt?: string;
    publishedAtEstimated?: boolean;
    failedChecks?: SupplyDemandCheck[];
    source?: string;
    occurredAt?: string;
  } = {},
): SupplyDemandFiguresRecorded {
  const commodityId = opts.commodityId ?? 'CORN';
  const region = opts.region ?? 'united_states';
  const marketingYear = opts.marketingYear ?? '2026/27';
  const publishedAt = opts.publishedAt ?? JUNE_2026;
  const rows = figures.map(([attribute, value, unit]) => ({ attribute, unit: unit ?? 'Million Bushels', value }));
  return {
    id: deterministicEventId(
      'supply_demand.figures.recorded',
      commodityId,
      region,
      marketingYear,
      publishedAt,
      JSON.stringify(rows),
      ...(opts.failedChecks ?? []),
    ),
    type: 'supply_demand.figures.recorded',
    version: 1,
    occurred_at: opts.occurredAt ?? publishedAt,
    source: 'test',
    data: {
      commodity_id: commodityId,
      region,
      marketing_year: marketingYear,
      edition: editionOf(publishedAt),
      status: opts.status ?? 'projection',
      ...(opts.source !== undefined ? { source: opts.source } : {}),
      published_at: publishedAt,
      ...(opts.publishedAtEstimated !== undefined ? { published_at_estimated: opts.publishedAtEstimated } : {}),
      ...(opts.failedChecks !== undefined ? { failed_checks: opts.failedChecks } : {}),
      figures: rows,
    },
  };
}

/**
 * Folds events (with positions 1, 2, … unless given) the way the runner does, in memory: the
 * "given events / when event / then document" harness of projection specs.
 */
export function foldEvents<D extends ProjectedDoc>(
  projection: Projection<D>,
  events: readonly (DataEvent | [DataEvent, number])[],
  start: ReadonlyMap<string, D> = new Map(),
): Map<string, D> {
  const docs = new Map(start);
  events.forEach((e, i) => {
    const [event, position] = Array.isArray(e) ? e : [e, i + 1];
    for (const id of projection.keyOf(event)) {
      const doc = docs.get(id) ?? projection.initial(id);
      // as the runner folds a batch of one event: related documents as they are so far
      const next =
        projection.evolveAll === undefined
          ? projection.evolve(doc, event, position)
          : projection.evolveAll(doc, [{ event, position }], (r) => docs.get(r)).doc;
      docs.set(id, next);
    }
  });
  return docs;
}
