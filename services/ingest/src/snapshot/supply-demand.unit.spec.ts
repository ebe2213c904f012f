import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ownFixturePath } from '../../test/helpers/source-fixtures.ts';
import { createParseStats } from '../sources/common/stats.ts';
import { CATALOG } from '../sources/registry.ts';
import type { SourceItem, SupplyDemandItem } from '../sources/types.ts';
import { readWasdeXml } from '../sources/wasde/parse.ts';
import { buildSnapshotFromFiles } from './build.ts';
import { SNAPSHOT_FILES, SNAPSHOT_FORMAT, SUPPLY_DEMAND_COLUMNS, type SnapshotManifest } from './format.ts';
import { readManifest, readSnapshot } from './read.ts';
import { writeSnapshot } from './write.ts';

// The balance sheets in a snapshot: the real June 2026 WASDE (fixtures/wasde_0626_trimmed.xml, its
// origin in fixtures/README.md) read by the parser, written and read back.
const JUNE = ownFixturePath('wasde_0626_trimmed.xml');

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'cds-snapshot-sd-'));
  dirs.push(d);
  return d;
}
async function collect(gen: AsyncIterable<SourceItem>): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const i of gen) out.push(i);
  return out;
}
async function juneSheets(): Promise<SupplyDemandItem[]> {
  const items = await collect(await readWasdeXml(createReadStream(JUNE), { file: 'wasde0626.xml', catalog: CATALOG }));
  return items.filter((i): i is SupplyDemandItem => i.kind === 'supply_demand');
}
/** A sheet release with its figures in attribute|unit order (the order a snapshot keeps them in). */
const canonical = (s: SupplyDemandItem) => ({
  ...s,
  figures: [...s.figures].sort((a, b) => (`${a.attribute}\u0000${a.unit}` < `${b.attribute}\u0000${b.unit}` ? -1 : 1)),
});
const releaseKey = (s: SupplyDemandItem) =>
  [s.commodity_id, s.region, s.marketing_year, s.edition, s.published_at].join('|');
const bySheet = (items: SupplyDemandItem[]) =>
  [...items].map(canonical).sort((a, b) => (releaseKey(a) < releaseKey(b) ? -1 : 1));

describe('the supply and demand part of a snapshot', () => {
  it('keeps every release of every balance sheet, as read from the file, and reads them back whole', async () => {
    const sheets = await juneSheets();
    expect(sheets.length).toBeGreaterThan(20);
    const dir = await tempDir();
    const written = await writeSnapshot(dir, sheets, {
      builtAt: new Date('2026-12-06T12:00:00Z'),
      builtFrom: 'files',
      origins: { wasde: [{ file: 'wasde/wasde0626.xml' }] },
    });
    expect(written.manifest.format).toBe(SNAPSHOT_FORMAT);
    const figures = sheets.reduce((n, s) => n + s.figures.length, 0);
    expect(written.manifest.files[SNAPSHOT_FILES.supply_demand]?.rows).toBe(figures);
    // dated by their editions: the May column (2026-05) and June's own
    expect(written.manifest.sources).toEqual([
      expect.objectContaining({ name: 'wasde', first_date: '2026-05-01', last_date: '2026-06-01', rows: figures }),
    ]);
    const csv = gunzipSync(await readFile(join(dir, SNAPSHOT_FILES.supply_demand)))
      .toString('utf8')
      .split('\n');
    expect(csv[0]).toBe(SUPPLY_DEMAND_COLUMNS.join(','));
    // the file states no release time: the calendar's, estimated
    expect(csv).toContain(
      'CORN,united_states,2026/27,2026-06,projection,wasde:wasde0626.xml,2026-06-11T16:00:00.000Z,true,,ending_stocks,Million Bushels,1960',
    );

    const stats = createParseStats();
    const back = await collect(readSnapshot(dir, { stats }));
    expect(back.every((i) => i.kind === 'supply_demand')).toBe(true);
    expect(bySheet(back as SupplyDemandItem[])).toEqual(bySheet(sheets));
    expect(stats.rejected).toBe(0);
  });

  it('a row the contract refuses is rejected with its line; a commodity no longer in the catalog is skipped', async () => {
    const dir = await tempDir();
    const rows = [
      SUPPLY_DEMAND_COLUMNS.join(','),
      'CORN,united_states,2026/27,2026-06,projection,wasde:x.xml,2026-06-11T16:00:00.000Z,,,ending_stocks,Million Bushels,1960',
      'CORN,united_states,2026/28,2026-06,projection,wasde:x.xml,2026-06-11T16:00:00.000Z,,,ending_stocks,Million Bushels,1960',
      'UNOBTAINIUM,united_states,2026/27,2026-06,projection,wasde:x.xml,2026-06-11T16:00:00.000Z,,,ending_stocks,Million Bushels,1',
      'CORN,united_states,2026/27,2026-05,projection,wasde:x.xml,2026-05-12T16:00:00.000Z,true,supply_equals_use_plus_ending_stocks,ending_stocks,Million Bushels,1957',
    ];
    const bytes = gzipSync(`${rows.join('\n')}\n`);
    await writeFile(join(dir, SNAPSHOT_FILES.supply_demand), bytes);
    const manifest: SnapshotManifest = {
      format: SNAPSHOT_FORMAT,
      built_at: '2026-12-06T12:00:00Z',
      built_from: 'files',
      files: {
        [SNAPSHOT_FILES.supply_demand]: {
          sha256: createHash('sha256').update(bytes).digest('hex'),
          bytes: bytes.length,
          rows: 4,
        },
      },
      sources: [],
    };
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const stats = createParseStats();
    const items = await collect(readSnapshot(dir, { stats }));
    expect(items.map((i) => i.kind)).toEqual(['supply_demand', 'rejected', 'supply_demand']);
    expect(items[1]).toMatchObject({ file: SNAPSHOT_FILES.supply_demand, line: 3 });
    expect((items[1] as { reason: string }).reason).toMatch(/^marketing_year: must be a marketing year/);
    expect(items[2]).toMatchObject({
      edition: '2026-05',
      published_at_estimated: true,
      failed_checks: ['supply_equals_use_plus_ending_stocks'],
    });
    expect(stats.skippedByReason.unknown_commodity).toBe(1);
  });

  it('snapshot:build --from takes a wasde folder of XML editions, every edition kept (no COT window)', async () => {
    const raw = await tempDir();
    await mkdir(join(raw, 'wasde'));
    await copyFile(JUNE, join(raw, 'wasde', 'wasde0626.xml'));
    const out = await tempDir();
    const summary = await buildSnapshotFromFiles({ rawDir: raw, outDir: out, cotSince: '2026-06-02' });
    expect(summary.manifest.sources.map((s) => [s.name, s.first_date, s.last_date])).toEqual([
      ['wasde', '2026-05-01', '2026-06-01'],
    ]);
    const origin = summary.manifest.sources[0]!.origin;
    expect(origin).toEqual([expect.objectContaining({ file: 'wasde/wasde0626.xml' })]);
    expect((await readManifest(out)).files[SNAPSHOT_FILES.supply_demand]?.rows).toBeGreaterThan(0);
  });
});
