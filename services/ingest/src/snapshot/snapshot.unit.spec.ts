import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { currencyOfRateSeries } from '@cds/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { getCommodity } from '../sources/registry.ts';
import { priceSourcesOf } from '../sources/registry.ts';
import { realFixturePath } from '../../test/helpers/source-fixtures.ts';
import { createReadStream } from 'node:fs';
import { parseCftcDisaggregatedCsv, parseCftcLegacyCsv } from '../sources/cftc/parse-annual.ts';
import { createParseStats } from '../sources/common/stats.ts';
import type { SourceItem } from '../sources/types.ts';
import { readManifest, readSnapshot, SnapshotError, snapshotStamps } from './read.ts';
import { writeSnapshot } from './write.ts';
import {
  cotColumns,
  MAX_FILE_LINES,
  MAX_INFLATED_BYTES,
  SNAPSHOT_FILES,
  SNAPSHOT_FORMAT,
  type SnapshotManifest,
} from './format.ts';
import { cotReportStamp } from '../sources/common/published.ts';
import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { buildSnapshotFromFiles } from './build.ts';
import { createHash } from 'node:crypto';
import { CATALOG } from '../sources/registry.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'cds-snapshot-'));
  dirs.push(d);
  return d;
}
async function collect(gen: AsyncIterable<SourceItem>): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const i of gen) out.push(i);
  return out;
}
const key = (i: SourceItem) =>
  i.kind === 'series'
    ? `s|${i.commodity_id}|${i.series_type}|${i.point.date}`
    : i.kind === 'cot'
      ? `c|${i.format}|${i.scope ?? ''}|${i.commodity_id}|${i.record.report_date}`
      : 'r';
const sorted = (items: SourceItem[]) => [...items].sort((a, b) => (key(a) < key(b) ? -1 : 1));

const gold: SourceItem = {
  kind: 'series',
  commodity_id: 'GOLD',
  series_type: 'price',
  frequency: 'monthly',
  unit: 'USD/troy oz',
  source: 'worldbank:GOLD',
  price_basis: 'monthly_average',
  point: { date: '2024-11-30', value: 2650.96 },
};
const corn: SourceItem = {
  kind: 'series',
  commodity_id: 'CORN',
  series_type: 'price',
  frequency: 'monthly',
  unit: 'USD/bu',
  // a data item with commas and a slash: quoted in the CSV
  source: 'nass:CORN, GRAIN - PRICE RECEIVED, MEASURED IN $ / BU',
  price_basis: 'received_by_farmers',
  point: { date: '2024-10-31', value: 3.88 },
};

// Values of real rows: CORN 2026-03-03 of the legacy combined excerpt and CORN 2024-07-23 of the CIT
// excerpt (services/ingest/test/fixtures/README.md).
const cornCombined: SourceItem = {
  kind: 'cot',
  commodity_id: 'CORN',
  format: 'legacy',
  scope: 'futures_and_options',
  source: 'cftc:legacy_combined:002602',
  record: {
    report_date: '2026-03-03',
    exchange: 'CBT',
    contract_code: '002602',
    open_interest: 2018287,
    failed_checks: ['old_plus_other_equals_all'],
    ...cotReportStamp('2026-03-03'),
    commercial: { long: 866352, short: 898700 },
    non_commercial: { long: 316243, short: 254754, spreading: 660327 },
    non_reportable: { long: 175364, short: 204505 },
  },
};
const cornCit: SourceItem = {
  kind: 'cot',
  commodity_id: 'CORN',
  format: 'cit',
  scope: 'futures_and_options',
  source: 'cftc:cit:002602',
  record: {
    report_date: '2024-07-23',
    exchange: 'CBT',
    contract_code: '002602',
    open_interest: 2106746,
    ...cotReportStamp('2024-07-23'),
    commercial: { long: 617095, short: 539649 },
    non_commercial: { long: 144113, short: 439904, spreading: 693322 },
    index_traders: { long: 456748, short: 213280 },
    non_reportable: { long: 195468, short: 220591 },
  },
};
// the futures-only report of the same market and date as the combined one: a file of its own
const cornFuturesOnly: SourceItem = {
  ...cornCombined,
  scope: undefined,
  source: 'cftc:legacy:002602',
  record: { ...(cornCombined.record as object), open_interest: 1503886, failed_checks: undefined },
} as SourceItem;
const strip = (i: SourceItem): SourceItem => JSON.parse(JSON.stringify(i)) as SourceItem;

describe('the COT datasets of a snapshot (format 2)', () => {
  it('reads back a combined and a CIT report in the files of their datasets, with their scope and failed checks', async () => {
    const dir = await tempDir();
    const items = [cornCombined, cornCit, strip(cornFuturesOnly)];
    const written = await writeSnapshot(dir, items, { builtAt: new Date(), builtFrom: 'files', origins: {} });
    expect(written.manifest.format).toBe(SNAPSHOT_FORMAT);
    expect(Object.fromEntries(Object.entries(written.manifest.files).map(([f, v]) => [f, v?.rows]))).toEqual({
      [SNAPSHOT_FILES.legacy]: 1,
      [SNAPSHOT_FILES.legacy_combined]: 1,
      [SNAPSHOT_FILES.cit]: 1,
    });
    const text = (name: string) => readFile(join(dir, name)).then((b) => gunzipSync(b).toString().split('\n'));
    const cit = await text(SNAPSHOT_FILES.cit);
    expect(cit[0]).toBe(cotColumns('cit').join(','));
    expect(cit[0]).toMatch(/,index_traders_long,index_traders_short,.*,failed_checks$/);
    expect(cit[1]).toBe(
      'CORN,cftc:cit:002602,2024-07-23,CBT,002602,2106746,617095,539649,144113,439904,693322,456748,213280,195468,220591,',
    );
    expect((await text(SNAPSHOT_FILES.legacy_combined))[1]).toMatch(/,2018287,.*,old_plus_other_equals_all$/);
    expect((await text(SNAPSHOT_FILES.legacy))[1]).toMatch(/,1503886,.*,$/);
    const stats = createParseStats();
    expect(sorted(await collect(readSnapshot(dir, { stats })))).toEqual(sorted(items));
    expect(stats.rejected).toBe(0);
  });

  it('reads a format 1 COT file (no failed_checks column) and refuses a header of another dataset, naming it', async () => {
    const dir = await tempDir();
    await writeSnapshot(dir, [strip(cornFuturesOnly), cornCit], {
      builtAt: new Date(),
      builtFrom: 'files',
      origins: {},
    });
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as SnapshotManifest;
    const put = async (name: string, csv: string) => {
      const bytes = gzipSync(csv);
      await writeFile(join(dir, name), bytes);
      manifest.files[name] = { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, rows: 1 };
    };
    const v1 = cotColumns('legacy').slice(0, -1).join(',');
    await put(SNAPSHOT_FILES.legacy, `${v1}\nCORN,cftc:legacy:002602,2026-03-03,CBT,002602,1503886,1,2,3,4,5,6,7\n`);
    // a legacy header in the CIT file
    await put(SNAPSHOT_FILES.cit, `${cotColumns('legacy').join(',')}\n`);
    await writeFile(manifestPath, JSON.stringify({ ...manifest, format: 1 }));
    const items = await collect(readSnapshot(dir));
    const legacy = items.find((i) => i.kind === 'cot');
    expect(legacy).toMatchObject({
      format: 'legacy',
      record: { open_interest: 1503886, non_reportable: { long: 6, short: 7 } },
    });
    expect(legacy?.kind === 'cot' && legacy.scope).toBeUndefined();
    expect(legacy?.kind === 'cot' && legacy.record.failed_checks).toBeUndefined();
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([
      {
        kind: 'rejected',
        file: SNAPSHOT_FILES.cit,
        line: 1,
        reason: expect.stringMatching(/^cot-cit\.csv\.gz: header is not commodity_id,.*,index_traders_long,/),
      },
    ]);
  });

  // reading the shipped snapshot validates its 56,000 balance-sheet releases too: seconds on a busy machine
  it(
    'the shipped snapshot (data/snapshot): every file on disk is in the manifest with its SHA-256 and size, 3 MB in all',
    { timeout: 60_000 },
    async () => {
      const dir = fileURLToPath(new URL('../../../../data/snapshot/', import.meta.url));
      const manifest = await readManifest(dir);
      const onDisk = (await readdir(dir)).filter((f) => f.endsWith('.gz')).sort();
      expect(onDisk).toEqual(Object.keys(manifest.files).sort());
      let total = 0;
      for (const name of onDisk) {
        const bytes = await readFile(join(dir, name));
        expect(createHash('sha256').update(bytes).digest('hex'), name).toBe(manifest.files[name]?.sha256);
        expect(bytes.length, name).toBe(manifest.files[name]?.bytes);
        expect((await stat(join(dir, name))).size).toBe(bytes.length);
        total += bytes.length;
      }
      expect(total).toBeLessThanOrEqual(3 * 1024 * 1024);
      // the combined and CIT reports the public copies allow (data/snapshot/SOURCES.md), each in its scope
      const items = await collect(readSnapshot(dir));
      const markets = (format: string, scope: string | undefined) =>
        new Set(
          items.flatMap((i) => (i.kind === 'cot' && i.format === format && i.scope === scope ? [i.commodity_id] : [])),
        );
      expect(markets('cit', 'futures_and_options').size).toBe(13);
      expect(markets('legacy', 'futures_and_options').size).toBeGreaterThanOrEqual(27);
      expect(markets('legacy', undefined).size).toBeGreaterThanOrEqual(27);
    },
  );

  it('builds onto a snapshot (--onto): its rows and origins kept, the files added, a report of a file replacing the snapshot one', async () => {
    const base = await tempDir();
    const oldCit = { ...cornCit, record: { ...(cornCit.record as object), open_interest: 1 } } as SourceItem;
    await writeSnapshot(base, [gold, strip(cornFuturesOnly), oldCit], {
      builtAt: new Date('2026-11-27T12:00:00Z'),
      builtFrom: 'files',
      origins: {
        worldbank: [{ file: 'worldbank/CMO-Historical-Data-Monthly.xlsx', from: 'a copy' }],
        cftc: [{ file: 'cftc-legacy/annual_2026.txt' }, { file: 'cftc-cit/annualci_2024.txt', from: 'an older copy' }],
      },
    });
    const raw = await tempDir();
    await mkdir(join(raw, 'cftc-cit'));
    await copyFile(
      fileURLToPath(new URL('../../test/fixtures/cftc_cit_2024_excerpt.txt', import.meta.url)),
      join(raw, 'cftc-cit', 'annualci_2024.txt'),
    );
    const out = await tempDir();
    const { manifest } = await buildSnapshotFromFiles({
      rawDir: raw,
      outDir: out,
      onto: base,
      cotSince: '2023-01-01',
      downloadedFrom: { 'annualci_2024.txt': 'the excerpt' },
    });
    expect(manifest.sources.find((s) => s.name === 'cftc')?.origin).toEqual([
      { file: 'cftc-legacy/annual_2026.txt' },
      { file: 'cftc-cit/annualci_2024.txt', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), from: 'the excerpt' },
    ]);
    expect(manifest.sources.find((s) => s.name === 'worldbank')?.origin).toEqual([
      { file: 'worldbank/CMO-Historical-Data-Monthly.xlsx', from: 'a copy' },
    ]);
    expect(manifest.files[SNAPSHOT_FILES.cit]?.rows).toBe(20);
    const items = await collect(readSnapshot(out));
    expect(items.filter((i) => i.kind === 'series')).toHaveLength(1);
    expect(items.filter((i) => i.kind === 'cot' && i.format === 'legacy')).toEqual([strip(cornFuturesOnly)]);
    const cit = items.filter((i) => i.kind === 'cot' && i.format === 'cit');
    expect(cit).toHaveLength(20);
    // the excerpt's CORN 2024-07-23 replaced the snapshot's
    expect(cit.find((i) => i.commodity_id === 'CORN' && i.record.report_date === '2024-07-23')).toMatchObject({
      scope: 'futures_and_options',
      source: 'cftc:cit:002602',
      record: { open_interest: 2106746, index_traders: { long: 456748, short: 213280 } },
    });
  });

  it('rejects a failed check the contract does not know, with its line', async () => {
    const dir = await tempDir();
    await writeSnapshot(dir, [cornCombined], { builtAt: new Date(), builtFrom: 'files', origins: {} });
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as SnapshotManifest;
    const path = join(dir, SNAPSHOT_FILES.legacy_combined);
    const bytes = gzipSync(
      gunzipSync(await readFile(path))
        .toString()
        .replace('old_plus_other_equals_all', 'looks_odd'),
    );
    await writeFile(path, bytes);
    manifest.files[SNAPSHOT_FILES.legacy_combined]!.sha256 = createHash('sha256').update(bytes).digest('hex');
    await writeFile(manifestPath, JSON.stringify(manifest));
    const items = await collect(readSnapshot(dir));
    expect(items).toEqual([
      {
        kind: 'rejected',
        file: SNAPSHOT_FILES.legacy_combined,
        line: 2,
        reason: expect.stringMatching(/failed_checks/),
      },
    ]);
  });
});

describe('the bundled snapshot format', () => {
  it('reads back exactly the items written: series with their provenance and basis, both COT formats', async () => {
    const cot = [
      ...(await collect(
        parseCftcLegacyCsv(createReadStream(realFixturePath('cftc_legacy_fut_annual_2025_excerpt.txt')), {
          catalog: CATALOG,
          file: 'annual.txt',
        }),
      )),
      ...(await collect(
        parseCftcDisaggregatedCsv(createReadStream(realFixturePath('cftc_disagg_fut_f_year_2021_excerpt.txt')), {
          catalog: CATALOG,
          file: 'f_year.txt',
        }),
      )),
    ].filter((i) => i.kind !== 'rejected');
    expect(cot.filter((i) => i.kind === 'cot').length).toBe(60);
    const items = [gold, corn, ...cot];
    const dir = await tempDir();
    const written = await writeSnapshot(dir, items, {
      builtAt: new Date('2026-11-27T12:00:00Z'),
      builtFrom: 'files',
      origins: { worldbank: [{ file: 'CMO-Historical-Data-Monthly.xlsx' }] },
    });
    expect(written).toMatchObject({ rejected: 0, demo: 0 });
    const manifest = await readManifest(dir);
    expect(manifest.sources.map((s) => s.name)).toEqual(['cftc', 'nass', 'worldbank']);
    expect(manifest.sources.find((s) => s.name === 'worldbank')).toMatchObject({
      first_date: '2024-11-30',
      last_date: '2024-11-30',
      rows: 1,
      licence: expect.stringContaining('CC BY 4.0'),
      origin: [{ file: 'CMO-Historical-Data-Monthly.xlsx' }],
    });
    const stats = createParseStats();
    const back = await collect(readSnapshot(dir, { stats }));
    // read back with their publication: the COT reports and their open interest on the CFTC's
    // calendar, as the parser stamps them; the rest when the snapshot was built (no vintage recorded)
    const built = { at: '2026-11-27T12:00:00.000Z', estimated: true };
    expect(sorted(back)).toEqual(sorted([{ ...gold, published: built }, { ...corn, published: built }, ...cot]));
    expect(stats.rejected).toBe(0);

    // the same data always gives the same bytes
    const again = await tempDir();
    await writeSnapshot(again, [...items].reverse(), {
      builtAt: new Date('2026-11-27T12:00:00Z'),
      builtFrom: 'files',
      origins: { worldbank: [{ file: 'CMO-Historical-Data-Monthly.xlsx' }] },
    });
    expect((await readManifest(again)).files).toEqual(manifest.files);
  });

  it('keeps demo data out, and the last of two items for one date', async () => {
    const dir = await tempDir();
    const demo: SourceItem = { ...gold, source: 'demo', price_basis: 'demo' };
    const revised: SourceItem = { ...gold, point: { date: '2024-11-30', value: 2651.5 } };
    const written = await writeSnapshot(dir, [gold, demo, revised], {
      builtAt: new Date(),
      builtFrom: 'live',
      origins: {},
    });
    expect(written.demo).toBe(1);
    const builtAt = (await readManifest(dir)).built_at;
    expect(await collect(readSnapshot(dir))).toEqual([{ ...revised, published: { at: builtAt, estimated: true } }]);
  });

  it('refuses a changed file before publishing anything, and says which', async () => {
    const dir = await tempDir();
    await writeSnapshot(dir, [gold, corn], { builtAt: new Date(), builtFrom: 'files', origins: {} });
    const path = join(dir, SNAPSHOT_FILES.series);
    const text = (await import('node:zlib')).gunzipSync(await readFile(path)).toString();
    await writeFile(path, gzipSync(text.replace('2650.96', '2750.96')));
    await expect(collect(readSnapshot(dir))).rejects.toThrow(
      new RegExp(`${SNAPSHOT_FILES.series} changed since the snapshot was built`),
    );
    await expect(readManifest(join(dir, 'nowhere'))).rejects.toBeInstanceOf(SnapshotError);
  });

  it('refuses a file that inflates or runs past its bounds before the first item', async () => {
    const dir = await tempDir();
    await writeSnapshot(dir, [gold, corn], { builtAt: new Date(), builtFrom: 'files', origins: {} });
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    const replace = async (bytes: Buffer) => {
      await writeFile(join(dir, SNAPSHOT_FILES.legacy), bytes);
      manifest.files[SNAPSHOT_FILES.legacy] = {
        sha256: createHash('sha256').update(bytes).digest('hex'),
        bytes: bytes.length,
        rows: 1,
      };
      await writeFile(manifestPath, JSON.stringify(manifest));
    };
    const firstItem = async () => {
      const items: SourceItem[] = [];
      const err = await (async () => {
        for await (const i of readSnapshot(dir)) items.push(i);
      })().catch((e: unknown) => e);
      return { items, err };
    };
    // 65 MB of spaces, 64 KB gzipped, in the cot-legacy file (read after series.csv.gz)
    await replace(gzipSync(Buffer.alloc(MAX_INFLATED_BYTES + 1, 32)));
    let r = await firstItem();
    expect(r.err).toBeInstanceOf(SnapshotError);
    expect((r.err as Error).message).toMatch(/cot-legacy\.csv\.gz inflates to more than the 67108864 bytes read$/);
    expect(r.items).toEqual([]);
    await replace(gzipSync(Buffer.alloc(MAX_FILE_LINES + 1, 10)));
    r = await firstItem();
    expect((r.err as Error).message).toMatch(/cot-legacy\.csv\.gz holds more than the 1000000 lines read$/);
    expect(r.items).toEqual([]);
    await replace(gzipSync(Buffer.from('commodity_id\n')).subarray(0, 15));
    r = await firstItem();
    expect((r.err as Error).message).toMatch(/cot-legacy\.csv\.gz is not a whole gzip file: /);
    expect(r.items).toEqual([]);
  });

  it('rejects a row with an unknown series type, frequency or basis, with its line; skips unknown commodities', async () => {
    const dir = await tempDir();
    await writeSnapshot(dir, [gold], { builtAt: new Date(), builtFrom: 'files', origins: {} });
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    const csv =
      'commodity_id,series_type,frequency,unit,source,price_basis,date,value\n' +
      'GOLD,price,monthly,USD/troy oz,worldbank:GOLD,monthly_average,2024-11-30,2650.96\n' +
      'GOLD,spot_price,monthly,USD/troy oz,worldbank:GOLD,,2024-10-31,1\n' +
      'GOLD,price,yearly,USD/troy oz,worldbank:GOLD,,2024-10-31,1\n' +
      'GOLD,price,monthly,USD/troy oz,worldbank:GOLD,guess,2024-10-31,1\n' +
      'GOLD,price,monthly,USD/troy oz,worldbank:GOLD,,2024-10-31,n/a\n' +
      'UNOBTAINIUM,price,monthly,USD/kg,worldbank:X,,2024-10-31,1\n';
    const bytes = gzipSync(csv);
    await writeFile(join(dir, SNAPSHOT_FILES.series), bytes);
    manifest.files[SNAPSHOT_FILES.series].sha256 = (await import('node:crypto'))
      .createHash('sha256')
      .update(bytes)
      .digest('hex');
    await writeFile(manifestPath, JSON.stringify(manifest));
    const stats = createParseStats();
    const items = await collect(readSnapshot(dir, { stats }));
    expect(items.filter((i) => i.kind === 'series')).toHaveLength(1);
    expect(items.filter((i) => i.kind === 'rejected').map((i) => i.kind === 'rejected' && [i.line, i.reason])).toEqual([
      [3, 'unknown series type "spot_price"'],
      [4, 'unknown frequency "yearly"'],
      [5, 'unknown price basis "guess"'],
      [6, expect.stringMatching(/value/)],
    ]);
    expect(stats.skippedByReason).toEqual({ unknown_commodity: 1 });
  });

  it('stamps what the manifest records: the Pink Sheet vintage its origin names, else the build time', () => {
    const manifest = (from: string[]): SnapshotManifest => ({
      format: 1,
      built_at: '2026-11-27T18:05:15.627Z',
      built_from: 'files',
      files: {},
      sources: [
        {
          name: 'worldbank',
          origin: from.map((f) => ({ file: 'CMO-Historical-Data-Monthly.xlsx', from: f })),
          licence: 'CC BY 4.0',
          first_date: null,
          last_date: null,
          rows: 0,
        },
      ],
    });
    const one = snapshotStamps(manifest(['World Bank Pink Sheet, updated June 02, 2026, as kept in x']));
    expect(one('worldbank:GOLD', '2026-05-31')).toEqual({ at: '2026-06-02T00:00:00.000Z', estimated: false });
    expect(one('eia:RWTC', '2026-05-29')).toEqual({ at: '2026-11-27T18:05:15.627Z', estimated: true });
    expect(one('cftc:legacy:088691', '2025-03-04')).toEqual({ at: '2025-03-07T20:30:00.000Z', estimated: true });
    // two vintages merged: the newest, no longer the source's statement for every row
    const two = snapshotStamps(manifest(['Pink Sheet, Updated on March 02, 2022', 'Pink Sheet, updated June 2, 2021']));
    expect(two('worldbank:GOLD', '2021-05-31')).toEqual({ at: '2022-03-02T00:00:00.000Z', estimated: true });
    expect(snapshotStamps(manifest(['no date here']))('worldbank:GOLD', '2021-05-31').estimated).toBe(true);
  });

  it(
    'the shipped snapshot (data/snapshot) is at most 3 MB, reads without a rejected row and holds no demo data',
    { timeout: 60_000 },
    async () => {
      const dir = fileURLToPath(new URL('../../../../data/snapshot/', import.meta.url));
      const manifest = await readManifest(dir);
      const bytes = Object.values(manifest.files).reduce((n, f) => n + (f?.bytes ?? 0), 0);
      expect(bytes).toBeLessThanOrEqual(3 * 1024 * 1024);
      const stats = createParseStats();
      const items = await collect(readSnapshot(dir, { stats }));
      expect(stats.rejected).toBe(0);
      expect(items.some((i) => i.kind !== 'rejected' && i.source === 'demo')).toBe(false);
      // every price comes with its basis and the source the catalog maps (one source per commodity)
      const priceSources = new Map<string, Set<string>>();
      // the exchange rates are no commodity: FX_EUR_<CCY>, no basis, the ECB's whole history (41 currencies)
      const rates = items.filter((i) => i.kind === 'series' && currencyOfRateSeries(i.commodity_id) !== undefined);
      expect(new Set(rates.map((i) => i.kind === 'series' && i.commodity_id)).size).toBe(41);
      const usd = rates.filter((i) => i.kind === 'series' && i.commodity_id === 'FX_EUR_USD');
      expect(usd.map((i) => i.kind === 'series' && i.point.date).sort()[0]).toBe('1999-01-04');
      expect(usd.find((i) => i.kind === 'series' && i.point.date === '2026-04-13')).toMatchObject({
        unit: 'USD/EUR',
        source: 'ecb:USD',
        point: { value: 1.1684 },
      });
      for (const i of items) {
        if (i.kind !== 'series' || i.series_type !== 'price' || currencyOfRateSeries(i.commodity_id) !== undefined)
          continue;
        expect(i.price_basis, `${i.commodity_id} ${i.point.date}`).toBeDefined();
        priceSources.set(i.commodity_id, (priceSources.get(i.commodity_id) ?? new Set()).add(i.source ?? ''));
      }
      for (const [id, sources] of priceSources) {
        const mapped = priceSourcesOf(getCommodity(id)!).map((p) => `${p.source}:${p.series}`);
        expect([...sources], id).toEqual(mapped);
      }
      for (const id of ['GOLD', 'COPPER', 'COFFEE', 'WHEAT_SRW', 'CRUDE_OIL_WTI', 'CORN', 'LIVE_CATTLE'])
        expect(priceSources.has(id), `${id} has a real price in the snapshot`).toBe(true);
      // COT for every commodity with a contract the CFTC still reports
      const cotCommodities = new Set(items.flatMap((i) => (i.kind === 'cot' ? [i.commodity_id] : [])));
      expect(cotCommodities.size).toBeGreaterThanOrEqual(27);
      // every record says when it was published: COT reports on the calendar, Pink Sheet points on its stated vintage
      for (const i of items) {
        if (i.kind === 'cot') expect(i.record.published_at_estimated).toBe(true);
        if (i.kind === 'series') expect(i.published?.at, `${i.source} ${i.point.date}`).toMatch(/Z$/);
      }
      // the balance sheets of every edition the public copies hold: July 2010 (and its June column) to June 2026
      const editions = [...new Set(items.flatMap((i) => (i.kind === 'supply_demand' ? [i.edition] : [])))].sort();
      expect(editions.length).toBeGreaterThanOrEqual(180);
      expect([editions[0], editions.at(-1)]).toEqual(['2010-06', '2026-06']);
      const pink = items.find((i) => i.kind === 'series' && i.source?.startsWith('worldbank:'));
      expect(pink?.kind === 'series' && pink.published).toEqual({ at: '2026-06-02T00:00:00.000Z', estimated: false });
    },
  );
});

describe('the exchange rates of a snapshot, in two halves (npm start: the last 12 months before the keys)', () => {
  it('--rates-since leaves out the older rates and nothing else; --rates-before loads only those', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'snapshot-rates-'));
    try {
      const at = (commodity_id: string, date: string, value: number, source: string): SourceItem => ({
        kind: 'series',
        commodity_id,
        series_type: 'price',
        frequency: 'daily',
        unit: commodity_id.startsWith('FX_') ? 'USD/EUR' : 'USD/bbl',
        source,
        ...(commodity_id.startsWith('FX_') ? {} : { price_basis: 'spot' as const }),
        point: { date, value },
      });
      await writeSnapshot(
        dir,
        [
          at('FX_EUR_USD', '2024-12-31', 1.0389, 'ecb:USD'),
          at('FX_EUR_USD', '2025-12-01', 1.1599, 'ecb:USD'),
          at('CRUDE_OIL_WTI', '2024-12-31', 71.72, 'eia:RWTC'),
        ],
        { builtAt: new Date('2026-04-14T00:00:00Z'), builtFrom: 'files', origins: {} },
      );
      const dates = (items: SourceItem[]) =>
        items.map((i) => (i.kind === 'series' ? `${i.commodity_id} ${i.point.date}` : i.kind));
      expect(dates(await collect(readSnapshot(dir, { rates: { since: '2025-12' } })))).toEqual([
        'CRUDE_OIL_WTI 2024-12-31',
        'FX_EUR_USD 2025-12-01',
      ]);
      const older = await collect(readSnapshot(dir, { rates: { before: '2025-12' }, onlyRates: true }));
      expect(dates(older)).toEqual(['FX_EUR_USD 2024-12-31']);
      // a year's rates share one stamp: 16:00 Frankfurt of its last TARGET day (2024-12-31, winter: 15:00Z)
      expect(older[0]!.kind === 'series' && older[0]!.published).toEqual({
        at: '2024-12-31T15:00:00.000Z',
        estimated: true,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
