import { Writable } from 'node:stream';
import {
  buildOpenApiDocument,
  CONDITION_DAYS,
  DATASETS,
  type ConsistencyDay,
  type DatasetsResponse,
  type Incident,
  type LedgerEntry,
  type ReleasesResponse,
  type ReleaseRule,
  type SourceErrorDay,
  type SyncSourceName,
} from '@cds/contracts';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { easternInstant, zonedInstant } from '@cds/schedule';
import { createLogger, createMetrics } from '@cds/telemetry';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import type { RateLimiter } from '../rate/windows.ts';
import { createStatusBoard } from '../status/status-document.ts';
import { SourceErrorDays } from '../status/sync-state.ts';
import { createDatasetsBoard } from './board.ts';
import { registerDatasetMetrics } from './metrics.ts';
import type { CalendarRelease } from './releases.ts';
import { IncidentTable, LedgerTable } from './tables.ts';

const doc = buildOpenApiDocument();
const validate = createOpenApiResponseValidator(doc);

/** Saturday 2025-11-22 12:00 in New York: the CFTC is publishing its shutdown catch-up. */
const NOW = Date.parse('2025-11-22T17:00:00.000Z');
const SHUTDOWN = '2025 federal government shutdown: CFTC catch-up schedule';

function cot(date: string, dataDate: string, usual?: string): CalendarRelease {
  return {
    rule: 'cot-weekly',
    report: 'Commitments of Traders',
    date,
    time: '15:30',
    at: easternInstant(date, '15:30'),
    dataDate,
    ...(usual === undefined ? {} : { shifted: { from: easternInstant(usual, '15:30'), reason: SHUTDOWN } }),
  };
}

/** Fixed calendars: a few COT releases around the catch-up, WASDE with October cancelled, and the ECB's November days. */
const CALENDARS: Partial<Record<ReleaseRule, CalendarRelease[]>> = {
  'cot-weekly': [
    cot('2025-09-26', '2025-09-23'),
    cot('2025-11-19', '2025-09-30', '2025-10-03'),
    cot('2025-11-21', '2025-10-07', '2025-10-10'),
    cot('2025-11-25', '2025-10-14', '2025-10-17'),
  ],
  'supply-demand-monthly': [
    {
      rule: 'supply-demand-monthly',
      report: 'World Agricultural Supply and Demand Estimates',
      date: '2025-10-09',
      time: '12:00',
      at: easternInstant('2025-10-09', '12:00'),
      dataDate: '2025-10-01',
      cancelled: 'not published during the 2025 federal government shutdown',
    },
    {
      rule: 'supply-demand-monthly',
      report: 'World Agricultural Supply and Demand Estimates',
      date: '2025-11-14',
      time: '12:00',
      at: easternInstant('2025-11-14', '12:00'),
      dataDate: '2025-11-01',
    },
  ],
  'fx-reference-daily': ['03', '04', '05', '06', '07', '10', '11', '12', '13', '14', '17', '18', '19', '20', '21'].map(
    (d) => {
      const at = zonedInstant(`2025-11-${d}`, '16:00', 'Europe/Berlin');
      return {
        rule: 'fx-reference-daily',
        report: 'Euro foreign exchange reference rates',
        date: `2025-11-${d}`,
        time: '10:00',
        at,
        dataDate: `2025-11-${d}`,
      };
    },
  ),
};
const calendar = (rule: ReleaseRule, start: string, end: string) =>
  (CALENDARS[rule] ?? []).filter((r) => r.date >= start && r.date <= end);

const iso = (ms: number) => new Date(ms).toISOString();
const at = (r: CalendarRelease | undefined) => r!.at.getTime();
const cotAt = (i: number) => at(CALENDARS['cot-weekly']![i]);

function ledgers(): LedgerTable {
  const t = new LedgerTable();
  t.put({
    dataset: 'cftc_legacy',
    entries: [
      { lo: '2025-09-23', hi: '2025-09-23', f: iso(cotAt(0) + 600_000), p: iso(cotAt(0)) },
      // The catch-up's first report, served 2 h 30 min after its time: late.
      { lo: '2025-09-30', hi: '2025-09-30', f: iso(cotAt(1) + 9_000_000), p: iso(cotAt(1)) },
    ],
  });
  const wasdeAt = at(CALENDARS['supply-demand-monthly']![1]);
  t.put({
    dataset: 'wasde',
    entries: [{ lo: '2025-11-01', hi: '2025-11-01', f: iso(wasdeAt + 600_000), p: iso(wasdeAt) }],
  });
  const fx = CALENDARS['fx-reference-daily']!;
  const entries: LedgerEntry[] = [
    // October to November 10 loaded at once on November 20: backfilled, its lag not counted.
    { lo: '2025-10-01', hi: '2025-11-10', f: '2025-11-20T00:00:00.000Z', p: '2025-11-20T00:00:00.000Z', e: true },
    // Then one a day, 1 to 9 minutes after 16:00 Frankfurt.
    ...fx.slice(6).map((r, i) => ({
      lo: r.dataDate,
      hi: r.dataDate,
      f: iso(at(r) + 60_000 * (i + 1)),
      p: iso(at(r)),
    })),
  ];
  t.put({ dataset: 'ecb_reference_rates', entries });
  t.put({
    dataset: 'eia_monthly',
    entries: [{ lo: '2025-08-31', hi: '2025-08-31', f: '2025-10-31T15:00:00.000Z', p: '2025-10-31T14:00:00.000Z' }],
  });
  return t;
}

const incident = (over: Partial<Incident>): Incident => ({
  id: 'inc_0000000a',
  title: 'COT <reports> & positions delayed',
  state: 'investigating',
  datasets: ['cftc_legacy'],
  started_at: '2025-11-21T21:00:00.000Z',
  updates: [{ at: '2025-11-21T21:00:00.000Z', state: 'investigating', message: 'The CFTC site answers "503".' }],
  ...over,
});

function makeBoard(opts: { checks?: ConsistencyDay[]; errors?: SourceErrorDay[] } = {}) {
  const incidents = new IncidentTable();
  incidents.put(incident({}));
  incidents.put(
    incident({
      id: 'inc_0000000b',
      title: 'Old and resolved',
      state: 'resolved',
      started_at: '2025-06-01T12:00:00.000Z',
      resolved_at: '2025-06-01T13:00:00.000Z',
    }),
  );
  incidents.put(
    incident({
      id: 'inc_0000000c',
      title: 'Resolved this month',
      datasets: [],
      state: 'resolved',
      started_at: '2025-11-03T12:00:00.000Z',
      resolved_at: '2025-11-03T13:00:00.000Z',
      updates: [
        { at: '2025-11-03T12:00:00.000Z', state: 'investigating', message: 'Slow answers.' },
        { at: '2025-11-03T13:00:00.000Z', state: 'resolved', message: 'Fixed.' },
      ],
    }),
  );
  const errors = new SourceErrorDays();
  for (const e of opts.errors ?? []) errors.put(e);
  const board = createDatasetsBoard({
    ledgers: ledgers(),
    incidents,
    errors,
    checks: { consistency: () => opts.checks ?? [], version: () => 0 },
    calendar,
  });
  return { board, incidents };
}

function harness(opts: { board?: boolean; checks?: ConsistencyDay[]; errors?: SourceErrorDay[] } = {}) {
  return publicApp({ ...(opts.board === false ? {} : { datasets: makeBoard(opts).board }) });
}

/** The gateway with what its public routes use; the rate windows and the query service refuse to be asked. */
function publicApp(more: Partial<Parameters<typeof buildApp>[0]>, publicBaseUrl = 'https://api.example.com') {
  const refuse = () => Promise.reject(new Error('the rate windows must not be asked for a public route'));
  const rateLimiter: RateLimiter = { take: refuse, check: refuse, giveBack: refuse };
  return buildApp({
    keys: { lookup: () => undefined, isReady: () => true },
    rateLimiter,
    query: { get: () => Promise.reject(new Error('no query call')), close: () => Promise.resolve() },
    logger: createLogger({
      name: 'gateway',
      level: 'warn',
      destination: new Writable({ write: (_c, _e, cb) => cb() }),
    }),
    nowMs: () => NOW,
    publicBaseUrl,
    openapiDocument: doc,
    ...more,
  });
}

type Summary = DatasetsResponse['data'][number];
const summaryOf = (body: DatasetsResponse, id: string) => body.data.find((d) => d.id === id)!;
const dayOf = (s: Summary, date: string) => s.days.find((d) => d.date === date)!;

describe('GET /api/v1/datasets', () => {
  it('answers every dataset with 90 days, today first, cacheable, in the documented shape, without a key', async () => {
    const app = harness();
    const res = await app.inject({ url: '/api/v1/datasets' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    validate('/datasets', { statusCode: res.statusCode, headers: res.headers, body: res.body });
    const body = res.json<DatasetsResponse>();
    expect(body.data.map((d) => d.id)).toEqual(DATASETS.map((d) => d.id));
    for (const d of body.data) {
      expect(d.days).toHaveLength(CONDITION_DAYS);
      expect(d.days[0]!.date).toBe('2025-11-22');
      expect(d.days.at(-1)!.date).toBe('2025-08-25');
      expect(d.condition).toBe(d.days[0]!.condition);
    }
    expect(body.meta.generated_at).toBe('2025-11-22T17:00:00.000Z');
    await app.close();
  });

  it('a release served after its grace makes its day late; one not served yet too; the catch-up shows as shifted', async () => {
    const app = harness();
    const legacy = summaryOf((await app.inject({ url: '/api/v1/datasets' })).json<DatasetsResponse>(), 'cftc_legacy');
    expect(dayOf(legacy, '2025-11-19')).toEqual({
      date: '2025-11-19',
      condition: 'late',
      reasons: [
        {
          kind: 'late_release',
          message:
            'Commitments of Traders scheduled 2025-11-19 15:30 ET (data of 2025-09-30) was served 2 h 30 min after its time, past the grace.',
        },
      ],
    });
    expect(dayOf(legacy, '2025-11-21').condition).toBe('late');
    expect(dayOf(legacy, '2025-11-21').reasons[0]!.message).toContain('is not served yet');
    expect(dayOf(legacy, '2025-09-26')).toEqual({ date: '2025-09-26', condition: 'available', reasons: [] });
    expect(legacy.last_release).toMatchObject({ local_date: '2025-11-21', status: 'late', first_served_at: null });
    expect(legacy.next_release).toMatchObject({
      local_date: '2025-11-25',
      status: 'scheduled',
      data_date: '2025-10-14',
      shifted: { from: '2025-10-17T19:30:00.000Z', reason: SHUTDOWN },
    });
    await app.close();
  });

  it('a release never served within 7 days is missing (a dataset with an empty ledger)', async () => {
    const app = harness();
    const cit = summaryOf((await app.inject({ url: '/api/v1/datasets' })).json<DatasetsResponse>(), 'cftc_cit');
    expect(dayOf(cit, '2025-09-26')).toMatchObject({
      condition: 'missing',
      reasons: [{ kind: 'missing_release' }],
    });
    await app.close();
  });

  it('a cancelled WASDE leaves its day available with the reason; the next edition is published', async () => {
    const app = harness();
    const wasde = summaryOf((await app.inject({ url: '/api/v1/datasets' })).json<DatasetsResponse>(), 'wasde');
    expect(dayOf(wasde, '2025-10-09')).toEqual({
      date: '2025-10-09',
      condition: 'available',
      reasons: [
        {
          kind: 'cancelled',
          message:
            'The agency cancelled the World Agricultural Supply and Demand Estimates of 2025-10-09: not published during the 2025 federal government shutdown.',
        },
      ],
    });
    expect(wasde.last_release).toMatchObject({ local_date: '2025-11-14', status: 'published', lag_seconds: 600 });
    expect(wasde.next_release).toBeNull();
    await app.close();
  });

  it('consistency failures degrade the day of the release that carried them; source errors degrade their day', async () => {
    const failed = (dataset: string, date: string): ConsistencyDay => ({
      dataset,
      date,
      failed_reports: 2,
      checks: { combined_oi_at_least_futures_only: 2 },
      commodities: ['CORN', 'WHEAT'],
    });
    const app = harness({
      checks: [failed('cot_legacy', '2025-09-23'), failed('supply_demand', '2025-11-14')],
      errors: [
        {
          source: 'cftc',
          date: '2025-11-10',
          failed_runs: 3,
          last_error: 'HTTP 503 from the agency',
          last_failed_at: '2025-11-10T21:00:00.000Z',
        },
      ],
    });
    const body = (await app.inject({ url: '/api/v1/datasets' })).json<DatasetsResponse>();
    const legacy = summaryOf(body, 'cftc_legacy');
    // The report of Tuesday 09-23 came with the release of Friday 09-26.
    expect(dayOf(legacy, '2025-09-26')).toEqual({
      date: '2025-09-26',
      condition: 'degraded',
      reasons: [
        {
          kind: 'check_failed',
          message:
            '2 reports dated 2025-09-23 failed a consistency check (combined_oi_at_least_futures_only): CORN, WHEAT.',
        },
      ],
    });
    expect(dayOf(summaryOf(body, 'wasde'), '2025-11-14').condition).toBe('degraded');
    for (const id of ['cftc_legacy', 'cftc_cit', 'cftc_open_interest']) {
      expect(dayOf(summaryOf(body, id), '2025-11-10')).toEqual({
        date: '2025-11-10',
        condition: 'degraded',
        reasons: [
          { kind: 'source_errors', message: '3 sync runs of the source failed; the last: HTTP 503 from the agency' },
        ],
      });
    }
    expect(dayOf(summaryOf(body, 'wasde'), '2025-11-10').condition).toBe('available');
    await app.close();
  });

  it('p50 and p95 per month over the releases served live; a backfilled history is published, not counted', async () => {
    const app = harness();
    const ecb = summaryOf(
      (await app.inject({ url: '/api/v1/datasets' })).json<DatasetsResponse>(),
      'ecb_reference_rates',
    );
    expect(ecb.freshness).toHaveLength(12);
    expect(ecb.freshness[0]).toEqual({ month: '2025-11', releases: 9, p50_lag_seconds: 300, p95_lag_seconds: 540 });
    expect(ecb.freshness[11]!.month).toBe('2024-12');
    expect(ecb.days.every((d) => d.condition === 'available')).toBe(true);
    await app.close();
  });

  it('lists incidents open or started in the last 90 days, newest first', async () => {
    const app = harness();
    const body = (await app.inject({ url: '/api/v1/datasets' })).json<DatasetsResponse>();
    expect(body.incidents.map((i) => i.id)).toEqual(['inc_0000000a', 'inc_0000000c']);
    await app.close();
  });

  it('is 503 without the followers, and 405 for other methods', async () => {
    const app = harness({ board: false });
    for (const url of ['/api/v1/datasets', '/api/v1/datasets/feed', '/api/v1/releases?dataset=wasde']) {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(503);
      expect(res.json<{ error: { code: string } }>().error.code).toBe('service_unavailable');
    }
    expect((await app.inject({ method: 'POST', url: '/api/v1/datasets' })).statusCode).toBe(405);
    await app.close();
  });
});

describe('GET /api/v1/releases', () => {
  it("lists a dataset's releases oldest first in the default window, with the catch-up shifted", async () => {
    const app = harness();
    const res = await app.inject({ url: '/api/v1/releases?dataset=cftc_legacy' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    validate('/releases', { statusCode: res.statusCode, headers: res.headers, body: res.body });
    const body = res.json<ReleasesResponse>();
    expect(body.meta).toMatchObject({
      dataset: 'cftc_legacy',
      start_date: '2025-08-24',
      end_date: '2025-12-23',
      page: 1,
      per_page: 25,
      total: 4,
    });
    expect(body.data.map((r) => [r.local_date, r.status, r.shifted?.reason ?? null])).toEqual([
      ['2025-09-26', 'published', null],
      ['2025-11-19', 'late', SHUTDOWN],
      ['2025-11-21', 'late', SHUTDOWN],
      ['2025-11-25', 'scheduled', SHUTDOWN],
    ]);
    expect(body.meta.freshness.map((m) => [m.month, m.releases])).toEqual([
      ['2025-12', 0],
      ['2025-11', 1],
      ['2025-10', 0],
      ['2025-09', 1],
      ['2025-08', 0],
    ]);
    await app.close();
  });

  it('filters by status (shifted: the moved ones) and pages', async () => {
    const app = harness();
    const shifted = (
      await app.inject({ url: '/api/v1/releases?dataset=cftc_legacy&status=shifted&per_page=2&page=2' })
    ).json<ReleasesResponse>();
    expect(shifted.meta.total).toBe(3);
    expect(shifted.data.map((r) => r.local_date)).toEqual(['2025-11-25']);
    const cancelled = (
      await app.inject({
        url: '/api/v1/releases?dataset=wasde&status=cancelled&start_date=2025-09-01&end_date=2025-12-31',
      })
    ).json<ReleasesResponse>();
    expect(cancelled.data).toEqual([
      expect.objectContaining({ local_date: '2025-10-09', status: 'cancelled', first_served_at: null }),
    ]);
    const past = (await app.inject({ url: '/api/v1/releases?dataset=cftc_legacy&page=9' })).json<ReleasesResponse>();
    expect(past.data).toEqual([]);
    await app.close();
  });

  it('a window given by one date alone stays within 366 days', async () => {
    const app = harness();
    const meta = async (q: string) =>
      (await app.inject({ url: `/api/v1/releases?dataset=wasde&${q}` })).json<ReleasesResponse>().meta;
    expect(await meta('start_date=2018-01-01')).toMatchObject({ start_date: '2018-01-01', end_date: '2019-01-02' });
    expect(await meta('end_date=2019-03-31')).toMatchObject({ start_date: '2018-12-31', end_date: '2019-03-31' });
    expect(await meta('start_date=2026-06-01')).toMatchObject({ start_date: '2026-06-01', end_date: '2026-07-02' });
    // The years the calendars cover bound the defaults too.
    expect(await meta('end_date=1901-02-01')).toMatchObject({ start_date: '1901-01-01', end_date: '1901-02-01' });
    expect(await meta('start_date=2998-12-01')).toMatchObject({ start_date: '2998-12-01', end_date: '2998-12-31' });
    await app.close();
  });

  it.each([
    ['dataset=nope', 'dataset', /must be one of cftc_legacy, .*wasde.*ecb_reference_rates/],
    ['', 'dataset', /'dataset' is required/],
    ['dataset=wasde&start_date=2025-02-30', 'start_date', /real calendar date/],
    ['dataset=wasde&end_date=yesterday', 'end_date', /YYYY-MM-DD/],
    ['dataset=wasde&start_date=2025-03-01&end_date=2025-02-01', 'end_date', /before start_date/],
    ['dataset=wasde&start_date=2024-01-01&end_date=2025-01-02', 'end_date', /longer than 366 days/],
    [
      'dataset=wasde&status=late-ish',
      'status',
      /must be one of scheduled, published, late, missing, cancelled, shifted/,
    ],
    ['dataset=wasde&per_page=101', 'per_page', /1 to 100/],
    ['dataset=wasde&colour=red', 'colour', /unknown parameter 'colour'/],
    ['dataset=wasde&dataset=ecb_reference_rates', 'dataset', /only once/],
    ['dataset=wasde&start_date=1899-12-31', 'start_date', /must be from 1901-01-01 to 2998-12-31/],
    ['dataset=wasde&end_date=9999-12-31', 'end_date', /must be from 1901-01-01 to 2998-12-31/],
  ])('?%s is a 400 naming %s', async (query, param, message) => {
    const app = harness();
    const res = await app.inject({ url: `/api/v1/releases?${query}` });
    expect(res.statusCode).toBe(400);
    validate('/releases', { statusCode: res.statusCode, headers: res.headers, body: res.body });
    const { error } = res.json<{ error: { code: string; param: string; message: string } }>();
    expect(error).toMatchObject({ code: 'invalid_parameter', param });
    expect(error.message).toMatch(message);
    await app.close();
  });

  it('a window of exactly 366 days is answered; api_key is ignored (public route)', async () => {
    const app = harness();
    const res = await app.inject({
      url: '/api/v1/releases?dataset=ecb_reference_rates&start_date=2025-01-01&end_date=2026-01-02&api_key=x',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<ReleasesResponse>().meta.total).toBe(15);
    await app.close();
  });
});

describe('GET /api/v1/datasets/feed', () => {
  it('an Atom feed, newest first: incident updates and the days that turned late, missing or degraded; XML escaped', async () => {
    const app = harness();
    const res = await app.inject({ url: '/api/v1/datasets/feed' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    validate('/datasets/feed', { statusCode: res.statusCode, headers: res.headers, body: res.body });
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    const xml = res.body;
    expect(xml.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">')).toBe(
      true,
    );
    expect(xml).toContain('<id>https://api.example.com/api/v1/datasets/feed</id>');
    expect(xml).toContain('<title>COT &lt;reports&gt; &amp; positions delayed (investigating)</title>');
    expect(xml).toContain('The CFTC site answers &quot;503&quot;.');
    expect(xml).not.toMatch(/<reports>|& /);
    const updated = [...xml.matchAll(/<updated>([^<]+)<\/updated>/g)].map((m) => m[1]!);
    // The feed's own, then each entry's, newest first.
    const entries = updated.slice(1);
    expect(updated[0]).toBe(entries[0]);
    expect([...entries].sort().reverse()).toEqual(entries);
    const titles = [...xml.matchAll(/<entry>\s*<id>[^<]+<\/id>\s*<title>([^<]+)<\/title>/g)].map((m) => m[1]!);
    // The catch-up release of 11-21 turned late at 22:30Z, after the incident (21:00Z).
    expect(titles[0]).toBe('COT legacy, futures only: late on 2025-11-21');
    expect(titles).toContain('COT &lt;reports&gt; &amp; positions delayed (investigating)');
    expect(titles).toContain('COT supplemental (Commodity Index Traders): missing on 2025-09-26');
    expect(titles).toContain('Resolved this month (resolved)');
    await app.close();
  });
});

describe('GET /api/v1/status links', () => {
  it('links to the datasets and the releases, absolute', async () => {
    const empty = { get: (_s: SyncSourceName) => undefined, version: () => 0 };
    const app = publicApp({ status: createStatusBoard(empty, { demo: false }) }, 'https://api.example.com/');
    const res = await app.inject({ url: '/api/v1/status' });
    validate('/status', { statusCode: res.statusCode, headers: res.headers, body: res.body });
    expect(res.json<{ links: unknown }>().links).toEqual({
      datasets: 'https://api.example.com/api/v1/datasets',
      releases: 'https://api.example.com/api/v1/releases',
    });
    await app.close();
  });
});

describe('dataset metrics', () => {
  it("exports each dataset's condition today (0 available to 3 missing) and the incidents dropped", async () => {
    const metrics = createMetrics('gateway-test');
    const { board, incidents } = makeBoard({
      errors: [
        {
          source: 'ecb',
          date: '2025-11-22',
          failed_runs: 1,
          last_error: 'x',
          last_failed_at: '2025-11-22T16:00:00.000Z',
        },
      ],
    });
    registerDatasetMetrics(metrics, { board, incidents, nowMs: () => NOW });
    const text = await metrics.render();
    const value = (dataset: string) =>
      new RegExp(`^cds_dataset_condition\\{dataset="${dataset}"[,}][^\\n]* (\\S+)$`, 'm').exec(text)?.[1];
    expect(value('ecb_reference_rates')).toBe('1');
    expect(value('wasde')).toBe('0');
    expect(text).toMatch(/^cds_gateway_incidents_dropped(_total)?(\{[^}]*\})? 0$/m);
    await metrics.shutdown();
  });
});
