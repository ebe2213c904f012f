import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import {
  COT_DATASETS,
  currencyOfRateSeries,
  FREQUENCIES,
  PRICE_BASES,
  SERIES_TYPES,
  type CotDataset,
  type Frequency,
  type PriceBasis,
  type SeriesType,
} from '@cds/contracts';
import type { CatalogIndex } from '../catalog/index.ts';
import { CATALOG } from '../sources/registry.ts';
import { readCsvTable } from '../sources/common/csv.ts';
import { cotReportStamp } from '../sources/common/published.ts';
import { REGISTRY } from '../sources/registry.ts';
import { cotItem, rejected, seriesItem } from '../sources/common/records.ts';
import { countSkip, type ParseStats } from '../sources/common/stats.ts';
import type { PublicationStamp, SourceItem } from '../sources/types.ts';
import {
  COT_GROUPS,
  cotColumns,
  FAILED_CHECKS_COLUMN,
  FAILED_CHECKS_SEPARATOR,
  MANIFEST_FILE,
  MAX_FILE_BYTES,
  MAX_FILE_LINES,
  MAX_INFLATED_BYTES,
  SERIES_COLUMNS,
  SnapshotManifest,
  SNAPSHOT_COT_DATASETS,
  SNAPSHOT_FILES,
} from './format.ts';
import { readSupplyDemandPart, type EditionRange } from './read-supply-demand.ts';

/** A snapshot that cannot be read at all (no manifest, a file changed since it was built). */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/** Reads and checks the manifest of the snapshot in `dir`. */
export async function readManifest(dir: string): Promise<SnapshotManifest> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    if ((await stat(path)).size > 1024 * 1024) throw new SnapshotError(`${path} is larger than 1 MiB`);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    throw new SnapshotError(
      `no snapshot in ${dir}: cannot read ${MANIFEST_FILE} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SnapshotError(`${path} is not JSON`);
  }
  const parsed = SnapshotManifest.safeParse(json);
  if (!parsed.success)
    throw new SnapshotError(
      `${path} is not a snapshot manifest: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** The inflated chunks of a gzip file held in memory (at most MAX_FILE_BYTES), ~16 KB at a time. */
async function* gunzipChunks(bytes: Buffer): AsyncGenerator<Buffer> {
  const gz = createGunzip();
  gz.end(bytes);
  for await (const chunk of gz as AsyncIterable<Buffer>) yield chunk;
}

/**
 * A snapshot file's compressed bytes, after checking its size, its SHA-256 against the manifest,
 * and, inflating it once as a stream and keeping nothing, that it is whole gzip within
 * MAX_INFLATED_BYTES and MAX_FILE_LINES. Its text is then read as a stream (gunzipChunks).
 */
async function readPart(dir: string, name: string, manifest: SnapshotManifest): Promise<Buffer | undefined> {
  const expected = manifest.files[name];
  if (expected === undefined) return undefined;
  const path = join(dir, name);
  const size = (await stat(path).catch(() => undefined))?.size;
  if (size === undefined) throw new SnapshotError(`${path} is listed in the manifest but missing`);
  if (size > MAX_FILE_BYTES) throw new SnapshotError(`${path} is larger than ${MAX_FILE_BYTES} bytes`);
  const bytes = await readFile(path);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== expected.sha256)
    throw new SnapshotError(
      `${path} changed since the snapshot was built (SHA-256 ${sha256}, manifest ${expected.sha256})`,
    );
  let inflated = 0;
  let lines = 0;
  try {
    for await (const chunk of gunzipChunks(bytes)) {
      inflated += chunk.length;
      if (inflated > MAX_INFLATED_BYTES)
        throw new SnapshotError(`${path} inflates to more than the ${MAX_INFLATED_BYTES} bytes read`);
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      if (lines > MAX_FILE_LINES) throw new SnapshotError(`${path} holds more than the ${MAX_FILE_LINES} lines read`);
    }
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    throw new SnapshotError(`${path} is not a whole gzip file: ${(err as Error).message}`);
  }
  return bytes;
}

const headerCheck =
  (expected: readonly string[], file: string) =>
  (names: string[]): string | undefined =>
    names.length === expected.length && names.every((n, i) => n === expected[i])
      ? undefined
      : `${file}: header is not ${expected.join(',')}`;

function num(raw: string | undefined): number {
  return raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
}

/**
 * When the snapshot's series points were published, from what its manifest records: each source
 * with a snapshot part (Source.snapshotStamps) stamps its own points; any other point, and every
 * point its part leaves unstamped, when the snapshot was built (estimated): a snapshot keeps no
 * vintage per row, and by then all of it had been published.
 */
export function snapshotStamps(manifest: SnapshotManifest): (source: string, date: string) => PublicationStamp {
  const built: PublicationStamp = { at: new Date(manifest.built_at).toISOString(), estimated: true };
  const stampers = REGISTRY.flatMap((s) =>
    s.snapshotStamps === undefined
      ? []
      : [
          {
            prefix: `${s.name}:`,
            stamp: s.snapshotStamps(manifest.sources.find((m) => m.name === s.name)?.origin ?? [], built.at),
          },
        ],
  );
  return (source, date) => stampers.find((s) => source.startsWith(s.prefix))?.stamp(date) ?? built;
}

/** Whether a series row is left out: an exchange rate's point outside the months asked, or any other row when only the rates are. */
function rateRowsLeftOut(
  months: EditionRange,
  onlyRates: boolean,
): (commodity: string | undefined, date: string | undefined) => boolean {
  return (commodity, date) => {
    if (commodity === undefined || currencyOfRateSeries(commodity) === undefined) return onlyRates;
    const month = (date ?? '').slice(0, 7);
    return (
      (months.since !== undefined && month < months.since) || (months.before !== undefined && month >= months.before)
    );
  };
}

/**
 * Every item of the snapshot in `dir`: the series points, then the COT reports of each dataset
 * (legacy, disaggregated, their combined editions, the CIT supplement; each report with its
 * dataset's scope and the row checks it failed), then the releases of the balance sheets, each validated by the contracts' schemas as any
 * source's records are. A commodity the
 * catalog no longer lists is skipped (`unknown_commodity`); a row that does not validate is
 * rejected with its file and line, as the parsers do.
 */
export async function* readSnapshot(
  dir: string,
  options: {
    manifest?: SnapshotManifest;
    catalog?: CatalogIndex;
    stats?: ParseStats;
    /** Which supply and demand releases: by edition (YYYY-MM), from `since`, before `before`; default all. */
    editions?: EditionRange;
    /** Only the supply and demand part (`npm start` loads its older editions after the keys). */
    onlySupplyDemand?: boolean;
    /** Which exchange-rate points (FX_EUR_<CCY>): by month (YYYY-MM), from `since`, before `before`; default all. */
    rates?: EditionRange;
    /** Only the exchange-rate points (`npm start` loads the older ones after the keys). */
    onlyRates?: boolean;
  } = {},
): AsyncGenerator<SourceItem> {
  const manifest = options.manifest ?? (await readManifest(dir));
  const catalog = options.catalog ?? CATALOG;
  const stampOf = snapshotStamps(manifest);
  const { stats } = options;
  // a catalog commodity, or an exchange rate's series (no commodity: FX_EUR_<CCY>, docs/conversion.md)
  const known = (id: string | undefined): id is string => {
    if (id !== undefined && (catalog.byId(id) !== undefined || currencyOfRateSeries(id) !== undefined)) return true;
    if (stats) countSkip(stats, 'unknown_commodity');
    return false;
  };

  // every file checked (size, SHA-256, whole gzip within the inflated size and line bounds) before the
  // first item: a damaged or oversized snapshot publishes nothing
  const only = options.onlySupplyDemand === true;
  const onlyRates = options.onlyRates === true;
  const seriesBytes = only && !onlyRates ? undefined : await readPart(dir, SNAPSHOT_FILES.series, manifest);
  const cotBytes = new Map<CotDataset, Buffer | undefined>();
  for (const dataset of SNAPSHOT_COT_DATASETS)
    cotBytes.set(dataset, only || onlyRates ? undefined : await readPart(dir, SNAPSHOT_FILES[dataset], manifest));
  const sheetBytes = onlyRates && !only ? undefined : await readPart(dir, SNAPSHOT_FILES.supply_demand, manifest);
  const leftOut = rateRowsLeftOut(options.rates ?? {}, onlyRates);
  if (seriesBytes !== undefined) {
    const file = SNAPSHOT_FILES.series;
    const text = gunzipChunks(seriesBytes);
    for await (const row of readCsvTable(text, { file, stats }, headerCheck(SERIES_COLUMNS, file))) {
      if (row.kind === 'rejected') {
        yield row;
        continue;
      }
      const [commodity, type = '', frequency = '', unit, source, basis = '', date, value] = row.fields;
      if (leftOut(commodity, date)) continue;
      if (!known(commodity)) continue;
      const wrong = !(SERIES_TYPES as readonly string[]).includes(type)
        ? `unknown series type "${type}"`
        : !(FREQUENCIES as readonly string[]).includes(frequency)
          ? `unknown frequency "${frequency}"`
          : basis !== '' && !(PRICE_BASES as readonly string[]).includes(basis)
            ? `unknown price basis "${basis}"`
            : undefined;
      if (wrong !== undefined) {
        yield rejected(file, row.line, wrong, stats);
        continue;
      }
      yield seriesItem(
        commodity,
        type as SeriesType,
        frequency as Frequency,
        unit || undefined,
        { date, value: num(value) },
        { file, line: row.line, ...(stats ? { stats } : {}) },
        source || undefined,
        (basis || undefined) as PriceBasis | undefined,
        stampOf(source ?? '', date ?? ''),
      );
    }
  }

  for (const dataset of SNAPSHOT_COT_DATASETS) {
    const file = SNAPSHOT_FILES[dataset];
    const bytes = cotBytes.get(dataset);
    if (bytes === undefined) continue;
    const { format, scope } = COT_DATASETS[dataset];
    const full = cotColumns(format);
    // a format 1 file: the same columns but the last (no failed_checks)
    let columns = full;
    const header = (names: string[]): string | undefined => {
      const v1 = full.slice(0, -1);
      columns = names.length === v1.length ? v1 : full;
      return headerCheck(columns, file)(names) === undefined ? undefined : `${file}: header is not ${full.join(',')}`;
    };
    for await (const row of readCsvTable(gunzipChunks(bytes), { file, stats }, header)) {
      if (row.kind === 'rejected') {
        yield row;
        continue;
      }
      const cell = (name: string) => row.fields[columns.indexOf(name)];
      const commodity = cell('commodity_id');
      if (!known(commodity)) continue;
      if (row.fields.length !== columns.length) {
        yield rejected(file, row.line, `expected ${columns.length} fields, got ${row.fields.length}`, stats);
        continue;
      }
      const record: Record<string, unknown> = { report_date: cell('report_date') };
      if (cell('exchange')) record.exchange = cell('exchange');
      if (cell('contract_code')) record.contract_code = cell('contract_code');
      record.open_interest = num(cell('open_interest'));
      const failed = cell(FAILED_CHECKS_COLUMN);
      if (failed) record.failed_checks = failed.split(FAILED_CHECKS_SEPARATOR);
      // each report on the CFTC's release calendar, as the CFTC's own files are stamped
      Object.assign(record, cotReportStamp(String(record.report_date)));
      for (const { group, spreading } of COT_GROUPS[format]) {
        record[group] = {
          long: num(cell(`${group}_long`)),
          short: num(cell(`${group}_short`)),
          ...(spreading ? { spreading: num(cell(`${group}_spreading`)) } : {}),
        };
      }
      yield cotItem(
        format,
        commodity,
        record,
        { file, line: row.line, ...(stats ? { stats } : {}) },
        cell('source') || undefined,
        scope,
      );
    }
  }

  if (sheetBytes !== undefined)
    yield* readSupplyDemandPart(gunzipChunks(sheetBytes), {
      file: SNAPSHOT_FILES.supply_demand,
      stats,
      known,
      ...(options.editions !== undefined ? { editions: options.editions } : {}),
    });
}
