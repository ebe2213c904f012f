import { cotCsvColumns, seriesCsvColumns, type BulkDataset, type CotFormat, type SeriesType } from '@cds/contracts';
import type { CotDoc, StoredGroup, StoredPoint } from '@cds/read-models';

/** A bulk file's row: one value per column name (absent = empty in CSV, null in Parquet). */
export type BulkRow = Readonly<Record<string, string | number | undefined>>;

/** A column of a bulk file and what it holds (Parquet needs the type even when every value is empty). */
export interface BulkColumn {
  name: string;
  type: 'string' | 'number';
}

const STRING_COLUMNS = new Set([
  'commodity',
  'date',
  'report_date',
  'format',
  'exchange',
  'unit',
  'source',
  'last_updated',
]);

const column = (name: string): BulkColumn => ({ name, type: STRING_COLUMNS.has(name) ? 'string' : 'number' });

/**
 * The columns of a dataset's files: those of the API's CSV of the same data (libs/contracts csv.ts),
 * so a bulk row reads as the JSON item does. A series row leads with its commodity and ends with
 * the series' unit and source (on the API they are in `meta`); a COT row is the CSV row of the
 * report without analytics (they depend on a request's window).
 */
export function bulkColumns(dataset: BulkDataset): BulkColumn[] {
  if (dataset === 'cot_legacy' || dataset === 'cot_disaggregated') {
    return cotCsvColumns({ format: dataset === 'cot_legacy' ? 'legacy' : 'disaggregated' }).map((c) => column(c.name));
  }
  const points = seriesCsvColumns({ type: dataset, transform: 'none' }).map((c) => c.name);
  return ['commodity', ...points, 'unit', 'source'].map(column);
}

/** The row of one stored observation: the API's point (o/h/l/c/vol as open…volume), with its series' terms. */
export function seriesRow(
  commodity: string,
  type: SeriesType,
  p: StoredPoint,
  terms: { unit?: string | undefined; source?: string | undefined },
): BulkRow {
  const price = type === 'price';
  return {
    commodity,
    date: p.d,
    value: p.v,
    ...(price ? { open: p.o, high: p.h, low: p.l, close: p.c, volume: p.vol } : {}),
    unit: terms.unit,
    source: terms.source,
  };
}

function group(g: StoredGroup | undefined, withSpreading: boolean, prefix: string): Record<string, number> {
  const long = g?.long ?? 0;
  const short = g?.short ?? 0;
  return {
    [`${prefix}_long`]: long,
    [`${prefix}_short`]: short,
    ...(withSpreading ? { [`${prefix}_spreading`]: g?.spreading ?? 0 } : {}),
    [`${prefix}_net`]: long - short,
  };
}

/**
 * The row of one stored report, as the COT endpoint renders it (net = long - short computed here,
 * a group missing from the document as zeros), flattened as its CSV columns are.
 */
export function cotRow(doc: CotDoc): BulkRow {
  const g = doc.groups ?? {};
  const format: CotFormat = doc.format;
  const groups =
    format === 'legacy'
      ? {
          ...group(g.commercial, false, 'commercial'),
          ...group(g.non_commercial, true, 'non_commercial'),
          ...group(g.non_reportable, false, 'non_reportable'),
        }
      : {
          ...group(g.producer_merchant, false, 'producer_merchant'),
          ...group(g.swap_dealer, true, 'swap_dealer'),
          ...group(g.managed_money, true, 'managed_money'),
          ...group(g.other_reportable, true, 'other_reportable'),
        };
  return {
    report_date: doc.report_date,
    commodity: doc.commodity_id,
    format,
    exchange: doc.exchange,
    open_interest: doc.open_interest,
    ...groups,
    source: doc.source,
    last_updated: doc.last_updated,
  };
}

/** The date of a row (series `date`, COT `report_date`). */
export function rowDate(row: BulkRow): string {
  return String(row.date ?? row.report_date);
}
