// The supply_demand bulk files through the real system: the June 2026 WASDE XML
// (services/ingest/test/fixtures/wasde_0626_trimmed.xml) through the ingest CLI -> NATS -> projector
// -> the read model, then the bulk job (`npm run projector -- bulk`, the CLI itself) -> query ->
// gateway. Every row of the files must be a figure the JSON API serves in force (the derived
// stocks_to_use aside), with its unit and edition; the plans follow the series rule.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { addMonths, BULK_RECENT_MONTHS, type BulkFile } from '@cds/contracts';
import { connectMessaging } from '@cds/messaging';
import { REPO_ROOT } from '@cds/testkit';
import { parse } from 'csv-parse/sync';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBulkJob } from './support/bulk.ts';
import { eventually, startE2E, type E2E } from './support/harness.ts';
import { waitForProjections } from './support/projections.ts';

const WASDE_JUNE_2026 = join(REPO_ROOT, 'services', 'ingest', 'test', 'fixtures', 'wasde_0626_trimmed.xml');
const COLUMNS = [
  'commodity',
  'region',
  'marketing_year',
  'attribute',
  'value',
  'unit',
  'edition',
  'published_at',
  'status',
];

/** The day the recent files start (the job runs today); the June 2026 edition is in them until mid-2027. */
const RECENT_FROM = addMonths(new Date().toISOString().slice(0, 10), -BULK_RECENT_MONTHS);

let e2e: E2E;
const keys = { free: '', enterprise: '' };
let manifest: Map<string, BulkFile>;

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  const ingested = await e2e.ingest(['backfill', '--source', 'wasde', '--file', WASDE_JUNE_2026, '--quiet']);
  expect(ingested.code, ingested.stderr).toBe(0);
  for (const plan of ['free', 'enterprise'] as const) keys[plan] = (await e2e.account(plan)).key;
  const messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'bulk-sd-e2e' });
  try {
    await eventually(
      'the June 2026 balance sheets served',
      async () => {
        const res = await e2e.get('/api/v1/commodities/CORN/supply-demand?per_page=1', {
          key: keys.enterprise,
          validate: false,
        });
        return res.status === 200 && res.json.data.length > 0;
      },
      120_000,
    );
    await waitForProjections(messaging, 120_000);
  } finally {
    await messaging.close();
  }
  const job = await runBulkJob(e2e.infra, 120_000);
  expect(job.code, job.stderr).toBe(0);
  const list = await e2e.get('/api/v1/bulk', { key: keys.enterprise });
  expect(list.status).toBe(200);
  manifest = new Map((list.json.data as BulkFile[]).map((f) => [f.file, f]));
}, 300_000);

afterAll(async () => {
  await e2e?.stop();
}, 60_000);

async function download(file: string, key: string): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(`${e2e.gatewayUrl()}/api/v1/bulk/${file}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

type Row = Record<string, string | number>;
const key = (r: Row) => COLUMNS.map((c) => String(r[c])).join('|');

/** Every figure in force the API serves for the balance sheets in the files, stocks_to_use aside, as bulk rows. */
async function servedRows(commodities: string[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const slug of commodities) {
    const detail = await e2e.get(`/api/v1/commodities/${slug}`, { key: keys.enterprise });
    const sd = (detail.json.data.available_series as { type: string; regions?: string[] }[]).find(
      (s) => s.type === 'supply_demand',
    )!;
    for (const region of sd.regions ?? []) {
      for (let page = 1, pages = 1; page <= pages; page++) {
        const res = await e2e.get(
          `/api/v1/commodities/${slug}/supply-demand?region=${region}&per_page=100&page=${page}`,
          { key: keys.enterprise },
        );
        expect(res.status, res.text).toBe(200);
        pages = res.json.meta.total_pages;
        for (const f of res.json.data as (Row & { derived?: boolean })[]) {
          if (f.derived) continue;
          rows.push({ commodity: slug, ...Object.fromEntries(COLUMNS.slice(1).map((c) => [c, f[c]!])) });
        }
      }
    }
  }
  return rows;
}

describe('the supply_demand bulk files', () => {
  it('are listed with their columns, licence, attribution and the series plans', () => {
    for (const span of RECENT_FROM <= '2026-06-11' ? ['full', 'recent'] : ['full'])
      for (const format of ['csv.gz', 'parquet']) {
        const entry = manifest.get(`supply_demand.${span}.${format}`);
        expect(entry, `supply_demand.${span}.${format}`).toBeDefined();
        expect(entry!.columns).toEqual(COLUMNS);
        expect(entry!.attribution).toEqual([expect.stringMatching(/^USDA World Agricultural Outlook Board/)]);
        expect(entry!.licence).toEqual([expect.stringMatching(/public domain/i)]);
        expect(entry!.plans).toEqual(
          span === 'full'
            ? ['professional', 'business', 'enterprise']
            : ['free', 'professional', 'business', 'enterprise'],
        );
      }
    const full = manifest.get('supply_demand.full.csv.gz')!;
    // the May 2026 column of the June report and the June edition itself
    expect([full.first_date, full.last_date]).toEqual(['2026-05-12', '2026-06-11']);
  });

  it('hold every figure the API serves in force, with its unit and edition, in CSV and Parquet alike', async () => {
    const full = await download('supply_demand.full.csv.gz', keys.enterprise);
    expect(full.status).toBe(200);
    expect(createHash('sha256').update(full.bytes).digest('hex')).toBe(
      manifest.get('supply_demand.full.csv.gz')!.sha256,
    );
    const csv = parse<Row>(gunzipSync(full.bytes).toString('utf8'), {
      columns: true,
      cast: (v, c) => (c.column === 'value' ? Number(v) : v),
    });
    expect(csv.length).toBe(manifest.get('supply_demand.full.csv.gz')!.rows);
    const commodities = [...new Set(csv.map((r) => String(r.commodity)))].sort();
    expect(commodities).toContain('CORN');
    const served = await servedRows(commodities);
    expect(csv.map(key).sort()).toEqual(served.map(key).sort());
    // US corn 2026/27 ending stocks: the June edition's 1,960 million bushels
    expect(csv).toContainEqual({
      commodity: 'CORN',
      region: 'united_states',
      marketing_year: '2026/27',
      attribute: 'ending_stocks',
      value: 1960,
      unit: 'Million Bushels',
      edition: '2026-06',
      published_at: '2026-06-11T16:00:00.000Z',
      status: 'projection',
    });
    const pq = await download('supply_demand.full.parquet', keys.enterprise);
    const rows = (await parquetReadObjects({
      file: pq.bytes.buffer.slice(pq.bytes.byteOffset, pq.bytes.byteOffset + pq.bytes.length) as ArrayBuffer,
    })) as Row[];
    expect(rows.map(key).sort()).toEqual(csv.map(key).sort());
  });

  it('a Free key downloads the recent file (the editions of its 12 months) and is refused the full one', async () => {
    const all = parse<Row>(
      gunzipSync((await download('supply_demand.full.csv.gz', keys.enterprise)).bytes).toString('utf8'),
      { columns: true },
    );
    const expected = all.filter((r) => String(r.published_at).slice(0, 10) >= RECENT_FROM).map(key);
    if (expected.length === 0) {
      expect(manifest.has('supply_demand.recent.csv.gz')).toBe(false);
    } else {
      const recent = await download('supply_demand.recent.csv.gz', keys.free);
      expect(recent.status).toBe(200);
      const rows = parse<Row>(gunzipSync(recent.bytes).toString('utf8'), { columns: true });
      expect(rows.map(key).sort()).toEqual(expected.sort());
      expect(manifest.get('supply_demand.recent.csv.gz')!.first_date >= RECENT_FROM).toBe(true);
    }
    const full = await download('supply_demand.full.csv.gz', keys.free);
    expect(full.status).toBe(403);
    expect(JSON.parse(full.bytes.toString('utf8')).error.code).toBe('forbidden');
  });
});
