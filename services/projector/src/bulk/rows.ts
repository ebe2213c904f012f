import {
  COT_DATASETS,
  cotCsvColumns,
  cotDatasetOfType,
  editionOf,
  seriesCsvColumns,
  SUPPLY_DEMAND_SERIES_TYPE,
  type BulkDataset,
  type CotDataset,
  type CotFormat,
  type SeriesType,
} from '@cds/contracts';
import type { CotDoc, StoredGroup, StoredPoint, SupplyDemandBucketDoc } from '@cds/read-models';

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
  'scope',
  'exchange',
  'unit',
  'source',
  'last_updated',
  'region',
  'marketing_year',
  'attribute',
  'edition',
  'published_at',
  'status',
]);

/**
 * The columns of the supply_demand files: one figure of a balance sheet per row, with its unit (a
 * sheet mixes acres, bushels and dollars) and the edition that published the version in force.
 */
const SUPPLY_DEMAND_COLUMNS = [
  'commodity',
  'region',
  'marketing_year',
  'attribute',
  'value',
  'unit',
  'edition',
  'published_at',
  'status',
] as const;

const column = (name: string): BulkColumn => ({ name, type: STRING_COLUMNS.has(name) ? 'string' : 'number' });

/**
 * The columns of a dataset's files: those of the API's CSV of the same data (libs/contracts csv.ts),
 * so a bulk row reads as the JSON item does. A series row leads with its commodity and ends with
 * the series' unit and source (on the API they are in `meta`); a COT row is the CSV row of the
 * report without analytics (they depend on a request's window).
 */
export function bulkColumns(dataset: BulkDataset): BulkColumn[] {
  if (dataset === SUPPLY_DEMAND_SERIES_TYPE) return SUPPLY_DEMAND_COLUMNS.map(column);
  const cot = cotDatasetOfType(dataset);
  if (cot !== undefined) return cotCsvColumns(COT_DATASETS[cot]).map((c) => column(c.name));
  const points = seriesCsvColumns({ type: dataset as SeriesType, transform: 'none' }).map((c) => c.name);
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

/** Each format's groups in column order, and whether each has spreading (the API's report shapes). */
const COT_GROUPS: Record<CotFormat, readonly [name: string, spreading: boolean][]> = {
  legacy: [
    ['commercial', false],
    ['non_commercial', true],
    ['non_reportable', false],
  ],
  disaggregated: [
    ['producer_merchant', false],
    ['swap_dealer', true],
    ['managed_money', true],
    ['other_reportable', true],
  ],
  cit: [
    ['commercial', false],
    ['non_commercial', true],
    ['index_traders', false],
    ['non_reportable', false],
  ],
};

/**
 * The row of one stored report of a dataset, as the COT endpoint renders it (net = long - short
 * computed here, a group missing from the document as zeros), flattened as its CSV columns are: a
 * combined dataset's rows carry their scope.
 */
export function cotRow(doc: CotDoc, dataset: CotDataset): BulkRow {
  const g = doc.groups ?? {};
  const { format, scope } = COT_DATASETS[dataset];
  const groups: Record<string, number> = {};
  for (const [name, spreading] of COT_GROUPS[format]) Object.assign(groups, group(g[name], spreading, name));
  return {
    report_date: doc.report_date,
    commodity: doc.commodity_id,
    format,
    ...(scope !== 'futures_only' ? { scope } : {}),
    exchange: doc.exchange,
    open_interest: doc.open_interest,
    ...groups,
    source: doc.source,
    last_updated: doc.last_updated,
  };
}

/**
 * The rows of one balance sheet: each figure's version in force (the figures USDA published; the
 * derived stocks_to_use is the API's, computed per request), with the edition and publication time
 * of the release that published it. A figure without a release (none is written so) is left out.
 */
export function supplyDemandRows(sheet: SupplyDemandBucketDoc): BulkRow[] {
  const rows: BulkRow[] = [];
  for (const f of sheet.figures) {
    const release = f.r === undefined ? undefined : sheet.releases?.[f.r];
    if (release === undefined) continue;
    rows.push({
      commodity: sheet.commodity_id,
      region: sheet.region,
      marketing_year: sheet.marketing_year,
      attribute: f.a,
      value: f.v,
      unit: f.u,
      edition: editionOf(release.p),
      published_at: release.p,
      status: f.s,
    });
  }
  return rows;
}

/** The date of a row (series `date`, COT `report_date`, a figure's publication day in UTC). */
export function rowDate(row: BulkRow): string {
  return String(row.date ?? row.report_date ?? String(row.published_at).slice(0, 10));
}
