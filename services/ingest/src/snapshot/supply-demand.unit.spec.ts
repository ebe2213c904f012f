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
    // one row per release of a sheet, its figures in one cell
    expect(written.manifest.files[SNAPSHOT_FILES.supply_demand]?.rows).toBe(sheets.length);
    // dated by their editions: the May column (2026-05) and June's own
    expect(written.manifest.sources).toEqual([
      expect.objectContaining({
        name: 'wasde',
        first_date: '2026-05-01',
        last_date: '2026-06-01',
        rows: sheets.length,
      }),
    ]);
    const csv = gunzipSync(await readFile(join(dir, SNAPSHOT_FILES.supply_demand)))
      .toString('utf8')
      .split('\n');
    expect(csv[0]).toBe(SUPPLY_DEMAND_COLUMNS.join(','));
    // the file states no release time: the calendar's, estimated
    const corn = csv.filter((l) =>
      l.startsWith('CORN,united_states,2026/27,2026-06,projection,wasde:wasde0626.xml,2026-06-11T16:00:00.000Z,true,,'),
    );
    expect(corn).toHaveLength(1);
    expect(corn[0]!.split(',').slice(9).join(',').split(';')).toContain('ending_stocks|Million Bushels|1960');

    const stats = createParseStats();
    const back = await collect(readSnapshot(dir, { stats }));
    expect(back.every((i) => i.kind === 'supply_demand')).toBe(true);
    expect(bySheet(back as SupplyDemandItem[])).toEqual(bySheet(sheets));
    expect(stats.rejected).toBe(0);
  });

  it('reads the releases of some editions only: from a month (with the rest of the snapshot), or only those before it', async () => {
    const sheets = await juneSheets();
    const point = {
      kind: 'series' as const,
      commodity_id: 'CORN',
      series_type: 'price' as const,
      frequency: 'monthly' as const,
      unit: 'USD/bu',
      source: 'nass:x',
      price_basis: 'received_by_farmers' as const,
      point: { date: '2026-05-31', value: 4.5 },
    };
    const dir = await tempDir();
    await writeSnapshot(dir, [point, ...sheets], {
      builtAt: new Date('2026-12-06T12:00:00Z'),
      builtFrom: 'files',
      origins: {},
    });
    const editionsOf = (items: SourceItem[]) =>
      [...new Set(items.map((i) => (i.kind === 'supply_demand' ? i.edition : i.kind)))].sort();
    const recent = await collect(readSnapshot(dir, { editions: { since: '2026-06' } }));
    expect(editionsOf(recent)).toEqual(['2026-06', 'series']);
    const history = await collect(readSnapshot(dir, { editions: { before: '2026-06' }, onlySupplyDemand: true }));
    expect(editionsOf(history)).toEqual(['2026-05']);
    // the two halves are the whole
    expect(bySheet([...recent, ...history].filter((i) => i.kind === 'supply_demand'))).toEqual(bySheet(sheets));
  });

  it('a row the contract refuses is rejected with its line; a commodity no longer in the catalog is skipped', async () => {
    const dir = await tempDir();
    const rows = [
      SUPPLY_DEMAND_COLUMNS.join(','),
      'CORN,united_states,2026/27,2026-06,projection,wasde:x.xml,2026-06-11T16:00:00.000Z,,,ending_stocks|Million Bushels|1960;exports|Million Bushels|3000',
      'CORN,united_states,2026/28,2026-06,projection,wasde:x.xml,2026-06-11T16:00:00.000Z,,,ending_stocks|Million Bushels|1960',
      'UNOBTAINIUM,united_states,2026/27,2026-06,projection,wasde:x.xml,2026-06-11T16:00:00.000Z,,,ending_stocks|Million Bushels|1',
      'CORN,united_states,2026/27,2026-05,projection,wasde:x.xml,2026-05-12T16:00:00.000Z,true,supply_equals_use_plus_ending_stocks,ending_stocks|Million Bushels|1957',
      'CORN,united_states,2025/26,2026-06,estimate,wasde:x.xml,2026-06-11T16:00:00.000Z,,,ending_stocks|Million Bushels',
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
          rows: 5,
        },
      },
      sources: [],
    };
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const stats = createParseStats();
    const items = await collect(readSnapshot(dir, { stats }));
    expect(items.map((i) => i.kind)).toEqual(['supply_demand', 'rejected', 'supply_demand', 'rejected']);
    expect(items[0]).toMatchObject({
      figures: [
        { attribute: 'ending_stocks', unit: 'Million Bushels', value: 1960 },
        { attribute: 'exports', unit: 'Million Bushels', value: 3000 },
      ],
    });
    expect(items[1]).toMatchObject({ file: SNAPSHOT_FILES.supply_demand, line: 3 });
    expect((items[1] as { reason: string }).reason).toMatch(/^marketing_year: must be a marketing year/);
    expect(items[2]).toMatchObject({
      edition: '2026-05',
      published_at_estimated: true,
      failed_checks: ['supply_equals_use_plus_ending_stocks'],
    });
    expect(items[3]).toMatchObject({
      line: 6,
      reason: 'figures: "ending_stocks|Million Bushels" is not attribute|unit|value',
    });
    expect(stats.skippedByReason.unknown_commodity).toBe(1);
  });

  it('refuses a supply and demand file of another layout (format 3: one row per figure) by its header, naming the layout', async () => {
    const dir = await tempDir();
    const old = [
      'commodity_id,region,marketing_year,edition,status,source,published_at,published_at_estimated,failed_checks,attribute,unit,value',
      'CORN,united_states,2026/27,2026-06,projection,wasde:x.xml,2026-06-11T16:00:00.000Z,,,ending_stocks,Million Bushels,1960',
    ];
    const bytes = gzipSync(`${old.join('\n')}\n`);
    await writeFile(join(dir, SNAPSHOT_FILES.supply_demand), bytes);
    const manifest: SnapshotManifest = {
      format: 3,
      built_at: '2026-12-06T12:00:00Z',
      built_from: 'files',
      files: {
        [SNAPSHOT_FILES.supply_demand]: {
          sha256: createHash('sha256').update(bytes).digest('hex'),
          bytes: bytes.length,
          rows: 1,
        },
      },
      sources: [],
    };
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const items = await collect(readSnapshot(dir, { stats: createParseStats() }));
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: 'rejected', file: SNAPSHOT_FILES.supply_demand, line: 1 });
    expect((items[0] as { reason: string }).reason).toContain(
      `header is not ${SUPPLY_DEMAND_COLUMNS.join(',')} (snapshot format 4: one row per release of a sheet)`,
    );
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
