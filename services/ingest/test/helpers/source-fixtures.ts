import { createReadStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PositionGroup } from '@cds/contracts';
import type { SourceItem } from '../../src/sources/types.ts';

/** /work/shared/fixtures/real (the shared folder sits beside the repository clone; CDS_SHARED_DIR overrides). */
export function realFixturePath(name: string): string {
  const base = process.env.CDS_SHARED_DIR
    ? `${process.env.CDS_SHARED_DIR.replace(/\/$/, '')}/fixtures/real/`
    : fileURLToPath(new URL('../../../../../shared/fixtures/real/', import.meta.url));
  return base + name;
}

export function ownFixturePath(name: string): string {
  return fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
}

/** A file as a stream of small chunks, so parsers are exercised across chunk boundaries. */
export function chunked(path: string, highWaterMark = 97) {
  return createReadStream(path, { highWaterMark });
}

export async function collect(gen: AsyncIterable<SourceItem>): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const item of gen) out.push(item);
  return out;
}

/**
 * The raw cells of a COT file, split independently of the parser under test: the quoted market
 * name is the only quoted field of these files, everything after it splits on commas.
 */
export function rawCotRows(path: string): {
  header: string[];
  rows: { line: number; name: string; cells: string[] }[];
} {
  const lines = readFileSync(path, 'utf8').split(/\r?\n/);
  const header = lines[0]!.split('","').map((h) => h.replace(/^"|"$/g, ''));
  const rows = [];
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!;
    if (l === '') continue;
    const close = l.indexOf('",');
    rows.push({ line: i + 1, name: l.slice(1, close), cells: [l.slice(1, close), ...l.slice(close + 2).split(',')] });
  }
  return { header, rows };
}

/** net via the contracts' PositionGroup (which refines net === long - short). */
export function netOf(g: { long: number; short: number }): number {
  return PositionGroup.parse({ long: g.long, short: g.short, net: g.long - g.short }).net;
}
