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

describe('datasets and releases: the conditions and the lag against the calendars', () => {
  const api = (path: string) => fetch(`${e2e.gatewayUrl()}/api/v1${path}`);
  async function json(path: string, expectStatus = 200) {
    const res = await api(path);
    const body = await res.text();
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    validate(path.split('?')[0]!, { statusCode: res.status, headers, body });
    expect(res.status, body).toBe(expectStatus);
    return JSON.parse(body);
  }
  interface Release {
    data_date: string;
    local_date: string;
    status: string;
    scheduled_at: string | null;
    first_served_at: string | null;
    lag_seconds: number | null;
    backfilled?: boolean;
    shifted?: { from: string; reason: string };
    cancelled_reason?: string;
  }

  it('GET /status links to them, absolute', async () => {
    const body = await json('/status');
    // Absolute, on the gateway's public base URL (the testkit's says localhost where the tests dial 127.0.0.1).
    const port = new URL(e2e.gatewayUrl()).port;
    for (const [name, link] of Object.entries(body.links as Record<string, string>)) {
      const url = new URL(link);
      expect(url.port).toBe(port);
      expect(url.pathname).toBe(`/api/v1/${name}`);
    }
    expect(Object.keys(body.links).sort()).toEqual(['datasets', 'releases']);
  });

  it("the synced COT week is a release first served by this run, its lag measured from the calendar's time", async () => {
    const due = lastDueRelease('cftc', new Date());
    let release: Release | undefined;
    await eventually(
      'the ledger followed',
      async () => {
        const body = await json(`/releases?dataset=cftc_legacy&start_date=${addDays(due.date, -14)}`);
        release = (body.data as Release[]).find((r) => r.data_date === newestCot);
        return release?.first_served_at != null;
      },
      30_000,
    );
    const r = release!;
    expect(r.scheduled_at).toBe(due.at.toISOString());
    // Served by the sync above (the recorded rows were moved to this week), never before the calendar said.
    expect(Date.parse(r.first_served_at!)).toBeGreaterThan(Date.parse(r.scheduled_at!));
    expect(r.lag_seconds).toBeCloseTo((Date.parse(r.first_served_at!) - Date.parse(r.scheduled_at!)) / 1000, 0);
    // The grace is 2 hours: served later than that, the release was late; later than 7 days, a backfill.
    if (r.lag_seconds! > 7 * 86_400) expect(r).toMatchObject({ status: 'published', backfilled: true });
    else expect(r.status).toBe(r.lag_seconds! > 2 * 3_600 ? 'late' : 'published');
  }, 60_000);

  it('the CFTC catch-up after the 2025 shutdown is listed as shifted, the cancelled October 2025 WASDE as cancelled', async () => {
    const cot = await json('/releases?dataset=cftc_legacy&start_date=2025-11-01&end_date=2026-01-31&status=shifted');
    const first = (cot.data as Release[]).find((r) => r.data_date === '2025-09-30');
    expect(first).toMatchObject({ local_date: '2025-11-19', scheduled_at: '2025-11-19T20:30:00.000Z' });
    expect(first!.shifted!.from).toBe('2025-10-03T19:30:00.000Z');
    expect((cot.data as Release[]).map((r) => r.data_date)).toContain('2026-01-13');
    const wasde = await json('/releases?dataset=wasde&start_date=2025-10-01&end_date=2025-10-31');
    expect(wasde.data).toHaveLength(1);
    expect(wasde.data[0]).toMatchObject({ status: 'cancelled', first_served_at: null, lag_seconds: null });
    expect(wasde.data[0].cancelled_reason).toMatch(/shutdown/i);
  });

  it('GET /datasets lists every dataset over 90 days; a failing source makes its day degraded, with the reason', async () => {
    sources.faults.push({
      match: (url) => url.pathname.startsWith('/v2/'),
      times: 10_000,
      // A refusal (EIA's answer to a key it does not accept) fails the run at once: no retries to wait out.
      respond: (res) => res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":"invalid api_key"}'),
    });
    const run = await e2e.ingest(['sync', '--quiet', '--source', 'eia']);
    expect(run.code).not.toBe(0);
    sources.faults.length = 0;
    let body: {
      data: { id: string; source: string; days: { date: string; condition: string; reasons: { kind: string }[] }[] }[];
    } = { data: [] };
    await eventually(
      'the error day followed',
      async () => {
        body = await json('/datasets');
        const spot = body.data.find((d) => d.id === 'eia_spot_prices');
        return spot?.days[0]?.reasons.some((r) => r.kind === 'source_errors') === true;
      },
      30_000,
    );
    for (const d of body.data) {
      expect(d.days).toHaveLength(90);
      expect(d.days[0]!.date > d.days[89]!.date).toBe(true);
    }
    const spot = body.data.find((d) => d.id === 'eia_spot_prices')!;
    expect(['degraded', 'late', 'missing']).toContain(spot.days[0]!.condition);
    // Another source's datasets are not touched by it.
    const cot = body.data.find((d) => d.id === 'cftc_legacy')!;
    expect(cot.days[0]!.reasons.map((r) => r.kind)).not.toContain('source_errors');
  }, 90_000);

  it('an unknown dataset, a bad date, a window too long or an unknown parameter is a 400 naming it', async () => {
    const cases: [string, string][] = [
      ['/releases?dataset=nope', 'dataset'],
      ['/releases', 'dataset'],
      ['/releases?dataset=cftc_legacy&start_date=2025-13-01', 'start_date'],
      ['/releases?dataset=cftc_legacy&start_date=2020-01-01&end_date=2025-01-01', 'end_date'],
      ['/releases?dataset=cftc_legacy&start_date=2025-02-01&end_date=2025-01-01', 'end_date'],
      ['/releases?dataset=cftc_legacy&colour=red', 'colour'],
    ];
    for (const [path, param] of cases) {
      const body = await json(path, 400);
      expect(body.error, path).toMatchObject({ code: 'invalid_parameter', param });
      expect(body.error.message, path).toContain(param);
    }
  });

  it('the Atom feed is well-formed Atom', async () => {
    const res = await api('/datasets/feed');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/atom\+xml/);
    const xml = await res.text();
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\s*<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/i);
    expect(xml).toContain('</feed>');
    expect(xml).toMatch(/<updated>\d{4}-\d{2}-\d{2}T[^<]+<\/updated>/);
  });
});
