import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  createParseStats,
  fetchCftcCot,
  fetchEiaSeries,
  fetchNassQuickStats,
  generateDemo,
  parseCftcDisaggregatedCsv,
  parseCftcLegacyCsv,
  parseEiaCsv,
  parseNassCsv,
  parseOhlcvCsv,
  parseAmsJson,
  amsReport,
  AMS_REPORTS,
  fetchAmsReports,
  readWorldBankWorkbook,
  WorldBankFileError,
  type ParseStats,
  type SourceItem,
} from '../sources/index.ts';
import { boundedChunks, InputBoundError, SOURCE_FILE_MAX_BYTES } from '../sources/common/bounds.ts';
import type { SnapshotManifest } from '../snapshot/format.ts';
import { readManifest, readSnapshot, SnapshotError } from '../snapshot/read.ts';
import type { IngestCommand } from './args.ts';
import { UsageError } from './args.ts';

/** An opened source: its items, a label for the envelope, and progress/stat hooks. */
export interface OpenedSource {
  items: AsyncIterable<SourceItem>;
  /** Envelope `source` and summary title, e.g. `cftc-legacy:annual.txt`. */
  label: string;
  /** Share of the input consumed so far (bytes of the file), when known. */
  fraction?: () => number | undefined;
  /** Parser counters (rows read, skipped by reason), when the adapter keeps them. */
  stats?: ParseStats;
}

/** A fatal, user-facing problem with the input (missing file, missing API key): exit code 1. */
export class SourceOpenError extends Error {
  override readonly name = 'SourceOpenError';
}

/**
 * Reads a file as a stream of chunks, counting bytes for the progress bar. A file larger than
 * `maxBytes` is refused before it is read, and one that grows past it while read stops the run.
 */
async function openFile(
  path: string,
  maxBytes: number,
  source: string,
): Promise<{ chunks: AsyncIterable<Uint8Array>; fraction: () => number }> {
  let size: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new SourceOpenError(`${path} is not a file`);
    size = s.size;
    if (size > maxBytes)
      throw new SourceOpenError(
        `${path} is ${size} bytes, more than the ${maxBytes} read for --source ${source} (docs/sources.md "What an import refuses")`,
      );
  } catch (err) {
    if (err instanceof SourceOpenError) throw err;
    throw new SourceOpenError(
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(err)}`,
    );
  }
  let read = 0;
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      read += chunk.length;
      yield chunk;
    }
  }
  return { chunks: boundedChunks(chunks(), maxBytes, path), fraction: () => (size === 0 ? 1 : read / size) };
}

/** The snapshot's items; a file changed since the build stops the run with its error, nothing of it published. */
async function* readSnapshotChecked(
  dir: string,
  manifest: SnapshotManifest,
  stats: ParseStats,
): AsyncGenerator<SourceItem> {
  try {
    yield* readSnapshot(dir, { manifest, stats });
  } catch (err) {
    if (err instanceof SnapshotError) throw new SourceOpenError(err.message);
    throw err;
  }
}

/** Opens the source a command names: a file through its parser, the demo generator, or a live fetch. */
export async function openSource(
  cmd: Exclude<IngestCommand, { command: 'help' | 'sync' }>,
  env: Record<string, string | undefined>,
): Promise<OpenedSource> {
  const stats = createParseStats();
  if (cmd.command === 'snapshot') {
    let manifest;
    try {
      manifest = await readManifest(cmd.dir);
    } catch (err) {
      if (err instanceof SnapshotError) throw new SourceOpenError(err.message);
      throw err;
    }
    return {
      items: readSnapshotChecked(cmd.dir, manifest, stats),
      label: `snapshot:${manifest.built_at.slice(0, 10)}`,
      stats,
    };
  }
  if (cmd.command === 'demo') {
    return {
      items: generateDemo({
        years: cmd.years,
        ...(cmd.seed !== undefined ? { seed: cmd.seed } : {}),
        ...(cmd.today !== undefined ? { today: cmd.today } : {}),
        ...(cmd.without !== undefined ? { without: cmd.without } : {}),
      }),
      label: 'demo',
    };
  }
  if (cmd.command === 'backfill') {
    const { chunks, fraction } = await openFile(cmd.file, SOURCE_FILE_MAX_BYTES[cmd.source], cmd.source);
    const file = basename(cmd.file);
    const opts = { file, stats };
    if (cmd.source === 'worldbank') return { ...(await openWorldBank(chunks, opts)), fraction };
    const items = (() => {
      switch (cmd.source) {
        case 'cftc-legacy':
          return parseCftcLegacyCsv(chunks, opts);
        case 'cftc-disaggregated':
          return parseCftcDisaggregatedCsv(chunks, opts);
        case 'eia':
          return parseEiaCsv(chunks, { ...opts, ...(cmd.series !== undefined ? { series: cmd.series } : {}) });
        case 'nass':
          return parseNassCsv(chunks, opts);
        case 'ohlcv':
          if (cmd.commodity === undefined) throw new UsageError('--commodity is required for --source ohlcv');
          return parseOhlcvCsv(chunks, { ...opts, commodity: cmd.commodity });
        case 'ams':
          if (cmd.report === undefined || !amsReport(cmd.report))
            throw new UsageError(`--report must be one of ${Object.keys(AMS_REPORTS).join(', ')} for --source ams`);
          return parseAmsJson(chunks, { ...opts, report: cmd.report });
      }
    })();
    return { items, label: `${cmd.source}:${file}`, fraction, stats };
  }
  const since = cmd.since;
  const label = `${cmd.source}:live${since !== undefined ? `:since-${since}` : ''}`;
  switch (cmd.source) {
    case 'cftc-legacy':
    case 'cftc-disaggregated':
      return {
        items: fetchCftcCot({
          format: cmd.source === 'cftc-legacy' ? 'legacy' : 'disaggregated',
          ...(since !== undefined ? { from: since } : {}),
          ...(env.CFTC_APP_TOKEN ? { appToken: env.CFTC_APP_TOKEN } : {}),
          stats,
        }),
        label,
        stats,
      };
    case 'eia': {
      const apiKey = env.EIA_API_KEY;
      if (!apiKey)
        throw new SourceOpenError('fetching from EIA needs an API key in EIA_API_KEY (free at eia.gov/opendata)');
      return {
        items: fetchEiaSeries({ apiKey, ...(since !== undefined ? { start: since } : {}), stats }),
        label,
        stats,
      };
    }
    case 'nass': {
      const apiKey = env.NASS_API_KEY;
      if (!apiKey) throw new SourceOpenError('fetching from NASS Quick Stats needs an API key in NASS_API_KEY');
      return {
        items: fetchNassQuickStats({
          apiKey,
          ...(since !== undefined ? { fromYear: Number(since.slice(0, 4)) } : {}),
          stats,
        }),
        label,
        stats,
      };
    }
    case 'ohlcv':
      throw new UsageError('ohlcv has no live source: use backfill --source ohlcv --file <path> --commodity <id>');
    case 'ams':
      // the LMR datamart needs no key
      return { items: fetchAmsReports({ ...(since !== undefined ? { from: since } : {}), stats }), label, stats };
    case 'worldbank':
      throw new UsageError('worldbank: use sync --source worldbank (it finds the monthly file), or backfill --file');
  }
}

/** The Pink Sheet is read and its layout checked here, so a changed layout stops before anything is published. */
async function openWorldBank(
  chunks: AsyncIterable<Uint8Array>,
  opts: { file: string; stats: ParseStats },
): Promise<OpenedSource> {
  let book;
  try {
    book = await readWorldBankWorkbook(chunks, opts);
  } catch (err) {
    if (err instanceof WorldBankFileError || err instanceof InputBoundError) throw new SourceOpenError(err.message);
    throw err;
  }
  return {
    items: book.stream(),
    label: `worldbank:${opts.file}`,
    stats: opts.stats,
  };
}
