import { editionOf, MAX_FIGURES_PER_EVENT, type SupplyDemandBatch } from '@cds/contracts';
import type { CatalogIndex } from '../../catalog/index.ts';
import { boundedChunks, MiB } from '../common/bounds.ts';
import { SourceUsageError } from '../common/errors.ts';
import { countFailedCheck, countSkip, type ParseStats } from '../common/stats.ts';
import type { PublicationStamp, SourceItem } from '../types.ts';
import { readSubReports, WasdeFileError, type SubReport } from './cells.ts';
import { failedChecks } from './checks.ts';
import { editionOfReportMonth, fileNameFacts, fileStamp, releaseStamp } from './editions.ts';
import { readSheets, tableName, type Sheet } from './sheets.ts';
import { tableOf } from './tables.ts';

/**
 * The WASDE XML file USDA publishes per edition (`wasdeMMYY.xml`, a corrected re-post
 * `wasdeMMYYv2.xml`; the XML edition exists since July 2010): read whole (a full file is ~2 MB),
 * walked once (cells.ts), its known tables mapped (tables.ts, sheets.ts), each balance sheet
 * checked (checks.ts) and yielded as one `supply_demand` item: one release of one balance sheet.
 * A file of no known sub-report, of an unknown layout, malformed or hostile XML is refused whole
 * (WasdeFileError) before anything is yielded.
 */

/** The largest file read: the full report is ~2 MB; anything far larger is not one. */
export const WASDE_MAX_BYTES = 16 * MiB;

export interface WasdeOptions {
  file: string;
  stats?: ParseStats;
  catalog: CatalogIndex;
  /** `--published-at`: when the file was published (RFC 3339), instead of the edition's calendar release. */
  publishedAt?: string;
}

async function readText(chunks: AsyncIterable<Uint8Array | string>, file: string): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let out = '';
  for await (const chunk of boundedChunks(chunks, WASDE_MAX_BYTES, file))
    out += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return out + decoder.decode();
}

/**
 * The file's edition: the `Report_Month` of its sub-reports (those that state one), which must
 * agree, and agree with the file's name when it tells; a file whose sub-reports state none takes
 * its name's.
 */
function fileEdition(reports: readonly SubReport[], file: string): string {
  const stated = reports.filter((r) => r.month !== '');
  const editions = new Set(stated.map((r) => editionOfReportMonth(r.month) ?? `"${r.month}"`));
  const named = fileNameFacts(file).edition;
  const [edition = named, ...others] = editions;
  if (edition === undefined || others.length > 0 || edition.startsWith('"'))
    throw new WasdeFileError(
      `wasde: ${file} does not name one report month (Report_Month: ${[...editions].join(', ') || 'none'}); nothing was published`,
    );
  if (named !== undefined && named !== edition)
    throw new WasdeFileError(
      `wasde: ${file} is named for ${named} but holds the ${edition} report; nothing was published`,
    );
  return edition;
}

function checkPublishedAt(publishedAt: string | undefined, edition: string): void {
  if (publishedAt === undefined) return;
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/.test(publishedAt) ||
    Number.isNaN(Date.parse(publishedAt))
  )
    throw new SourceUsageError(
      `--published-at must be an RFC 3339 instant such as 2026-06-11T12:00:00-04:00, not "${publishedAt}"`,
    );
  if (editionOf(publishedAt) !== edition)
    throw new SourceUsageError(
      `--published-at ${publishedAt} is in ${editionOf(publishedAt)} (New York), but the file is the ${edition} edition`,
    );
}

/**
 * Reads a WASDE XML file into its balance sheets. Throws WasdeFileError (the file) or
 * SourceUsageError (`--published-at`) before anything is yielded.
 */
export async function readWasdeXml(
  chunks: AsyncIterable<Uint8Array | string>,
  opts: WasdeOptions,
): Promise<AsyncIterable<SourceItem>> {
  const xml = await readText(chunks, opts.file);
  const reports = inFile(opts.file, () => readSubReports(xml));
  if (reports.length === 0)
    throw new WasdeFileError(
      `wasde: ${opts.file} holds no WASDE sub-report (<Report sub_report_title=…>); nothing was published`,
    );
  const edition = fileEdition(reports, opts.file);
  checkPublishedAt(opts.publishedAt, edition);
  if (!reports.some((r) => tableOf(r.title) !== undefined))
    throw new WasdeFileError(
      `wasde: ${opts.file} holds no sub-report this reader knows (${reports.map((r) => `${r.name}: ${tableName(r.title)}`).join('; ')}); nothing was published`,
    );
  const read = inFile(opts.file, () => readSheets(reports, edition));
  const own = fileStamp(edition, {
    ...(opts.publishedAt !== undefined ? { publishedAt: opts.publishedAt } : {}),
    repost: fileNameFacts(opts.file).repost,
  });
  const base = opts.file.split(/[\\/]/).at(-1) ?? opts.file;
  const items = toItems(read.sheets, {
    edition,
    own,
    source: `wasde:${base}`,
    catalog: opts.catalog,
    stats: opts.stats,
  });
  if (opts.stats !== undefined) {
    opts.stats.rows += read.cells;
    for (const [reason, n] of read.skipped) for (let i = 0; i < n; i++) countSkip(opts.stats, reason);
  }
  return stream(items);
}

/** A step whose refusal (malformed XML, an unknown layout) names the sub-report but not the file: the file named first. */
function inFile<T>(file: string, step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (err instanceof WasdeFileError) throw new WasdeFileError(`wasde: ${file}: ${err.message}`);
    throw err;
  }
}

/** The items, handed over as the pipeline reads them (the whole file was read and checked before). */
async function* stream(items: readonly SourceItem[]): AsyncGenerator<SourceItem> {
  let n = 0;
  for (const item of items) {
    yield item;
    // let other work run now and then, as the other whole-file readers do
    if (++n % 500 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function toItems(
  sheets: readonly Sheet[],
  ctx: { edition: string; own: PublicationStamp; source: string; catalog: CatalogIndex; stats: ParseStats | undefined },
): SourceItem[] {
  const items: SourceItem[] = [];
  for (const sheet of sheets) {
    if (ctx.catalog.byId(sheet.commodity) === undefined) {
      if (ctx.stats) countSkip(ctx.stats, `${sheet.commodity} not in the catalog`);
      continue;
    }
    const stamp = sheet.edition === ctx.edition ? ctx.own : releaseStamp(sheet.edition);
    const failed = failedChecks(sheet.region, sheet.figures.values(), {
      useBesideExports: sheet.useBesideExports === true,
    });
    const figures = [...sheet.figures.values()].map(({ attribute, unit, value }) => ({ attribute, unit, value }));
    if (figures.length > MAX_FIGURES_PER_EVENT) {
      items.push({
        kind: 'rejected',
        file: ctx.source,
        line: 0,
        reason: `${sheet.commodity} ${sheet.region} ${sheet.marketingYear}: ${figures.length} figures, more than the ${MAX_FIGURES_PER_EVENT} of one event`,
      });
      continue;
    }
    const batch: SupplyDemandBatch = {
      commodity_id: sheet.commodity,
      region: sheet.region,
      marketing_year: sheet.marketingYear,
      edition: sheet.edition,
      status: sheet.status,
      source: ctx.source,
      published_at: stamp.at,
      ...(stamp.estimated ? { published_at_estimated: true } : {}),
      ...(failed.length > 0 ? { failed_checks: failed } : {}),
      figures,
    };
    if (ctx.stats) {
      ctx.stats.emitted++;
      for (const check of failed) countFailedCheck(ctx.stats, check);
    }
    items.push({ kind: 'supply_demand', ...batch });
  }
  return items;
}
