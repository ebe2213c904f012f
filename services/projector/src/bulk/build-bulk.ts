import {
  addMonths,
  attributionOf,
  BULK_DATASETS,
  BULK_FORMATS,
  BULK_RECENT_MONTHS,
  BULK_SPANS,
  bulkFileName,
  bulkFilePlans,
  licenceOf,
  COT_DATASETS,
  cotDatasetOfType,
  SUPPLY_DEMAND_SERIES_TYPE,
  type BulkDataset,
  type BulkFile,
  type CotDataset,
  type SeriesType,
} from '@cds/contracts';
import type { CatalogDoc, StoredSeriesDescriptor } from '@cds/read-models';
import type { BulkFileStore, ReadModelReader } from '@cds/store';
import { createHash } from 'node:crypto';
import { bulkColumns, cotRow, rowDate, seriesRow, supplyDemandRows, type BulkRow } from './rows.ts';
import { writeBulkFile } from './writers.ts';

/** COT reports read per page: a year of weekly reports of a few commodities per read. */
const COT_PAGE = 500;

type EntryRows = (
  reader: ReadModelReader,
  entry: CatalogDoc,
  d: StoredSeriesDescriptor,
  into: { rows: BulkRow[]; sources: Set<string> },
) => Promise<void>;

/** A COT dataset's reports of one commodity, oldest first, a page at a time. */
const cotEntryRows =
  (cot: CotDataset): EntryRows =>
  async (reader, entry, d, into) => {
    const { format, scope } = COT_DATASETS[cot];
    for (let skip = 0; ; skip += COT_PAGE) {
      const page = await reader.cotPage({
        commodityId: entry.id,
        format,
        scope,
        firstDate: d.first_date,
        lastDate: d.last_date,
        sortOrder: 'asc',
        skip,
        limit: COT_PAGE,
      });
      for (const doc of page.items) {
        into.rows.push(cotRow(doc, cot));
        if (doc.source !== undefined) into.sources.add(doc.source);
      }
      if (page.items.length < COT_PAGE || skip + COT_PAGE >= page.total) break;
    }
  };

/** A series type's points of one commodity, by date. */
const seriesEntryRows =
  (type: SeriesType): EntryRows =>
  async (reader, entry, d, into) => {
    const range = await reader.seriesRange({
      commodityId: entry.id,
      type,
      startDate: d.first_date,
      endDate: d.last_date,
      firstYear: Number(d.first_date.slice(0, 4)),
      lastYear: Number(d.last_date.slice(0, 4)),
    });
    const terms = { unit: range.unit ?? d.unit, source: d.source };
    for (const p of range.points) into.rows.push(seriesRow(entry.id, type, p, terms));
    if (d.source !== undefined) into.sources.add(d.source);
  };

/** The balance sheets of one commodity: by region (the descriptor's), marketing year oldest first. */
const supplyDemandEntryRows: EntryRows = async (reader, entry, d, into) => {
  for (const region of d.regions ?? []) {
    const sheets = await reader.supplyDemandSheets({ commodityId: entry.id, region });
    for (const sheet of [...sheets].reverse()) {
      into.rows.push(...supplyDemandRows(sheet));
      const source = sheet.source ?? d.source;
      if (source !== undefined) into.sources.add(source);
    }
  }
};

function entryRowsOf(dataset: BulkDataset): EntryRows {
  if (dataset === SUPPLY_DEMAND_SERIES_TYPE) return supplyDemandEntryRows;
  const cot = cotDatasetOfType(dataset);
  return cot !== undefined ? cotEntryRows(cot) : seriesEntryRows(dataset as SeriesType);
}

/** Every row of a dataset, by commodity (catalog order) then date, with the sources they came from. */
async function datasetRows(
  reader: ReadModelReader,
  entries: readonly CatalogDoc[],
  dataset: BulkDataset,
): Promise<{ rows: BulkRow[]; sources: Set<string> }> {
  const into = { rows: [] as BulkRow[], sources: new Set<string>() };
  const rowsOf = entryRowsOf(dataset);
  for (const entry of entries) {
    const d = entry.series?.[dataset];
    if (d !== undefined) await rowsOf(reader, entry, d, into);
  }
  return into;
}

function distinct(values: Iterable<string | undefined>): string[] {
  return [...new Set([...values].filter((v): v is string => v !== undefined))].sort();
}

export interface BulkBuildReport {
  generated_at: string;
  files: { file: string; rows: number; bytes: number }[];
}

/**
 * The bulk files job (run after each sync: `npm run projector -- bulk`): reads every series, COT
 * report and balance sheet of the listed commodities from the read models, writes per dataset a full-history and
 * a `recent` (BULK_RECENT_MONTHS before today) file as CSV.gz and Parquet, with their manifest
 * entries, and publishes them in the store as one new generation. A dataset (or span) without rows
 * has no file. Files are held in memory while written: the read models hold megabytes, not gigabytes.
 */
export async function buildBulkFiles(deps: {
  reader: ReadModelReader;
  files: BulkFileStore;
  clock: () => Date;
}): Promise<BulkBuildReport> {
  const now = deps.clock();
  const generatedAt = now.toISOString();
  const recentFrom = addMonths(generatedAt.slice(0, 10), -BULK_RECENT_MONTHS);
  const listed = await deps.reader.catalogEntries();
  const entries: CatalogDoc[] = [];
  for (const summary of listed) {
    const entry = await deps.reader.catalogEntry(summary.id);
    if (entry !== null) entries.push(entry);
  }

  const out: { entry: BulkFile; bytes: Uint8Array }[] = [];
  for (const dataset of BULK_DATASETS) {
    const { rows: all, sources } = await datasetRows(deps.reader, entries, dataset);
    const columns = bulkColumns(dataset);
    for (const span of BULK_SPANS) {
      const rows = span === 'full' ? all : all.filter((r) => rowDate(r) >= recentFrom);
      if (rows.length === 0) continue;
      let first = rowDate(rows[0]!);
      let last = first;
      for (const r of rows) {
        const date = rowDate(r);
        if (date < first) first = date;
        if (date > last) last = date;
      }
      for (const format of BULK_FORMATS) {
        const bytes = writeBulkFile(format, columns, rows);
        out.push({
          bytes,
          entry: {
            file: bulkFileName({ dataset, span, format }),
            dataset,
            span,
            format,
            rows: rows.length,
            bytes: bytes.length,
            sha256: createHash('sha256').update(bytes).digest('hex'),
            first_date: first,
            last_date: last,
            generated_at: generatedAt,
            columns: columns.map((c) => c.name),
            licence: distinct([...sources].map(licenceOf)),
            attribution: distinct([...sources].map(attributionOf)),
            plans: bulkFilePlans(dataset, span),
          },
        });
      }
    }
  }
  await deps.files.publish(out, generatedAt);
  return {
    generated_at: generatedAt,
    files: out.map(({ entry }) => ({ file: entry.file, rows: entry.rows, bytes: entry.bytes })),
  };
}
