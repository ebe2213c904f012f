import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { openSource } from '../cli/sources.ts';
import { SOURCE_NAMES, type SourceItem, type SourceName } from '../sources/types.ts';
import type { SnapshotSource } from './format.ts';
import { writeSnapshot, type WriteSummary } from './write.ts';

/** The provenance prefix each backfill source's numbers carry (cftc-legacy → cftc). */
const PROVENANCE_OF: Partial<Record<SourceName, string>> = {
  'cftc-legacy': 'cftc',
  'cftc-disaggregated': 'cftc',
};

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
  /** Downloaded source files, one folder per backfill source: cftc-legacy/, worldbank/, eia/... */
  rawDir: string;
  outDir: string;
  /** COT reports older than this (YYYY-MM-DD) are left out; other sources keep their history. */
  cotSince: string;
  /** Where each file was downloaded from, by file name (written to the manifest); default: `<rawDir>/origins.json`. */
  downloadedFrom?: Record<string, string>;
  builtAt?: Date;
  say?: (line: string) => void;
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
  const plan: { source: SourceName; file: string; name: string }[] = [];
  for (const entry of (await readdir(opts.rawDir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    if (!entry.isDirectory()) continue;
    if (!(SOURCE_NAMES as readonly string[]).includes(entry.name))
      throw new Error(
        `${join(opts.rawDir, entry.name)}: not a source folder (expected one of ${SOURCE_NAMES.join(', ')})`,
      );
    const source = entry.name as SourceName;
    const dir = join(opts.rawDir, source);
    for (const name of (await readdir(dir)).sort()) {
      const file = join(dir, name);
      if (!(await stat(file)).isFile() || name.startsWith('.') || /\.(md|txt\.md)$/i.test(name)) continue;
      plan.push({ source, file, name });
      const provenance = PROVENANCE_OF[source] ?? source;
      (origins[provenance] ??= []).push({
        file: `${source}/${name}`,
        sha256: await sha256Of(file),
        ...(downloadedFrom[name] !== undefined ? { from: downloadedFrom[name] } : {}),
      });
    }
  }
  if (plan.length === 0) throw new Error(`${opts.rawDir} holds no source files`);

  const problems: string[] = [];
  async function* items(): AsyncGenerator<SourceItem> {
    for (const p of plan) {
      say(`reading ${p.source}/${p.name}…`);
      const opened = await openSource(
        {
          command: 'backfill',
          source: p.source,
          file: p.file,
          // an EIA file without the EIA preamble (a `Date,Value` CSV) is named after its series: RWTC.csv
          ...(p.source === 'eia' ? { series: p.name.split('.')[0]! } : {}),
          common: { ledger: false, quiet: true },
        },
        {},
      );
      let n = 0;
      for await (const item of opened.items) {
        if (item.kind === 'rejected') {
          problems.push(`${p.source}/${p.name}:${item.line}: ${item.reason}`);
          continue;
        }
        const date = item.kind === 'series' ? item.point.date : item.record.report_date;
        const fromCot = item.kind === 'cot' || item.source?.startsWith('cftc:') === true;
        if (fromCot && date < opts.cotSince) continue;
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
