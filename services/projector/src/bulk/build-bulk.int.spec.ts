import { BULK_FORMATS, type DataEvent } from '@cds/contracts';
import type { ReadModelName } from '@cds/read-models';
import { BULK_FILES_COLLECTION, createBulkFileStore, createReadModelStore, type ReadModelDoc } from '@cds/store';
import { getTestInfra, uniqueName } from '@cds/testkit';
import { parquetReadObjects } from 'hyparquet';
import { MongoClient, type Db } from 'mongodb';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogProjection, cotProjection, seriesProjection, supplyDemandProjection } from '../projections/index.ts';
import type { ProjectedDoc, Projection } from '../projections/types.ts';
import {
  commodityUpserted,
  cotRecorded,
  foldEvents,
  JUNE_2026,
  seriesRecorded,
  supplyDemandRecorded,
} from '../testing/events.ts';
import { buildBulkFiles } from './build-bulk.ts';

// The bulk files job against the testkit's MongoDB API server (FerretDB): read models written as
// the projector writes them (folded events, through the storage port), then the job, then the
// files read back from the store.

const NOW = new Date('2026-06-15T06:00:00Z');
let client: MongoClient;
let db: Db;

const days = (from: string, n: number, step = 1): string[] =>
  Array.from({ length: n }, (_, i) =>
    new Date(Date.parse(`${from}T00:00:00Z`) + i * step * 86_400_000).toISOString().slice(0, 10),
  );

// WTI: two and a half years of prices (half of them in the recent 12 months); CORN: stocks and COT.
const wti = days('2024-01-01', 900).map((d, i): [string, number] => [d, 70 + (i % 40) / 4]);
const cornStocks = ['2024-03-01', '2025-03-01', '2026-03-01'].map((d, i): [string, number] => [d, 1000 + i]);
const cotDates = days('2025-01-07', 60, 7);
// CORN's balance sheets: 2024/25 as the May 2025 edition left it (older than 12 months), 2026/27
// in the May and June 2026 editions (ending stocks 1,957 then 1,960), and the world's 2026/27.
const MAY_2025 = '2025-05-12T16:00:00.000Z';
const MAY_2026 = '2026-05-12T16:00:00.000Z';
const WASDE = { source: 'wasde:wasde0626.xml' };

const events: DataEvent[] = [
  commodityUpserted('CRUDE_OIL_WTI', 'Crude Oil WTI'),
  commodityUpserted('CORN', 'Corn'),
  ...[2024, 2025, 2026].map((y) =>
    seriesRecorded(
      'CRUDE_OIL_WTI',
      wti.filter(([d]) => d.startsWith(String(y))),
      { period: String(y), unit: 'USD/bbl', source: 'eia:RWTC' },
    ),
  ),
  ...cornStocks.map((p) => seriesRecorded('CORN', [p], { type: 'stocks', unit: 'kbu', source: 'nass:CORN_STOCKS' })),
  cotRecorded(
    'CORN',
    cotDates.map((d, i) => [d, 100_000 + i]),
    { source: 'cftc:legacy:002602' },
  ),
  // the same weeks futures and options combined, and the CIT supplement for the last ten
  cotRecorded(
    'CORN',
    cotDates.map((d, i) => [d, 150_000 + i]),
    { source: 'cftc:legacy_combined:002602', scope: 'futures_and_options' },
  ),
  cotRecorded(
    'CORN',
    cotDates.slice(-10).map((d, i) => [d, 160_000 + i]),
    { source: 'cftc:cit:002602', format: 'cit' },
  ),
  supplyDemandRecorded(
    [
      ['production', 14_892],
      ['ending_stocks', 1_551],
    ],
    { marketingYear: '2024/25', status: 'estimate', publishedAt: MAY_2025, ...WASDE },
  ),
  supplyDemandRecorded(
    [
      ['area_planted', 95.3, 'Million Acres'],
      ['ending_stocks', 1_957],
    ],
    { publishedAt: MAY_2026, ...WASDE },
  ),
  supplyDemandRecorded(
    [
      ['area_planted', 95.3, 'Million Acres'],
      ['ending_stocks', 1_960],
    ],
    { publishedAt: JUNE_2026, ...WASDE },
  ),
  supplyDemandRecorded([['ending_stocks', 281.22, 'Million Metric Tons']], { region: 'world', ...WASDE }),
];

async function project<D extends ProjectedDoc>(name: ReadModelName, projection: Projection<D>): Promise<void> {
  const docs = [...foldEvents(projection, events).values()];
  const coll = await createReadModelStore(db).active<ReadModelDoc>(name);
  await coll.compareAndSet(docs.map((doc) => ({ doc, rev: null })));
}

beforeAll(async () => {
  client = await new MongoClient(getTestInfra().mongoUrl, { serverSelectionTimeoutMS: 5_000 }).connect();
  db = client.db(uniqueName('bulk_job'));
  await project('catalog', catalogProjection);
  await project('series', seriesProjection);
  await project('cot', cotProjection);
  await project('supply_demand', supplyDemandProjection);
});

afterAll(async () => {
  await client?.close();
});

async function fileOf(name: string): Promise<Buffer> {
  const store = createBulkFileStore(db);
  const manifest = await store.manifest();
  const parts: Uint8Array[] = [];
  for (let n = 0; ; n++) {
    const chunk = await store.chunk(manifest!.generation, name, n);
    if (chunk === null) break;
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

describe('the bulk files job', () => {
  it('writes per dataset a full and a recent file in both formats, with their manifest', async () => {
    const report = await buildBulkFiles({
      reader: createReadModelStore(db),
      files: createBulkFileStore(db),
      clock: () => NOW,
    });
    expect(report.files.map((f) => f.file).sort()).toEqual(
      ['cot_cit', 'cot_legacy', 'cot_legacy_combined', 'price', 'stocks', 'supply_demand']
        .flatMap((d) => ['full', 'recent'].flatMap((s) => BULK_FORMATS.map((f) => `${d}.${s}.${f}`)))
        .sort(),
    );
    const manifest = (await createBulkFileStore(db).manifest())!;
    const byName = new Map(manifest.files.map((f) => [f.file, f]));
    const price = byName.get('price.full.csv.gz')!;
    expect(price).toMatchObject({
      dataset: 'price',
      span: 'full',
      format: 'csv.gz',
      rows: wti.length,
      first_date: wti[0]![0],
      last_date: wti.at(-1)![0],
      generated_at: NOW.toISOString(),
      licence: [expect.stringMatching(/Public domain/)],
      attribution: ['Source: U.S. Energy Information Administration (public domain)'],
      plans: ['professional', 'business', 'enterprise'],
    });
    const recent = byName.get('price.recent.parquet')!;
    expect(recent.first_date >= '2025-06-15').toBe(true);
    expect(recent.rows).toBe(wti.filter(([d]) => d >= '2025-06-15').length);
    expect(recent.plans).toContain('free');
    expect(byName.get('cot_legacy.full.parquet')!.plans).toEqual(['professional', 'business', 'enterprise']);
    expect(byName.get('cot_legacy.recent.csv.gz')!.plans).not.toContain('free');

    for (const entry of manifest.files) {
      const bytes = await fileOf(entry.file);
      expect(bytes.length).toBe(entry.bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry.sha256);
    }
  });

  it('the files hold the observations the read models hold: CSV.gz and Parquet alike', async () => {
    const csv = gunzipSync(await fileOf('price.full.csv.gz'))
      .toString('utf8')
      .trimEnd()
      .split('\r\n');
    expect(csv[0]).toBe('commodity,date,value,open,high,low,close,volume,unit,source');
    expect(csv.slice(1)).toEqual(wti.map(([d, v]) => `CRUDE_OIL_WTI,${d},${v},,,,,,USD/bbl,eia:RWTC`));

    const pq = await fileOf('stocks.full.parquet');
    const rows = await parquetReadObjects({
      file: pq.buffer.slice(pq.byteOffset, pq.byteOffset + pq.length) as ArrayBuffer,
    });
    expect(rows).toEqual(
      cornStocks.map(([date, value]) => ({ commodity: 'CORN', date, value, unit: 'kbu', source: 'nass:CORN_STOCKS' })),
    );

    const cot = await fileOf('cot_legacy.full.parquet');
    const reports = await parquetReadObjects({
      file: cot.buffer.slice(cot.byteOffset, cot.byteOffset + cot.length) as ArrayBuffer,
    });
    expect(reports.map((r) => [r.report_date, r.open_interest])).toEqual(cotDates.map((d, i) => [d, 100_000 + i]));
    expect(reports[0]).toMatchObject({ commodity: 'CORN', format: 'legacy', source: 'cftc:legacy:002602' });
    expect(reports[0]).not.toHaveProperty('scope');

    // one file per dataset: the combined reports apart, each row with its scope
    const combined = gunzipSync(await fileOf('cot_legacy_combined.full.csv.gz'))
      .toString('utf8')
      .trimEnd()
      .split('\r\n');
    expect(combined[0]!.startsWith('report_date,commodity,format,scope,exchange,open_interest,')).toBe(true);
    expect(combined.slice(1).map((l) => l.split(',').slice(0, 4).concat(l.split(',')[5]!))).toEqual(
      cotDates.map((d, i) => [d, 'CORN', 'legacy', 'futures_and_options', String(150_000 + i)]),
    );
    const cit = await fileOf('cot_cit.full.parquet');
    const citRows = await parquetReadObjects({
      file: cit.buffer.slice(cit.byteOffset, cit.byteOffset + cit.length) as ArrayBuffer,
    });
    expect(citRows).toHaveLength(10);
    expect(citRows[0]).toMatchObject({
      format: 'cit',
      scope: 'futures_and_options',
      open_interest: 160_000,
      index_traders_long: 11,
      index_traders_short: 12,
      index_traders_net: -1,
      source: 'cftc:cit:002602',
    });
  });

  it('supply_demand: one row per figure in force with its unit and edition, the recent file the editions of 12 months', async () => {
    const manifest = (await createBulkFileStore(db).manifest())!;
    const full = manifest.files.find((f) => f.file === 'supply_demand.full.csv.gz')!;
    expect(full).toMatchObject({
      dataset: 'supply_demand',
      rows: 5,
      first_date: '2025-05-12',
      last_date: '2026-06-11',
      columns: [
        'commodity',
        'region',
        'marketing_year',
        'attribute',
        'value',
        'unit',
        'edition',
        'published_at',
        'status',
      ],
      licence: [expect.stringMatching(/public domain/i)],
      attribution: [expect.stringMatching(/^USDA World Agricultural Outlook Board/)],
      plans: ['professional', 'business', 'enterprise'],
    });
    const csv = gunzipSync(await fileOf('supply_demand.full.csv.gz'))
      .toString('utf8')
      .trimEnd()
      .split('\r\n');
    // by region, then marketing year oldest first, then the figures of the sheet
    expect(csv.slice(1)).toEqual([
      `CORN,united_states,2024/25,ending_stocks,1551,Million Bushels,2025-05,${MAY_2025},estimate`,
      `CORN,united_states,2024/25,production,14892,Million Bushels,2025-05,${MAY_2025},estimate`,
      `CORN,united_states,2026/27,area_planted,95.3,Million Acres,2026-05,${MAY_2026},projection`,
      `CORN,united_states,2026/27,ending_stocks,1960,Million Bushels,2026-06,${JUNE_2026},projection`,
      `CORN,world,2026/27,ending_stocks,281.22,Million Metric Tons,2026-06,${JUNE_2026},projection`,
    ]);
    const recent = await fileOf('supply_demand.recent.parquet');
    const rows = await parquetReadObjects({
      file: recent.buffer.slice(recent.byteOffset, recent.byteOffset + recent.length) as ArrayBuffer,
    });
    expect(rows.map((r) => [r.region, r.marketing_year, r.attribute, r.value, r.edition])).toEqual([
      ['united_states', '2026/27', 'area_planted', 95.3, '2026-05'],
      ['united_states', '2026/27', 'ending_stocks', 1960, '2026-06'],
      ['world', '2026/27', 'ending_stocks', 281.22, '2026-06'],
    ]);
    expect(manifest.files.find((f) => f.file === 'supply_demand.recent.parquet')!.plans).toContain('free');
  });

  it('a second run makes a new generation current and drops the chunks of the one before the previous', async () => {
    const files = createBulkFileStore(db);
    const before = (await files.manifest())!;
    const first = before.generation;
    await buildBulkFiles({ reader: createReadModelStore(db), files, clock: () => NOW });
    const second = (await files.manifest())!.generation;
    await buildBulkFiles({ reader: createReadModelStore(db), files, clock: () => NOW });
    const third = (await files.manifest())!.generation;
    expect(new Set([first, second, third]).size).toBe(3);
    const generations = await db.collection(BULK_FILES_COLLECTION).distinct('generation');
    expect(generations.sort()).toEqual([second, third].sort());
    // Same data, same bytes: the sha256 (the ETag) does not change with the generation.
    const shas = (m: typeof before) => m.files.map((f) => [f.file, f.sha256]).sort();
    expect(shas((await files.manifest())!)).toEqual(shas(before));
  });
});
