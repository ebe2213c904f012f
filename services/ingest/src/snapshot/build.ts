import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { openFile } from '../sources/common/files.ts';
import { createParseStats } from '../sources/common/stats.ts';
import { SYNC_SOURCES, type SyncSource } from '../sources/common/sync/task.ts';
import { CATALOG, INPUTS, REGISTRY, seriesTasks, syncPartOf } from '../sources/registry.ts';
import type { Source, SourceInput, SourceItem } from '../sources/types.ts';
import { createTaskContext, missingKey, type SyncOptions, type SyncSettings } from '../sync/run-sync.ts';
import type { SnapshotSource } from './format.ts';
import { readManifest, readSnapshot } from './read.ts';
import { writeSnapshot, type WriteSummary } from './write.ts';

/** The source of an input: its name is the provenance prefix the input's numbers carry. */
function sourceOfInput(input: SourceInput): Source {
  return REGISTRY.find((s) => s.inputs.includes(input))!;
}

/**
 * Whether a snapshot keeps a source's records only from `cotSince`, as the live build asks them:
 * a synced source that gives no `liveSince` of its own (the COT reports and their open interest).
 */
function windowedToCotSince(source: Source | undefined): boolean {
  const sync = source?.sync;
  return sync !== undefined && sync.liveSince === undefined;
}

/** The source whose provenance an item carries (`cftc:legacy:067651` → cftc). */
function sourceOfItem(item: SourceItem): Source | undefined {
  if (item.kind === 'rejected' || item.source === undefined) return undefined;
  const name = item.source.split(':', 1)[0];
  return REGISTRY.find((s) => s.name === name);
}

/** The COT reports (and the open interest they give) kept in a snapshot: from this date on. */
export function defaultCotSince(today: Date, years = 3): string {
  return `${today.getUTCFullYear() - years}-01-01`;
}

/** `origins.json` of a raw folder: file name → where it was downloaded; none when absent. */
async function readOrigins(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return {};
  }
  const parsed = z.record(z.string(), z.string().max(500)).safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${path}: expected {"<file name>": "<where it was downloaded>"}`);
  return parsed.data;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export interface BuildFromFilesOptions {
  /** Downloaded source files, one folder per `--source` input (sources/registry.ts INPUTS), named as the input. */
  rawDir: string;
  outDir: string;
  /**
   * A snapshot to start from (its rows and its sources' origins), read before the files: a file's
   * value for a date replaces the snapshot's. For adding files to the bundled snapshot without the
   * copies it was built from.
   */
  onto?: string;
  /** COT reports older than this (YYYY-MM-DD) are left out; other sources keep their history. */
  cotSince: string;
  /** Where each file was downloaded from, by file name (written to the manifest); default: `<rawDir>/origins.json`. */
  downloadedFrom?: Record<string, string>;
  builtAt?: Date;
  say?: (line: string) => void;
}

/** The date a record is windowed by: a point's date, a report's date, an edition's first day. */
function dateOfItem(item: Exclude<SourceItem, { kind: 'rejected' }>): string {
  if (item.kind === 'series') return item.point.date;
  if (item.kind === 'cot') return item.record.report_date;
  return `${item.edition}-01`;
}

/**
 * Builds the snapshot from downloaded source files: every file of each source folder goes
 * through that source's parser (as `ingest backfill --source <folder> --file <file>` would read
 * it), files in name order, so a later vintage's value for a date replaces an earlier one's. A
 * file with rejected rows fails the build, naming them: a snapshot holds only clean data.
 */
export async function buildSnapshotFromFiles(opts: BuildFromFilesOptions): Promise<WriteSummary> {
  const say = opts.say ?? (() => {});
  const downloadedFrom = opts.downloadedFrom ?? (await readOrigins(join(opts.rawDir, 'origins.json')));
  const origins: Record<string, SnapshotSource['origin']> = {};
  const plan: { source: string; input: SourceInput; file: string; name: string }[] = [];
  const inputNames = INPUTS.map((i) => i.name);
  for (const entry of (await readdir(opts.rawDir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    if (!entry.isDirectory()) continue;
    const input = INPUTS.find((i) => i.name === entry.name);
    if (input === undefined)
      throw new Error(
        `${join(opts.rawDir, entry.name)}: not a source folder (expected one of ${inputNames.join(', ')})`,
      );
    const source = entry.name;
    const dir = join(opts.rawDir, source);
    for (const name of (await readdir(dir)).sort()) {
      const file = join(dir, name);
      if (!(await stat(file)).isFile() || name.startsWith('.') || /\.(md|txt\.md)$/i.test(name)) continue;
      plan.push({ source, input, file, name });
      const provenance = sourceOfInput(input).name;
      (origins[provenance] ??= []).push({
        file: `${source}/${name}`,
        sha256: await sha256Of(file),
        ...(downloadedFrom[name] !== undefined ? { from: downloadedFrom[name] } : {}),
      });
    }
  }
  if (plan.length === 0) throw new Error(`${opts.rawDir} holds no source files`);

  const base = opts.onto === undefined ? undefined : await readManifest(opts.onto);
  for (const s of base?.sources ?? []) {
    // the snapshot's origins first; a file staged again under the same name is listed once, as staged
    const staged = new Set((origins[s.name] ?? []).map((o) => o.file));
    origins[s.name] = [...s.origin.filter((o) => !staged.has(o.file)), ...(origins[s.name] ?? [])];
  }

  const problems: string[] = [];
  async function* items(): AsyncGenerator<SourceItem> {
    if (opts.onto !== undefined && base !== undefined) {
      say(`reading the snapshot in ${opts.onto}…`);
      let n = 0;
      for await (const item of readSnapshot(opts.onto, { manifest: base, catalog: CATALOG })) {
        if (item.kind === 'rejected') {
          problems.push(`${opts.onto}/${item.file}:${item.line}: ${item.reason}`);
          continue;
        }
        const date = dateOfItem(item);
        if ((windowedToCotSince(sourceOfItem(item)) || item.kind === 'cot') && date < opts.cotSince) continue;
        n++;
        yield item;
      }
      say(`  ${n} records`);
    }
    for (const p of plan) {
      say(`reading ${p.source}/${p.name}…`);
      // as `ingest backfill --source <folder> --file <file>` reads it, with the flags its name gives
      const { chunks } = await openFile(p.file, p.input.file.maxBytes, p.source);
      const opened = await p.input.file.open(chunks, {
        ...p.input.file.snapshotFlags?.(p.name),
        file: p.name,
        stats: createParseStats(),
        catalog: CATALOG,
      });
      let n = 0;
      const windowed = windowedToCotSince(sourceOfInput(p.input));
      for await (const item of opened) {
        if (item.kind === 'rejected') {
          problems.push(`${p.source}/${p.name}:${item.line}: ${item.reason}`);
          continue;
        }
        const date = dateOfItem(item);
        if ((windowed || item.kind === 'cot') && date < opts.cotSince) continue;
        n++;
        yield item;
      }
      say(`  ${n} records`);
    }
  }
  const summary = await writeSnapshot(opts.outDir, items(), {
    builtAt: opts.builtAt ?? new Date(),
    builtFrom: 'files',
    origins,
  });
  if (problems.length > 0)
    throw new Error(
      `${problems.length} rejected rows (the snapshot was written but must not ship):\n${problems.slice(0, 20).join('\n')}`,
    );
  return summary;
}

export interface BuildLiveOptions {
  outDir: string;
  cotSince: string;
  /** Keys and addresses, as `ingest sync` takes them (EIA_API_KEY, NASS_API_KEY, *_API_URL). */
  settings: SyncSettings;
  sources?: readonly SyncSource[];
  http?: SyncOptions['http'];
  builtAt?: Date;
  say?: (line: string) => void;
}

/**
 * Builds the snapshot from the sources themselves: every mapped series of each source, fetched by
 * the same tasks `ingest sync` runs (all pages or nothing, retries, deadlines), from `cotSince`
 * for the COT reports and from each source's `liveSince` for the others. A source that needs a key it lacks, or a
 * series that fails, fails the build: a snapshot is whole or not written.
 */
export async function buildSnapshotLive(opts: BuildLiveOptions): Promise<WriteSummary> {
  const say = opts.say ?? (() => {});
  const sources = opts.sources ?? SYNC_SOURCES;
  for (const source of sources) {
    const key = missingKey(source, opts.settings);
    if (key !== undefined) throw new Error(`${key} is not set: ${source} needs an API key (docs/sources.md)`);
  }
  const builtAt = opts.builtAt ?? new Date();
  const today = builtAt.toISOString().slice(0, 10);
  const items: SourceItem[] = [];
  const problems: string[] = [];
  for (const source of sources) {
    const stats = createParseStats();
    const ctx = createTaskContext(source, {
      ...opts.settings,
      ...(opts.http !== undefined ? { http: opts.http } : {}),
      catalog: CATALOG,
      today,
      deadline: (opts.http?.now ?? Date.now)() + 60 * 60_000,
      stats,
    });
    // the whole history each source publishes (its sync part's liveSince); the COT reports from cotSince
    const since = syncPartOf(source).sync.liveSince ?? opts.cotSince;
    for (const task of seriesTasks(source, CATALOG)) {
      const from = task.from(undefined, today, since);
      say(`fetching ${source} ${task.series} from ${from}…`);
      for (const item of await task.fetch(from, ctx)) {
        if (item.kind === 'rejected')
          problems.push(`${source} ${task.series}: ${item.file}:${item.line}: ${item.reason}`);
        else items.push(item);
      }
    }
  }
  if (problems.length > 0)
    throw new Error(`${problems.length} rejected records, nothing written:\n${problems.slice(0, 20).join('\n')}`);
  const origins: Record<string, SnapshotSource['origin']> = Object.fromEntries(
    sources.map((s) => [s, [{ file: 'live', from: opts.settings.baseUrls?.[s] ?? 'the official API' }]]),
  );
  return writeSnapshot(opts.outDir, items, { builtAt, builtFrom: 'live', origins });
}
