import {
  cotDatasetOf,
  datasetOfCot,
  datasetOfSeries,
  datasetOfSupplyDemand,
  type DataEvent,
  type LedgerEntry,
} from '@cds/contracts';
import { normalizeInstant } from '@cds/read-models';
import { firstSeenOf } from '../projections/releases.ts';

/** A stretch of a dataset's data an event carried, as its ledger records it. */
export interface DatasetRelease {
  dataset: string;
  entry: LedgerEntry;
}

/** The release an event's items state (`published_at`), else its `occurred_at`, estimated. */
function releaseOf(
  stated: { published_at?: string | undefined; published_at_estimated?: boolean | undefined },
  event: DataEvent,
): { p: string; e?: true } {
  const p = stated.published_at === undefined ? undefined : normalizeInstant(stated.published_at);
  if (p === undefined) return { p: firstSeenOf(event), e: true };
  return stated.published_at_estimated === true ? { p, e: true } : { p };
}

/**
 * What a data event adds to the release ledger, each stretch first served at `f` (when the
 * projector applied it): a series batch its first to last point date, each report of a COT batch
 * its report date, a balance sheet its edition's data date (the 1st of the edition's month, as the
 * supply and demand calendar of `@cds/schedule` dates it). An event of no dataset (demo, OHLCV,
 * the catalog) adds nothing. The dataset of a series batch is looked up once per provenance,
 * frequency and series type.
 */
export function createReleaseFinder(): (event: DataEvent, f: string) => DatasetRelease[] {
  const seriesDatasets = new Map<string, string | null>();
  const supplyDemand = datasetOfSupplyDemand()?.id;
  return (event, f) => {
    switch (event.type) {
      case 'series.points.recorded': {
        const batch = event.data;
        const memo = `${batch.frequency}|${batch.series_type}|${batch.source ?? ''}`;
        let dataset = seriesDatasets.get(memo);
        if (dataset === undefined) {
          dataset = datasetOfSeries(batch)?.id ?? null;
          seriesDatasets.set(memo, dataset);
        }
        if (dataset === null) return [];
        let lo = batch.points[0]!.date;
        let hi = lo;
        for (const { date } of batch.points) {
          if (date < lo) lo = date;
          else if (date > hi) hi = date;
        }
        return [{ dataset, entry: { lo, hi, f, ...releaseOf(batch, event) } }];
      }
      case 'cot.reports.recorded': {
        const dataset = datasetOfCot(cotDatasetOf(event.data))?.id;
        if (dataset === undefined) return [];
        return event.data.reports.map((r) => ({
          dataset,
          entry: { lo: r.report_date, hi: r.report_date, f, ...releaseOf(r, event) },
        }));
      }
      case 'supply_demand.figures.recorded': {
        if (supplyDemand === undefined) return [];
        const day = `${event.data.edition}-01`;
        return [{ dataset: supplyDemand, entry: { lo: day, hi: day, f, ...releaseOf(event.data, event) } }];
      }
      default:
        return [];
    }
  };
}
