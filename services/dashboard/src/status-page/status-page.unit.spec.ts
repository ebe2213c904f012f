import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONDITION_DAYS, DATASETS, type DatasetsResponse, type DatasetSummary, type Incident } from '@cds/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerAssetRoutes } from '../assets/routes.ts';
import { registerHardening } from '../http/hardening.ts';
import { createWeb } from '../http/web.ts';
import type { Throttle } from '../security/throttle.ts';
import { pageText } from '../testing/inject-browser.ts';
import { lagText } from './format.ts';
import { createDatasetsReader, registerStatusPage, type DatasetsReader } from './index.ts';
import { statusPage, type StatusLinks } from './page.ts';

// The status page against the contract's DatasetsResponse: rendered from fixed answers, and served
// from a fake gateway on a real local socket (one that answers, refuses, hangs or talks nonsense).

const TODAY = '2026-12-06';
const [FIRST, SECOND] = [DATASETS[0]!, DATASETS[1]!];

function dateBefore(days: number): string {
  return new Date(Date.parse(`${TODAY}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

/** 90 days, newest first: today late, 3 days ago degraded, 10 days ago missing, 20 days ago a cancellation. */
function days(): DatasetSummary['days'] {
  return Array.from({ length: CONDITION_DAYS }, (_, i) => {
    const date = dateBefore(i);
    if (i === 0)
      return { date, condition: 'late', reasons: [{ kind: 'late_release', message: 'due 15:30, not served' }] };
    if (i === 3) {
      return {
        date,
        condition: 'degraded',
        reasons: [{ kind: 'source_errors', message: 'the agency answered 500 <twice>' }],
      };
    }
    if (i === 10)
      return { date, condition: 'missing', reasons: [{ kind: 'missing_release', message: 'never served' }] };
    if (i === 20) {
      return { date, condition: 'available', reasons: [{ kind: 'cancelled', message: 'cancelled: shutdown' }] };
    }
    return { date, condition: 'available', reasons: [] };
  });
}

function summary(row: (typeof DATASETS)[number], over: Partial<DatasetSummary> = {}): DatasetSummary {
  return {
    id: row.id,
    source: row.source,
    title: row.title,
    calendar_rule: row.rule,
    condition: 'late',
    days: days(),
    last_release: {
      dataset: row.id,
      report: 'Weekly report',
      scheduled_at: '2026-12-04T20:30:00Z',
      local_date: '2026-12-04',
      data_date: '2026-12-01',
      status: 'published',
      first_served_at: '2026-12-04T20:34:00Z',
      lag_seconds: 240,
    },
    next_release: {
      dataset: row.id,
      report: 'Weekly report',
      scheduled_at: '2026-12-11T20:30:00Z',
      local_date: '2026-12-11',
      data_date: '2026-12-08',
      status: 'scheduled',
      shifted: { from: '2026-12-10T20:30:00Z', reason: 'a federal holiday' },
      first_served_at: null,
      lag_seconds: null,
    },
    freshness: [
      { month: '2026-12', releases: 1, p50_lag_seconds: 240, p95_lag_seconds: 240 },
      { month: '2026-11', releases: 4, p50_lag_seconds: 180, p95_lag_seconds: 5_400 },
      { month: '2026-10', releases: 0, p50_lag_seconds: null, p95_lag_seconds: null },
      { month: '2026-09', releases: 4, p50_lag_seconds: 1, p95_lag_seconds: 2 },
    ],
    ...over,
  };
}

const resolved: Incident = {
  id: 'inc_resolved01',
  title: 'Older resolved outage',
  state: 'resolved',
  datasets: [],
  started_at: '2026-12-05T10:00:00Z',
  resolved_at: '2026-12-05T12:00:00Z',
  updates: [
    { at: '2026-12-05T10:00:00Z', state: 'investigating', message: 'Looking into it.' },
    { at: '2026-12-05T12:00:00Z', state: 'resolved', message: 'Fixed.' },
  ],
};
const open: Incident = {
  id: 'inc_open00001',
  title: 'Agency site down',
  state: 'identified',
  datasets: [FIRST.id],
  started_at: '2026-11-30T09:00:00Z',
  updates: [
    { at: '2026-11-30T09:00:00Z', state: 'investigating', message: 'First words <script>alert(1)</script>' },
    { at: '2026-11-30T11:00:00Z', state: 'identified', message: 'Second words' },
  ],
};

function answer(): DatasetsResponse {
  return {
    data: [summary(FIRST), summary(SECOND, { condition: 'available', next_release: null, calendar_rule: null })],
    incidents: [resolved, open],
    meta: { request_id: 'req_test', generated_at: '2026-12-06T15:00:00Z' },
  };
}

const links: StatusLinks = {
  json: 'https://api.example.test/api/v1/datasets',
  feed: 'https://api.example.test/api/v1/datasets/feed',
  releases: (id) => `https://api.example.test/api/v1/releases?dataset=${id}`,
};

/** The cells of each strip, in page order: [class, tabindex, title][] per strip. */
function strips(markup: string): { cls: string; tab: string; title: string }[][] {
  return [...markup.matchAll(/<ol class="strip"[^>]*>([\s\S]*?)<\/ol>/g)].map((m) =>
    [...m[1]!.matchAll(/<li\s+class="day ([^"]+)"\s+tabindex="(-?\d)"\s+title="([^"]*)"/g)].map((c) => ({
      cls: c[1]!,
      tab: c[2]!,
      title: c[3]!,
    })),
  );
}

describe('the status page markup', () => {
  const markup = statusPage({ ok: true, body: answer() }, links).value;

  it('draws a strip of 90 days per dataset, oldest left, today last and the only tab stop', () => {
    const all = strips(markup);
    expect(all).toHaveLength(2);
    for (const cells of all) {
      expect(cells).toHaveLength(CONDITION_DAYS);
      expect(cells.at(-1)).toMatchObject({ cls: 'c-late', tab: '0' });
      expect(cells.at(-1)!.title).toBe('Sun, Dec 6, 2026: late (due 15:30, not served)');
      expect(cells.filter((c) => c.tab === '0')).toHaveLength(1);
      expect(cells[CONDITION_DAYS - 1 - 3]).toMatchObject({
        cls: 'c-degraded',
        title: 'Thu, Dec 3, 2026: degraded (the agency answered 500 &lt;twice&gt;)',
      });
      expect(cells[CONDITION_DAYS - 1 - 10]!.cls).toBe('c-missing');
      expect(cells[CONDITION_DAYS - 1 - 20]!.title).toBe('Mon, Nov 16, 2026: available (cancelled: shutdown)');
      expect(cells[0]!.title).toBe(`${'Tue, Sep 8, 2026'}: available`);
    }
    expect(markup).toMatch(/aria-label="Sun, Dec 6, 2026: late \(due 15:30, not served\)"/);
  });

  it('has a legend naming the four conditions, and no "no data" entry when every day is known', () => {
    const legend = /<section class="legend"[\s\S]*?<\/section>/.exec(markup)![0];
    for (const label of ['Available', 'Degraded', 'Late', 'Missing'])
      expect(legend).toContain(`<strong>${label}</strong>`);
    expect(legend).not.toContain('No data');
  });

  it("gives today's condition, the last and next release in time elements, and the lag of the last three months", () => {
    const text = pageText({ body: markup } as never);
    expect(text).toContain('Late today');
    expect(text).toContain('Available today');
    expect(markup).toContain(
      '<time datetime="2026-12-04T20:30:00.000Z" data-local>Fri, Dec 4, 2026, 3:30 PM EST</time>',
    );
    expect(text).toContain('served Fri, Dec 4, 2026, 3:34 PM EST (lag 4 min)');
    expect(markup).toContain(
      'Moved from <time datetime="2026-12-10T20:30:00.000Z" data-local>Thu, Dec 10, 2026, 3:30 PM EST</time>: a federal holiday',
    );
    expect(text).toContain('Dec 2026 p50 4 min · p95 4 min (1 release)');
    expect(text).toContain('Nov 2026 p50 3 min · p95 1.5 h (4 releases)');
    expect(text).toContain('Oct 2026 no release served live');
    expect(text).not.toContain('Sep 2026');
    expect(text).toContain('No computed calendar: releases are listed as they are served');
    expect(text).toContain('3 of the last 90 days not available');
  });

  it('lists the open incidents first, each with its updates newest first, escaped', () => {
    const text = pageText({ body: markup } as never);
    const incidents = text.slice(text.indexOf('Incidents'));
    expect(incidents.indexOf('Agency site down')).toBeLessThan(incidents.indexOf('Older resolved outage'));
    expect(incidents.indexOf('Second words')).toBeLessThan(incidents.indexOf('First words'));
    expect(incidents).toContain(`Affects ${FIRST.title}`);
    expect(incidents).toContain('Affects the whole service');
    expect(markup).not.toContain('<script>alert(1)</script>');
    expect(markup).toContain('First words &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text).toContain('Open incident: Agency site down');
    expect(text).toContain('1 open incident');
  });

  it('links the JSON, the Atom feed and each dataset’s releases', () => {
    expect(markup).toContain(`href="${links.json}"`);
    expect(markup).toContain(`href="${links.feed}"`);
    expect(markup).toContain(`href="https://api.example.test/api/v1/releases?dataset=${SECOND.id}"`);
  });

  it('pads a strip the answer gives fewer days for, and the legend then explains the grey cells', () => {
    const body = answer();
    body.data[0]!.days = body.data[0]!.days.slice(0, 30);
    const short = statusPage({ ok: true, body }, links).value;
    const cells = strips(short)[0]!;
    expect(cells).toHaveLength(CONDITION_DAYS);
    expect(cells.filter((c) => c.cls === 'c-none')).toHaveLength(60);
    expect(cells.slice(0, 60).every((c) => c.cls === 'c-none')).toBe(true);
    expect(short).toContain('<strong>No data</strong>');
  });

  it('writes lags as a reader takes them in', () => {
    expect([null, 0, 59, 60, 3_599, 5_400, 36_000, 86_400 * 2.5, -120].map(lagText)).toEqual([
      '—',
      '0 s',
      '59 s',
      '1 min',
      '60 min',
      '1.5 h',
      '10 h',
      '2.5 days',
      '−2 min',
    ]);
  });
});

// A fake gateway on a real socket: each test sets how it answers GET /api/v1/datasets.
let gateway: Server;
let gatewayUrl = '';
let handler: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
let requests = 0;
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  gateway = createServer((req, res) => {
    requests += 1;
    handler(req, res);
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const res of hanging.splice(0)) res.destroy();
});
afterAll(async () => {
  gateway.closeAllConnections();
  await new Promise<void>((resolve) => gateway.close(() => resolve()));
});

const json = (status: number, body: unknown) => (req: IncomingMessage, res: ServerResponse) => {
  expect(req.url).toBe('/api/v1/datasets');
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/** The page the dashboard serves: hardening (CSP, error pages), assets, the status page; nobody logged in. */
async function dashboard(datasets: DatasetsReader): Promise<FastifyInstance> {
  const unused: Throttle = {
    hit: () => Promise.reject(new Error('the status page counts nothing')),
    peek: () => Promise.reject(new Error('the status page counts nothing')),
  };
  const web = createWeb({ sessionSecret: 'x'.repeat(32), docsUrl: 'https://api.example.test/docs', throttle: unused });
  const app = Fastify();
  await registerHardening(app, { web, apiOrigin: 'https://api.example.test', cookieSecure: false });
  registerAssetRoutes(app);
  registerStatusPage(app, { web, datasets, publicApiUrl: 'https://api.example.test/api/v1' });
  await app.ready();
  return app;
}

const reader = (over: { timeoutMs?: number; ttlMs?: number; clock?: () => number } = {}) =>
  createDatasetsReader({
    gatewayUrl,
    timeoutMs: over.timeoutMs ?? 2_000,
    ttlMs: over.ttlMs ?? 0,
    clock: over.clock ?? (() => 0),
  });

describe('GET /dashboard/status', () => {
  it('shows the gateway’s datasets to a visitor, under the CSP, with no inline script', async () => {
    handler = json(200, answer());
    const app = await dashboard(reader());
    const res = await app.inject('/dashboard/status');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(strips(res.body)).toHaveLength(2);
    expect(res.body).toContain('<a href="/dashboard/status">Service status</a>');
    expect([...res.body.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script src="/dashboard/assets/dashboard.js" defer>',
      '<script src="/dashboard/assets/status-page.js" defer>',
    ]);
    expect(res.body).toContain('rel="alternate" type="application/atom+xml"');
    for (const asset of ['status-page.css', 'status-page.js']) {
      expect((await app.inject(`/dashboard/assets/${asset}`)).statusCode).toBe(200);
    }
    await app.close();
  });

  const failures: [string, () => void | Promise<void>, string][] = [
    [
      'answers 503',
      () => void (handler = json(503, { error: { code: 'unavailable' } })),
      'is starting or cannot read its data right now (HTTP 503)',
    ],
    ['answers 404', () => void (handler = json(404, {})), 'refused the request (HTTP 404)'],
    [
      'answers HTML',
      () => void (handler = (_q, res) => res.writeHead(200).end('<html>')),
      'answered something that is not JSON',
    ],
    [
      'answers another shape',
      () => void (handler = json(200, { data: [{ id: 'x' }] })),
      'answered in a shape this page does not know',
    ],
    ['does not answer', () => void (handler = (_q, res) => void hanging.push(res)), 'did not answer within 1 s'],
  ];
  it.each(failures)(
    'says so clearly when the gateway %s: a 503 page, never an error page',
    async (_what, arrange, words) => {
      await arrange();
      const app = await dashboard(reader({ timeoutMs: 1_000 }));
      const res = await app.inject('/dashboard/status');
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('30');
      const text = pageText(res);
      expect(text).toContain(`The service's status cannot be shown right now: the API gateway ${words}.`);
      expect(text).toContain('Service status');
      expect(res.body).toContain(`href="https://api.example.test/api/v1/datasets/feed"`);
      await app.close();
    },
  );

  it('says so when nothing listens at the gateway’s address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const errors: string[] = [];
    const app = await dashboard(
      createDatasetsReader({
        gatewayUrl: `http://127.0.0.1:${port}`,
        timeoutMs: 2_000,
        ttlMs: 0,
        clock: () => 0,
        onError: (e) => errors.push(e),
      }),
    );
    const res = await app.inject('/dashboard/status');
    expect(res.statusCode).toBe(503);
    expect(pageText(res)).toContain('the API gateway could not be reached.');
    expect(errors).toHaveLength(1);
    await app.close();
  });
});

describe('the datasets reader', () => {
  it('reads once for pages that ask at the same time, keeps a good answer ttlMs and never a failed one', async () => {
    let now = 0;
    const r = reader({ ttlMs: 5_000, clock: () => now });
    handler = (req, res) => setTimeout(() => json(200, answer())(req, res), 50);
    requests = 0;
    const both = await Promise.all([r.read(), r.read()]);
    expect(both.map((b) => b.ok)).toEqual([true, true]);
    expect(requests).toBe(1);
    now = 4_999;
    await r.read();
    expect(requests).toBe(1);
    now = 5_000;
    handler = json(503, {});
    expect((await r.read()).ok).toBe(false);
    expect((await r.read()).ok).toBe(false);
    expect(requests).toBe(3);
  });
});
