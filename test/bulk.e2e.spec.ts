// Bulk files (issue #26) through the real system: events on NATS JetStream -> projector -> FerretDB,
// then the bulk job (`npm run projector -- bulk`, the CLI itself) -> bulk_files -> query -> gateway.
// The CSV.gz and Parquet files must hold exactly the rows the JSON API gives for the same series,
// match their manifest's sha256, answer ranges (206, 416) and revalidation (304), follow the plan
// rules (Free: recent files only, no COT; Professional: no disaggregated COT) and count once.
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { subjectFor, type BulkFile, type DataEvent } from '@cds/contracts';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { parse } from 'csv-parse/sync';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBulkJob } from './support/bulk.ts';
import { waitForProjections } from './support/projections.ts';
import { startE2E, type E2E } from './support/harness.ts';
import { withoutPublication } from './support/publication.ts';

let e2e: E2E;
let messaging: Messaging;
const keys: Record<string, string> = {};
const validate = createOpenApiResponseValidator();

const DAY = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const START = addDays(today, -730);

let n = 0;
function event<T extends DataEvent['type']>(type: T, data: Extract<DataEvent, { type: T }>['data']): DataEvent {
  n += 1;
  return {
    id: `bulk-e2e-${n}`,
    type,
    version: 1,
    occurred_at: new Date().toISOString(),
    source: 'e2e',
    data,
  } as DataEvent;
}

/** Two years of weekday gold prices up to yesterday, with open/high/low/close/volume. */
const PRICES = Array.from({ length: 730 }, (_, i) => addDays(START, i))
  .filter((date) => ![0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay()))
  .map((date, i) => {
    const close = Math.round((2000 + 50 * Math.sin(i / 9) + i / 3) * 100) / 100;
    return { date, value: close, open: close - 1.5, high: close + 4.25, low: close - 3, close, volume: 500 + i };
  });
/** Weekly COT reports (Tuesdays) of the last 40 weeks. */
const REPORT_DATES = Array.from({ length: 280 }, (_, i) => addDays(today, -279 + i)).filter(
  (d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 2,
);

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

async function get(path: string, key: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${e2e.gatewayUrl()}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  const bytes = Buffer.from(await res.arrayBuffer());
  const h: Record<string, string> = {};
  res.headers.forEach((v, k) => (h[k] = v));
  const template = path.split('?')[0] === '/api/v1/bulk' ? '/bulk' : '/bulk/{file}';
  validate(template, { statusCode: res.status, headers: h, body: bytes.toString('latin1') });
  return { status: res.status, headers: res.headers, bytes };
}

let manifest: Map<string, BulkFile>;

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'bulk-e2e' });
  for (const plan of ['free', 'professional', 'business', 'enterprise'] as const)
    keys[plan] = (await e2e.account(plan)).key;

  const byYear = new Map<string, typeof PRICES>();
  for (const p of PRICES) byYear.set(p.date.slice(0, 4), [...(byYear.get(p.date.slice(0, 4)) ?? []), p]);
  const events: DataEvent[] = [
    event('catalog.commodity.upserted', { id: 'GOLD', name: 'Gold', category: 'metals', unit: 'USD/troy oz' }),
    ...[...byYear].map(([period, points]) =>
      event('series.points.recorded', {
        commodity_id: 'GOLD',
        series_type: 'price',
        frequency: 'daily',
        unit: 'USD/troy oz',
        source: 'worldbank:GOLD',
        period,
        points,
      }),
    ),
    event('cot.reports.recorded', {
      commodity_id: 'GOLD',
      format: 'legacy',
      source: 'cftc:legacy:088691',
      reports: REPORT_DATES.map((report_date, i) => ({
        report_date,
        open_interest: 400_000 + i,
        commercial: { long: 100_000 + i, short: 200_000 },
        non_commercial: { long: 150_000, short: 60_000 + i, spreading: 30_000 },
        non_reportable: { long: 20_000, short: 25_000 },
      })),
    }),
    event('cot.reports.recorded', {
      commodity_id: 'GOLD',
      format: 'disaggregated',
      source: 'cftc:disaggregated:088691',
      reports: REPORT_DATES.map((report_date, i) => ({
        report_date,
        open_interest: 400_000 + i,
        producer_merchant: { long: 50_000, short: 120_000 + i },
        swap_dealer: { long: 40_000, short: 90_000, spreading: 10_000 },
        managed_money: { long: 140_000 + i, short: 30_000, spreading: 20_000 },
        other_reportable: { long: 30_000, short: 20_000, spreading: 15_000 },
      })),
    }),
  ] as DataEvent[];
  for (const e of events) await messaging.publish(subjectFor(e), e, { msgID: e.id });
  await waitForProjections(messaging, 60_000);

  const job = await runBulkJob(e2e.infra);
  if (job.code !== 0) throw new Error(`projector bulk exited ${String(job.code)}: ${job.stderr}`);
  const list = await get('/api/v1/bulk', keys.enterprise!);
  manifest = new Map((JSON.parse(list.bytes.toString('utf8')) as { data: BulkFile[] }).data.map((f) => [f.file, f]));
});

afterAll(async () => {
  await messaging?.close();
  await e2e?.stop();
});

/** The JSON API's points of the GOLD price series (every one: under MAX_SERIES_LIMIT). */
async function apiPoints(): Promise<Record<string, unknown>[]> {
  const res = await e2e.get(
    `/api/v1/commodities/GOLD/series?type=price&start_date=${START}&end_date=${today}&limit=10000`,
    {
      key: keys.enterprise!,
    },
  );
  expect(res.status).toBe(200);
  // the bulk files hold the values; when each was published is the API's (docs/point-in-time.md)
  return (res.json.data as Record<string, unknown>[]).map(withoutPublication);
}

describe('bulk files through the gateway', () => {
  it('lists every dataset in both spans and formats, with manifest, licence, attribution and plans', () => {
    expect([...manifest.keys()].sort()).toEqual(
      ['cot_disaggregated', 'cot_legacy', 'price']
        .flatMap((d) => ['full', 'recent'].flatMap((s) => [`${d}.${s}.csv.gz`, `${d}.${s}.parquet`]))
        .sort(),
    );
    expect(manifest.get('price.full.csv.gz')).toMatchObject({
      rows: PRICES.length,
      first_date: PRICES[0]!.date,
      last_date: PRICES.at(-1)!.date,
      licence: [expect.stringContaining('CC BY 4.0')],
      attribution: ['The World Bank: Commodity Price Data (The Pink Sheet), CC BY 4.0'],
      plans: ['professional', 'business', 'enterprise'],
    });
    expect(manifest.get('price.recent.parquet')!.plans).toEqual(['free', 'professional', 'business', 'enterprise']);
    expect(manifest.get('cot_disaggregated.full.parquet')!.plans).toEqual(['business', 'enterprise']);
  });

  it('the CSV.gz holds the rows the JSON API gives, and matches its sha256', async () => {
    const entry = manifest.get('price.full.csv.gz')!;
    const res = await get(`/api/v1/bulk/${entry.file}`, keys.enterprise!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('etag')).toBe(`"${entry.sha256}"`);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${entry.file}"`);
    expect(createHash('sha256').update(res.bytes).digest('hex')).toBe(entry.sha256);
    const text = new Set(['commodity', 'date', 'unit', 'source']);
    const rows = parse<Record<string, unknown>>(gunzipSync(res.bytes), {
      columns: true,
      cast: (v, c) => (c.header || v === '' || text.has(String(c.column)) ? v : Number(v)),
    });
    expect(rows.map(({ commodity: _c, unit: _u, source: _s, ...point }) => point)).toEqual(await apiPoints());
    expect(new Set(rows.map((r) => `${String(r.commodity)} ${String(r.unit)} ${String(r.source)}`))).toEqual(
      new Set(['GOLD USD/troy oz worldbank:GOLD']),
    );
  });

  it('the Parquet file holds the same rows, and matches its sha256', async () => {
    const entry = manifest.get('price.full.parquet')!;
    const res = await get(`/api/v1/bulk/${entry.file}`, keys.business!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(createHash('sha256').update(res.bytes).digest('hex')).toBe(entry.sha256);
    const file = res.bytes.buffer.slice(res.bytes.byteOffset, res.bytes.byteOffset + res.bytes.length) as ArrayBuffer;
    const rows = await parquetReadObjects({ file });
    expect(rows.map(({ commodity: _c, unit: _u, source: _s, ...point }) => point)).toEqual(await apiPoints());

    const cot = manifest.get('cot_legacy.full.parquet')!;
    const reports = await get(`/api/v1/bulk/${cot.file}`, keys.professional!);
    expect(reports.status).toBe(200);
    const cotRows = await parquetReadObjects({
      file: reports.bytes.buffer.slice(
        reports.bytes.byteOffset,
        reports.bytes.byteOffset + reports.bytes.length,
      ) as ArrayBuffer,
    });
    expect(cotRows.map((r) => r.report_date)).toEqual(REPORT_DATES);
    expect(cotRows[0]).toMatchObject({
      commodity: 'GOLD',
      commercial_net: 100_000 - 200_000,
      non_commercial_spreading: 30_000,
    });
  });

  it('answers one byte range 206 with Content-Range, 416 past the end, and 304 for a current copy', async () => {
    const entry = manifest.get('price.full.parquet')!;
    const whole = await get(`/api/v1/bulk/${entry.file}`, keys.enterprise!);
    const part = await get(`/api/v1/bulk/${entry.file}`, keys.enterprise!, { range: 'bytes=10-109' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-109/${entry.bytes}`);
    expect(part.headers.get('accept-ranges')).toBe('bytes');
    expect(part.bytes.equals(whole.bytes.subarray(10, 110))).toBe(true);
    const past = await get(`/api/v1/bulk/${entry.file}`, keys.enterprise!, { range: `bytes=${entry.bytes}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${entry.bytes}`);
    expect(JSON.parse(past.bytes.toString('utf8')).error).toMatchObject({ code: 'range_not_satisfiable' });
    const cond = await get(`/api/v1/bulk/${entry.file}`, keys.enterprise!, { 'if-none-match': `"${entry.sha256}"` });
    expect(cond.status).toBe(304);
    expect(cond.bytes.length).toBe(0);
  });

  it('refuses Free a full-history file and COT, Professional disaggregated COT (403 forbidden)', async () => {
    for (const [plan, file] of [
      ['free', 'price.full.csv.gz'],
      ['free', 'cot_legacy.recent.parquet'],
      ['professional', 'cot_disaggregated.full.csv.gz'],
    ] as const) {
      const res = await get(`/api/v1/bulk/${file}`, keys[plan]!);
      expect(res.status, `${plan} ${file}`).toBe(403);
      expect(JSON.parse(res.bytes.toString('utf8')).error).toMatchObject({ code: 'forbidden' });
    }
    const recent = await get('/api/v1/bulk/price.recent.csv.gz', keys.free!);
    expect(recent.status).toBe(200);
    const entry = manifest.get('price.recent.csv.gz')!;
    expect(createHash('sha256').update(recent.bytes).digest('hex')).toBe(entry.sha256);
    expect(entry.first_date >= addDays(today, -366)).toBe(true);
  });

  it('counts a download as one request against the windows, whatever its size', async () => {
    const { key } = await e2e.account('professional');
    const remaining = async (path: string) => Number((await get(path, key)).headers.get('x-ratelimit-remaining'));
    const before = await remaining('/api/v1/bulk');
    const during = await remaining('/api/v1/bulk/price.full.parquet');
    const after = await remaining('/api/v1/bulk');
    expect([before - during, during - after]).toEqual([1, 1]);
  });
});
