import { basename } from 'node:path';
import { SourceOpenError, SourceUsageError } from '../sources/common/errors.ts';
import { openFile } from '../sources/common/files.ts';
import { createParseStats, type ParseStats } from '../sources/common/stats.ts';
import { generateDemo } from '../sources/demo/generate.ts';
import { CATALOG, inputNamed } from '../sources/registry.ts';
import type { FileFlags, SourceItem } from '../sources/types.ts';
import type { SnapshotManifest } from '../snapshot/format.ts';
import { readManifest, readSnapshot, SnapshotError } from '../snapshot/read.ts';
import { UsageError, type IngestCommand } from './args.ts';

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

export { SourceOpenError };

/** The snapshot's items; a file changed since the build stops the run with its error, nothing of it published. */
async function* readSnapshotChecked(
  dir: string,
  manifest: SnapshotManifest,
  stats: ParseStats,
  editions: { since: string } | { before: string } | undefined,
  rates: { since: string } | { before: string } | undefined,
): AsyncGenerator<SourceItem> {
  try {
    // --history-before: only the supply and demand releases of the older editions; --rates-before: only the older rates
    const only = editions !== undefined && 'before' in editions;
    yield* readSnapshot(dir, {
      manifest,
      stats,
      ...(editions !== undefined ? { editions, onlySupplyDemand: only } : {}),
      ...(rates !== undefined ? { rates, onlyRates: 'before' in rates } : {}),
    });
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
      items: readSnapshotChecked(cmd.dir, manifest, stats, cmd.editions, cmd.rates),
      label: `snapshot:${manifest.built_at.slice(0, 10)}${cmd.editions !== undefined && 'before' in cmd.editions ? `:history-before-${cmd.editions.before}` : ''}${cmd.rates !== undefined && 'before' in cmd.rates ? `:rates-before-${cmd.rates.before}` : ''}`,
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
  const input = inputNamed(cmd.source);
  if (input === undefined) throw new UsageError(`unknown source ${cmd.source}`);
  if (cmd.command === 'backfill') {
    const { chunks, fraction } = await openFile(cmd.file, input.file.maxBytes, cmd.source);
    const file = basename(cmd.file);
    const flags: FileFlags = {
      ...(cmd.commodity !== undefined ? { commodity: cmd.commodity } : {}),
      ...(cmd.series !== undefined ? { series: cmd.series } : {}),
      ...(cmd.report !== undefined ? { report: cmd.report } : {}),
      ...(cmd.publishedAt !== undefined ? { publishedAt: cmd.publishedAt } : {}),
    };
    let items;
    try {
      items = await input.file.open(chunks, { ...flags, file, stats, catalog: CATALOG });
    } catch (err) {
      if (err instanceof SourceUsageError) throw new UsageError(err.message);
      throw err;
    }
    return { items, label: `${cmd.source}:${file}`, fraction, stats };
  }
  const since = cmd.since;
  const label = `${cmd.source}:live${since !== undefined ? `:since-${since}` : ''}`;
  if (typeof input.live !== 'function') throw new UsageError(input.live.none);
  let items;
  try {
    items = input.live({ ...(since !== undefined ? { since } : {}), env, stats, catalog: CATALOG });
  } catch (err) {
    if (err instanceof SourceUsageError) throw new UsageError(err.message);
    throw err;
  }
  return { items, label, stats };
}
