// `ingest sync` end to end: the recorded answers of the CFTC, EIA and NASS APIs, served by a local
// server, through the real CLI -> NATS JetStream -> projector -> MongoDB API -> query -> gateway,
// and the gateway's GET /status following the sync state bucket.
import { DATA_STREAM, SYNC_SOURCE_NAMES } from '@cds/contracts';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { addDays, dateOf, lastDueRelease } from '@cds/schedule';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceServer } from '@cds/ingest/testing';
import { eventually, startE2E, type E2E } from './support/harness.ts';
import { withoutPublication } from './support/publication.ts';

let e2e: E2E;
let messaging: Messaging;
let key: string;
const sources = new SourceServer();
const validate = createOpenApiResponseValidator();
const savedEnv = { ...process.env };

const WEEK = 7 * 86_400_000;
/** Whole weeks to add to `newest` so it becomes the first date on or after `target` on the same weekday. */
const weeksTo = (newest: string, target: string) =>
  Math.max(0, Math.ceil((dateOf(target).getTime() - dateOf(newest).getTime()) / WEEK));
const shift = (date: string, weeks: number) => addDays(date, 7 * weeks);

// The recorded rows are from 2022-2025; moved by whole weeks (weekdays kept) so that the newest COT
// report and the newest weekly EIA stocks are the ones the schedule expects by now: CFTC and EIA are
// then fresh, NASS (annual corn yield up to 2025, no stocks) is late, as it would be in production.
const now = new Date();
const cftcDue = lastDueRelease('cftc', now).dataDate;
const eiaDue = lastDueRelease('eia', now).dataDate;
const today = now.toISOString().slice(0, 10);
const cftcWeeks = weeksTo('2025-02-04', cftcDue);
const stocksWeeks = weeksTo('2024-08-30', eiaDue);
const spotWeeks = Math.floor((dateOf(today).getTime() - dateOf('2022-11-28').getTime()) / WEEK) - 1;
const newestCot = shift('2025-02-04', cftcWeeks);
const newestSpot = shift('2022-11-28', spotWeeks);
const newestStocks = shift('2024-08-30', stocksWeeks);

function moveRecordedRows(): void {
  for (const r of sources.cftc.legacy) {
    const d = String(r.report_date_as_yyyy_mm_dd).slice(0, 10);
    r.report_date_as_yyyy_mm_dd = `${shift(d, cftcWeeks)}T00:00:00.000`;
  }
  for (const r of sources.eia.get('RWTC')!) r.period = shift(String(r.period), spotWeeks);
  for (const r of sources.eia.get('WCESTUS1')!) r.period = shift(String(r.period), stocksWeeks);
}

async function dataStreamSeq(): Promise<number> {
  return (await messaging.jsm.streams.info(DATA_STREAM)).state.last_seq;
}

async function sync(...args: string[]) {
  const run = await e2e.ingest(['sync', '--quiet', ...args]);
  expect(run.code, run.stderr + run.stdout).toBe(0);
  return run;
}

interface SourceStatusJson {
  source: string;
  last_success_at: string | null;
  newest_data_date: string | null;
  last_run_failed: boolean;
  late: boolean;
}
async function status(): Promise<Record<string, SourceStatusJson>> {
  const res = await fetch(`${e2e.gatewayUrl()}/api/v1/status`);
  const body = await res.text();
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  validate('/status', { statusCode: res.status, headers, body });
  expect(res.status).toBe(200);
  const sources = (JSON.parse(body) as { data: { sources: SourceStatusJson[] } }).data.sources;
  return Object.fromEntries(sources.map((s) => [s.source, s]));
}

const spotPath = `/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=${shift('2022-10-31', spotWeeks)}`;

beforeAll(async () => {
  await sources.start();
  sources.reset();
  moveRecordedRows();
  Object.assign(process.env, {
    CFTC_API_URL: sources.baseUrl,
    EIA_API_URL: sources.baseUrl,
    NASS_API_URL: sources.baseUrl,
    AMS_API_URL: sources.baseUrl,
    WORLDBANK_PAGE_URL: sources.worldbankPageUrl,
    WASDE_API_URL: sources.baseUrl,
    ECB_API_URL: sources.ecbRatesUrl,
    EIA_API_KEY: 'e2e-eia-key',
    NASS_API_KEY: 'e2e-nass-key',
    SOURCE_REQUEST_INTERVAL_MS: '0',
  });
  e2e = await startE2E();
  messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'sync-e2e' });
  key = (await e2e.account('enterprise')).key;
}, 180_000);

afterAll(async () => {
  process.env = savedEnv;
  await messaging?.close();
  await e2e?.stop();
  await sources.stop();
}, 60_000);

describe('ingest sync through the whole pipeline', () => {
  let afterFirst = 0;
  let started = '';

  it('the first run publishes; the API serves the data and /status shows the synced sources fresh', async () => {
    const before = await status();
    expect(before.cftc).toMatchObject({ last_success_at: null, newest_data_date: null, late: true });

    started = new Date().toISOString();
    const run = await sync();
    expect(run.stdout).toContain(`newest data:         ${newestCot}`);
    afterFirst = await dataStreamSeq();
    expect(afterFirst).toBeGreaterThan(0);

    await eventually(
      'COT and spot prices served',
      async () => {
        const cot = await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI/cot?format=legacy', { key, validate: false });
        const spot = await e2e.get(spotPath, { key, validate: false });
        return (
          cot.status === 200 &&
          cot.json.data.length === 5 &&
          spot.status === 200 &&
          spot.json.data.length === sources.eia.get('RWTC')!.length
        );
      },
      60_000,
    );
    const cot = await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI/cot?format=legacy', { key });
    expect(cot.json.data.map((r: { report_date: string }) => r.report_date)).toContain(newestCot);
    const spot = await e2e.get(spotPath, { key });
    expect(withoutPublication(spot.json.data.at(-1))).toEqual({ date: newestSpot, value: 77.1 });

    const s = await status();
    expect(s.cftc).toMatchObject({ newest_data_date: newestCot, last_run_failed: false, late: false });
    expect(s.eia).toMatchObject({
      newest_data_date: newestSpot > newestStocks ? newestSpot : newestStocks,
      last_run_failed: false,
      late: false,
    });
    expect(s.nass).toMatchObject({ newest_data_date: '2025-12-31', last_run_failed: false, late: true });
    // the World Bank's recorded Pink Sheet (its newest month, 2025-11) and an AMS datamart with nothing new
    expect(s.worldbank).toMatchObject({ newest_data_date: '2025-11-30', last_run_failed: false });
    expect(s.ams).toMatchObject({ newest_data_date: null, last_run_failed: false });
    // the recorded ESMIS listing's June 2026 WASDE, dated by its edition
    expect(s.wasde).toMatchObject({ newest_data_date: '2026-06-01', last_run_failed: false });
    // the recorded reference rates (an excerpt of the ECB's history, to 2026-04-13)
    expect(s.ecb).toMatchObject({ newest_data_date: '2026-04-13', last_run_failed: false });
    for (const source of SYNC_SOURCE_NAMES) expect(s[source]!.last_success_at! >= started).toBe(true);
  }, 120_000);

  it('the second run publishes nothing', async () => {
    const run = await sync();
    expect(run.stdout.match(/new or revised: +0 records/g)).toHaveLength(SYNC_SOURCE_NAMES.length);
    expect(await dataStreamSeq()).toBe(afterFirst);
    const s = await status();
    // The run still counts as a success: the sources are up to date.
    expect(s.cftc!.last_success_at! > started).toBe(true);
  }, 60_000);

  it('a revised value reaches the API through a new event, with a newer last_updated', async () => {
    const first = await e2e.get(spotPath, { key });
    expect(first.json.meta.source).toBe('eia:RWTC');
    const updatedBefore = String(first.json.meta.last_updated);
    expect(Number.isNaN(Date.parse(updatedBefore))).toBe(false);
    const rows = sources.eia.get('RWTC')!;
    rows.find((r) => r.period === newestSpot)!.value = '78.25';
    const run = await sync('--source', 'eia');
    expect(run.stdout).toContain('(1 revised)');
    expect(await dataStreamSeq()).toBe(afterFirst + 1);
    await eventually(
      'revised value served',
      async () => (await e2e.get(spotPath, { key, validate: false })).json?.data?.at(-1)?.value === 78.25,
      30_000,
    );
    const spot = await e2e.get(spotPath, { key });
    expect(withoutPublication(spot.json.data.at(-1))).toEqual({ date: newestSpot, value: 78.25 });
    expect(spot.json.data).toHaveLength(rows.length);
    // The revision is newer data from the source: the series says so.
    expect(Date.parse(spot.json.meta.last_updated)).toBeGreaterThan(Date.parse(updatedBefore));
    expect(spot.json.meta.source).toBe('eia:RWTC');
  }, 60_000);

  it('GET /status needs no key and leaves every rate window untouched', async () => {
    const redis = new Redis(e2e.infra.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, commandTimeout: 2_000 });
    await redis.connect();
    try {
      const snapshot = async () => {
        const keys = (await redis.keys('*')).sort();
        return Promise.all(keys.map(async (k) => [k, (await redis.dumpBuffer(k)).toString('hex')] as const));
      };
      const before = await snapshot();
      // The keyed requests above opened this account's windows.
      expect(before.length).toBeGreaterThan(0);
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${e2e.gatewayUrl()}/api/v1/status`, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
      }
      expect(await snapshot()).toEqual(before);
    } finally {
      redis.disconnect();
    }
  }, 30_000);
});
