import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { COT_DATASETS, cotDataset, type CotDataset } from '@cds/contracts';
import type { SourceItem, SupplyDemandItem } from '../sources/types.ts';
import {
  COT_GROUPS,
  cotColumns,
  FAILED_CHECKS_SEPARATOR,
  FIGURE_FIELD_SEPARATOR,
  FIGURE_SEPARATOR,
  MANIFEST_FILE,
  SERIES_COLUMNS,
  SNAPSHOT_COT_DATASETS,
  SNAPSHOT_FILES,
  SNAPSHOT_FORMAT,
  snapshotLicenceOf,
  SUPPLY_DEMAND_COLUMNS,
  type SnapshotManifest,
  type SnapshotSource,
} from './format.ts';

/** A CSV cell: quoted when it holds a comma, a quote or a line break (NASS data items hold commas). */
function cell(v: string | number | undefined): string {
  if (v === undefined) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The source name of a provenance (`worldbank:GOLD` → worldbank). */
function sourceName(provenance: string | undefined): string {
  if (provenance === undefined) return 'unknown';
  const colon = provenance.indexOf(':');
  return colon === -1 ? provenance : provenance.slice(0, colon);
}

export interface WriteSummary {
  manifest: SnapshotManifest;
  rejected: number;
  /** Items left out: demo data never enters a snapshot of real data. */
  demo: number;
}

/**
 * Writes the items into a snapshot in `dir` (created if needed): one row per series point, COT
 * report (each COT report in the file of its dataset: its format in its scope) or figure of a
 * release of a balance sheet, deduplicated by what identifies it (the last one read wins, as in the read models),
 * sorted so the same data always gives the same bytes, gzipped at level 9; then the manifest with
 * each file's SHA-256 and, per source, its origin, licence, rows and date range. Demo items are
 * refused: a snapshot holds official numbers only.
 */
export async function writeSnapshot(
  dir: string,
  items: AsyncIterable<SourceItem> | Iterable<SourceItem>,
  opts: {
    builtAt: Date;
    builtFrom: SnapshotManifest['built_from'];
    origins: Record<string, SnapshotSource['origin']>;
  },
): Promise<WriteSummary> {
  const series = new Map<string, string[]>();
  const cot = new Map<CotDataset, Map<string, string[]>>(SNAPSHOT_COT_DATASETS.map((d) => [d, new Map()]));
  const sheets = new Map<string, SupplyDemandItem>();
  const perSource = new Map<string, { rows: number; first: string | null; last: string | null }>();
  let rejected = 0;
  let demo = 0;
  const note = (provenance: string | undefined, date: string) => {
    const name = sourceName(provenance);
    const s = perSource.get(name) ?? { rows: 0, first: null, last: null };
    s.rows++;
    if (s.first === null || date < s.first) s.first = date;
    if (s.last === null || date > s.last) s.last = date;
    perSource.set(name, s);
  };

  for await (const item of items) {
    if (item.kind === 'rejected') {
      rejected++;
      continue;
    }
    if (item.source === 'demo') {
      demo++;
      continue;
    }
    if (item.kind === 'series') {
      const p = item.point;
      const key = `${item.commodity_id}\u0000${item.series_type}\u0000${p.date}`;
      series.set(key, [
        item.commodity_id,
        item.series_type,
        item.frequency,
        item.unit ?? '',
        item.source ?? '',
        item.price_basis ?? '',
        p.date,
        String(p.value),
      ]);
      continue;
    }
    if (item.kind === 'supply_demand') {
      // One release of a sheet replaces the same release read before, whole, unless it holds fewer
      // figures: a later edition's column of its previous month (the U.S. wheat-by-class table: ending stocks
      // only) never replaces that month's own release, read whole from its own file.
      const release = [item.commodity_id, item.region, item.marketing_year, item.edition, item.published_at].join(
        '\u0000',
      );
      const before = sheets.get(release);
      if (before === undefined || item.figures.length >= before.figures.length) sheets.set(release, item);
      continue;
    }
    const r = item.record as unknown as Record<string, unknown>;
    const row: string[] = [
      item.commodity_id,
      item.source ?? '',
      item.record.report_date,
      item.record.exchange ?? '',
      item.record.contract_code ?? '',
      String(item.record.open_interest),
    ];
    for (const { group, spreading } of COT_GROUPS[item.format]) {
      const g = r[group] as { long: number; short: number; spreading?: number };
      row.push(String(g.long), String(g.short));
      if (spreading) row.push(String(g.spreading));
    }
    row.push((item.record.failed_checks ?? []).join(FAILED_CHECKS_SEPARATOR));
    const dataset = cotDataset(item.format, item.scope);
    if (dataset === undefined) throw new Error(`no COT dataset is ${item.format} in scope ${item.scope}`);
    cot.get(dataset)!.set(`${item.commodity_id}\u0000${item.record.report_date}`, row);
  }

  await mkdir(dir, { recursive: true });
  const files: SnapshotManifest['files'] = {};
  const byKey = (a: [string, string[]], b: [string, string[]]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  const emit = async (
    name: string,
    columns: readonly string[],
    rows: Map<string, string[]>,
    dateOf: (row: string[]) => string,
    sourceAt: number,
  ) => {
    if (rows.size === 0) return;
    const lines = [columns.join(',')];
    for (const [, row] of [...rows.entries()].sort(byKey)) {
      lines.push(row.map(cell).join(','));
      note(row[sourceAt] || undefined, dateOf(row));
    }
    const bytes = gzipSync(`${lines.join('\n')}\n`, { level: 9 });
    const tmp = join(dir, `.${name}.tmp`);
    await writeFile(tmp, bytes);
    await rename(tmp, join(dir, name));
    files[name] = { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, rows: rows.size };
  };
  await emit(SNAPSHOT_FILES.series, SERIES_COLUMNS, series, (row) => row[6]!, 4);
  for (const dataset of SNAPSHOT_COT_DATASETS)
    await emit(
      SNAPSHOT_FILES[dataset],
      cotColumns(COT_DATASETS[dataset].format),
      cot.get(dataset)!,
      (row) => row[2]!,
      1,
    );
  // a balance sheet's figures are dated by the first day of their edition's month
  await emit(SNAPSHOT_FILES.supply_demand, SUPPLY_DEMAND_COLUMNS, supplyDemandRows(sheets), (row) => `${row[3]}-01`, 5);

  const sources: SnapshotSource[] = [...perSource.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([name, s]) => ({
      name,
      origin: opts.origins[name] ?? [],
      licence: snapshotLicenceOf(name) ?? 'unknown',
      first_date: s.first,
      last_date: s.last,
      rows: s.rows,
    }));
  const manifest: SnapshotManifest = {
    format: SNAPSHOT_FORMAT,
    built_at: opts.builtAt.toISOString(),
    built_from: opts.builtFrom,
    files,
    sources,
  };
  await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return { manifest, rejected, demo };
}

/** A figure's cell part: `attribute|unit|value`; a unit holding a separator cannot be written. */
function figureCell(f: { attribute: string; unit: string; value: number }): string {
  for (const part of [f.attribute, f.unit])
    if (part.includes(FIGURE_SEPARATOR) || part.includes(FIGURE_FIELD_SEPARATOR))
      throw new Error(
        `supply and demand figure ${f.attribute} (${f.unit}): holds ${FIGURE_SEPARATOR} or ${FIGURE_FIELD_SEPARATOR}`,
      );
  return [f.attribute, f.unit, String(f.value)].join(FIGURE_FIELD_SEPARATOR);
}

/**
 * The rows of the supply and demand file: one per release of each sheet, its figures in the last
 * cell (by attribute, then unit), keyed so that a sheet's releases sort together (sheet, edition,
 * release instant): what is unchanged from one release to the next compresses to little.
 */
function supplyDemandRows(sheets: Map<string, SupplyDemandItem>): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  const byKey = (a: { attribute: string; unit: string }, b: { attribute: string; unit: string }) =>
    a.attribute < b.attribute ? -1 : a.attribute > b.attribute ? 1 : a.unit < b.unit ? -1 : a.unit > b.unit ? 1 : 0;
  for (const [release, b] of sheets) {
    rows.set(release, [
      b.commodity_id,
      b.region,
      b.marketing_year,
      b.edition,
      b.status,
      b.source ?? '',
      b.published_at,
      b.published_at_estimated === true ? 'true' : '',
      (b.failed_checks ?? []).join(FAILED_CHECKS_SEPARATOR),
      [...b.figures].sort(byKey).map(figureCell).join(FIGURE_SEPARATOR),
    ]);
  }
  return rows;
}
