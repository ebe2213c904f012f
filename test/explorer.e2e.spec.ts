/// <reference lib="dom" />
// The dashboard's data explorer in a real browser against the real API: the system with one gateway
// and data of every shape a price now has: real numbers through the ingest CLI (the EIA's daily WTI
// spot price, value only; the World Bank's monthly averages), demo data (daily OHLCV, COT) for one
// commodity, and none for PALLADIUM, which has only its price note. A small page serves the
// explorer's HTML and assets under a strict CSP, and Chromium is driven by playwright-core. What the
// page drew must be what the API serves for the same request; the key must never be persisted.
// A second page renders it as the dashboard does for a signed-in user (a session-key URL): it must
// draw a first chart with nothing pasted, with keys the admin API makes as the dashboard's.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/browser.ts';
import { COMMODITIES, createPublisher, generateDemoItems, runIngest } from '@cds/ingest';
import { connectMessaging } from '@cds/messaging';
import { REPO_ROOT } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, FIXTURES, startE2E, type E2E } from './support/harness.ts';
import { waitForProjections } from './support/projections.ts';

/** The explorer module's interface (services/dashboard/src/explorer/index.ts). */
interface ExplorerModule {
  renderExplorer(opts: { apiBaseUrl: string; assetPrefix: string; sessionKey?: { url: string; csrf: string } }): {
    head: string;
    body: string;
  };
  registerExplorerAssets(app: FastifyInstance, opts: { prefix: string }): void;
}
// The dashboard's package exports its app only, and a test of the root project cannot import
// another project's file statically (TS2878): the module is loaded by path.
const { registerExplorerAssets, renderExplorer } = (await import(
  pathToFileURL(join(REPO_ROOT, 'services', 'dashboard', 'src', 'explorer', 'index.ts')).href
)) as ExplorerModule;
const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'explorer');
const ASSETS = '/dashboard/explorer';
/** The one commodity with demo data (daily OHLCV, volume, open interest, COT, fundamentals). */
const DEMO = 'NATURAL_GAS';
/** Real files through the ingest CLI: WTI spot (EIA, daily, value only); the Pink Sheet (monthly averages). */
const EIA_WTI = join(FIXTURES, 'eia_rwtc_wti_spot_daily_2022_excerpt.csv');
const PINK_SHEET = join(
  REPO_ROOT,
  'services',
  'ingest',
  'test',
  'fixtures',
  'worldbank_pink_sheet_2025-12_excerpt.xlsx',
);
/** The national corn prices received (NASS, monthly, USD/bu, January 2025 to June 2026). */
const NASS_CORN_PRICES = join(
  REPO_ROOT,
  'services',
  'ingest',
  'test',
  'fixtures',
  'nass_price_received_corn_national_2025_2026_excerpt.csv',
);
/** The euro reference rates of 2025-01-02 to 2026-04-13 (test/fixtures/SOURCES.md): corn in euros. */
const EURO_RATES = join(REPO_ROOT, 'test', 'fixtures', 'eurofxref-hist_2025-01-02_2026-04-13_excerpt.csv');

let e2e: E2E;
let site: FastifyInstance;
let siteUrl: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let key: string;
const browserErrors: string[] = [];
/** The session-key page's CSRF token, and what its endpoint hands out next (a key, or an error body and status). */
const SESSION_CSRF = 'csrf-token-of-this-session';
let handOut: ({ key: string; key_id: string } | { status: number; error: Record<string, string> })[] = [];
/** The forms the session-key endpoint received. */
let asked: Record<string, string>[] = [];

const isoDaysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  for (const [source, file] of [
    ['eia', EIA_WTI],
    ['worldbank', PINK_SHEET],
    ['nass', NASS_CORN_PRICES],
    ['ecb', EURO_RATES],
  ] as const) {
    const real = await e2e.ingest(['backfill', '--source', source, '--file', file, '--quiet']);
    expect(real.code, real.stderr).toBe(0);
  }
  const messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'explorer-e2e' });
  try {
    // Demo data for one commodity only (`npm start -- --demo` makes it for all): PALLADIUM keeps
    // no price series, as without --demo. The catalog goes with it, as the CLI publishes it.
    const demo = await runIngest({
      items: generateDemoItems({ commodities: [DEMO], years: 1 }),
      publisher: createPublisher({ js: messaging.js }),
      catalog: COMMODITIES.map((c) => c.entry),
      source: 'demo',
    });
    expect(demo.eventsPublished).toBeGreaterThan(0);
    key = (await e2e.account('enterprise')).key;
    await eventually(
      'real and demo data served',
      async () => {
        const served = async (path: string) => {
          const res = await e2e.get(path, { key, validate: false });
          return res.status === 200 && res.json.data.length > 0;
        };
        return (
          (await served(`/api/v1/commodities/${DEMO}/series?type=price&limit=1&sort_order=desc`)) &&
          (await served(`/api/v1/commodities/${DEMO}/cot?format=disaggregated&per_page=1`)) &&
          (await served('/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01&limit=1')) &&
          (await served('/api/v1/commodities/GOLD/series?type=price&start_date=2024-01-01&limit=1')) &&
          (await served('/api/v1/commodities/CORN/series?type=price&start_date=2025-01-01&limit=1&currency=EUR'))
        );
      },
      120_000,
    );
    // Some points are served; the tests compare whole series with the API: wait for all of them.
    await waitForProjections(messaging, 120_000);
  } finally {
    await messaging.close();
  }

  const apiBaseUrl = `${e2e.gatewayUrl()}/api/v1`;
  const { head, body } = renderExplorer({ apiBaseUrl, assetPrefix: ASSETS });
  // Keep-alive sockets (the test's own fetches) must not hold close() up.
  site = Fastify({ forceCloseConnections: true });
  registerExplorerAssets(site, { prefix: ASSETS });
  // The policy the dashboard is expected to send: nothing inline, the API as the only other origin.
  const csp =
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; ` +
    `connect-src ${new URL(apiBaseUrl).origin}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
  const pageOf = (rendered: { head: string; body: string }) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8" /><title>Data explorer</title><link rel="icon" href="data:," />` +
    `<link rel="stylesheet" href="/page.css" />${rendered.head}</head><body><main>${rendered.body}</main></body></html>`;
  site.get('/dashboard/explorer', (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', csp).send(pageOf({ head, body })),
  );
  // As the dashboard renders it for a signed-in user, and its session-key endpoint (a form POST
  // with the page's CSRF token, answering JSON): here it hands out what the test queued.
  const SESSION_KEY_URL = '/dashboard/explorer/session-key';
  const withSession = renderExplorer({
    apiBaseUrl,
    assetPrefix: ASSETS,
    sessionKey: { url: SESSION_KEY_URL, csrf: SESSION_CSRF },
  });
  // The dashboard's own policy lets the page call its own origin too (the session-key endpoint).
  const sessionCsp = csp.replace('connect-src ', "connect-src 'self' ");
  site.get('/dashboard/explorer-session', (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', sessionCsp).send(pageOf(withSession)),
  );
  site.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, text, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(text)))),
  );
  site.post(SESSION_KEY_URL, (request, reply) => {
    const form = request.body as Record<string, string>;
    asked.push(form);
    const next = form._csrf === SESSION_CSRF ? handOut.shift() : { status: 403, error: { code: 'forbidden' } };
    if (next === undefined) return reply.code(500).send({});
    if ('error' in next) return reply.code(next.status).send({ error: next.error });
    return reply.header('cache-control', 'no-store').send({ ...next, expires_at: isoDaysAgo(-1) });
  });
  // Stands in for the dashboard's global stylesheet (D1's), so screenshots look like the product.
  site.get('/page.css', (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .send(
        'body{margin:0;background:#f1f5f9;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}' +
          'main{padding:24px 32px;max-width:1200px;margin:0 auto}',
      ),
  );
  siteUrl = await site.listen({ host: '127.0.0.1', port: 0 });

  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') browserErrors.push(m.text());
  });
  page.on('pageerror', (err) => browserErrors.push(err.message));
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.goto(`${siteUrl}/dashboard/explorer`);
  await page.waitForSelector('#cdsx[data-ready="true"]');
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await e2e?.stop();
}, 60_000);

/** Fills what is given, clicks Show and waits for the page to finish; returns what the page holds. */
async function show(fields: {
  key?: string;
  commodity?: string;
  kind?: string;
  start?: string;
  end?: string;
  frequency?: string;
  transform?: string;
  limit?: string;
}): Promise<{ url: string; points: Record<string, unknown>[]; dataPoints: Record<string, unknown>[] }> {
  if (fields.key !== undefined) await page.getByLabel('API key').fill(fields.key);
  if (fields.commodity !== undefined) await page.getByLabel('Commodity').fill(fields.commodity);
  if (fields.kind !== undefined) await page.getByLabel('Kind').selectOption(fields.kind);
  if (fields.start !== undefined) await page.getByLabel('Start date').fill(fields.start);
  if (fields.end !== undefined) await page.getByLabel('End date').fill(fields.end);
  if (fields.frequency !== undefined) await page.getByLabel('Frequency').selectOption(fields.frequency);
  if (fields.transform !== undefined) await page.getByLabel('Transform').selectOption(fields.transform);
  if (fields.limit !== undefined) await page.getByLabel('Limit').fill(fields.limit);
  const before = await page.evaluate(() => (window as unknown as { cdsExplorer: { shown: number } }).cdsExplorer.shown);
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await page.waitForFunction(
    (n) => (window as unknown as { cdsExplorer: { shown: number } }).cdsExplorer.shown > n,
    before,
  );
  const held = await page.evaluate(() => {
    const x = (window as unknown as { cdsExplorer: { url: string; points: unknown[] } }).cdsExplorer;
    return {
      url: x.url,
      points: x.points,
      dataPoints: JSON.parse(document.getElementById('cdsx-chart')!.dataset.points ?? '[]'),
    };
  });
  return held as { url: string; points: Record<string, unknown>[]; dataPoints: Record<string, unknown>[] };
}

/** The same request made by the test, straight to the API. */
async function fromApi(url: string): Promise<{ data: Record<string, unknown>[] }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { data: Record<string, unknown>[] };
}

const byDate = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.date).localeCompare(String(b.date));

/** What the page shows about the chart: how it drew, the legend, the source line, the note. */
async function chartFacts(): Promise<{
  drawing: string | undefined;
  legend: string[];
  source: string | null;
  attribution: string | null;
  note: string | null;
}> {
  const source = page.locator('#cdsx-source');
  const visible = await source.isVisible();
  const note = page.getByRole('note');
  return {
    drawing: await page
      .locator('#cdsx-chart')
      .getAttribute('data-drawing')
      .then((d) => d ?? undefined),
    legend: await page.locator('#cdsx-legend li').allTextContents(),
    source: visible ? await source.textContent() : null,
    attribution: visible ? await source.locator('.cdsx-attribution').textContent() : null,
    note: (await note.isVisible()) ? await note.textContent() : null,
  };
}

/** The source line sits under the chart, inside its card, and overlaps nothing else there. */
async function expectSourceUnderChart(): Promise<void> {
  const chart = (await page.locator('#cdsx-chart').boundingBox())!;
  const legend = (await page.locator('#cdsx-legend').boundingBox())!;
  const source = (await page.locator('#cdsx-source').boundingBox())!;
  const card = (await page.locator('#cdsx-chart-card').boundingBox())!;
  expect(source.y).toBeGreaterThanOrEqual(chart.y + chart.height);
  expect(source.y).toBeGreaterThanOrEqual(legend.y + legend.height);
  expect(source.y + source.height).toBeLessThanOrEqual(card.y + card.height);
  expect(source.height).toBeGreaterThan(0);
}

/** The values of the options a select offers (not hidden, not disabled). */
async function offeredOptions(label: string): Promise<string[]> {
  return page
    .getByLabel(label)
    .locator('option')
    .evaluateAll((os) => (os as HTMLOptionElement[]).filter((o) => !o.disabled && !o.hidden).map((o) => o.value));
}

/** The commodity's detail, straight from the API. */
async function detailOf(slug: string): Promise<{
  name: string;
  price_note?: string;
  available_series: { type: string; frequency: string; first_date: string; last_date: string; price_basis?: string }[];
}> {
  const res = await e2e.get(`/api/v1/commodities/${slug}`, { key });
  expect(res.status).toBe(200);
  return res.json.data;
}

describe('data explorer', () => {
  it('serves its assets from the service with a strict type and a long cache', async () => {
    for (const [name, type] of [
      ['explorer.js', 'text/javascript; charset=utf-8'],
      ['lightweight-charts.js', 'text/javascript; charset=utf-8'],
      ['explorer.css', 'text/css; charset=utf-8'],
    ] as const) {
      const res = await fetch(`${siteUrl}${ASSETS}/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const again = await fetch(`${siteUrl}${ASSETS}/${name}`, {
        headers: { 'if-none-match': res.headers.get('etag')! },
      });
      expect(again.status).toBe(304);
    }
    expect((await fetch(`${siteUrl}${ASSETS}/nothing.js`)).status).toBe(404);
    // Every script and stylesheet of the page comes from the page's own origin.
    const sources = await page.evaluate(() =>
      [...document.querySelectorAll('script[src], link[rel=stylesheet]')].map(
        (e) => (e as HTMLScriptElement).src || (e as HTMLLinkElement).href,
      ),
    );
    expect(sources.length).toBe(4);
    for (const s of sources) expect(new URL(s).origin).toBe(siteUrl);
  });

  it('draws demo price candlesticks with volume exactly as the API serves them, says they are demo data, and shows the curl', async () => {
    const start = isoDaysAgo(120);
    const held = await show({ key, commodity: DEMO, kind: 'price', start });
    const expectedUrl = `${e2e.gatewayUrl()}/api/v1/commodities/${DEMO}/series?type=price&start_date=${start}`;
    expect(held.url).toBe(expectedUrl);
    const api = (await fromApi(expectedUrl)) as Awaited<ReturnType<typeof fromApi>> & { meta: Record<string, string> };
    expect(api.meta).toMatchObject({ price_basis: 'demo', source: 'demo' });
    expect(api.data.length).toBeGreaterThan(50);
    const expected = api.data
      .map((p) => ({ date: p.date, open: p.open, high: p.high, low: p.low, close: p.close, volume: p.volume }))
      .sort(byDate);
    expect(held.points).toEqual(expected);
    expect(held.dataPoints).toEqual(expected);
    expect(await page.getByRole('img', { name: 'Chart of the data below' }).locator('canvas').count()).toBeGreaterThan(
      0,
    );
    // The table has one row per point.
    expect(await page.locator('#cdsx-table tbody tr').count()).toBe(api.data.length);
    const curl = await page.locator('#cdsx-curl').textContent();
    expect(curl).toBe(`curl -H "Authorization: Bearer $KEY" \\\n  '${expectedUrl}'`);
    expect(curl).not.toContain(key);
    const detail = await detailOf(DEMO);
    const facts = await chartFacts();
    expect(facts.drawing).toBe('candles');
    expect(facts.legend).toEqual([`${detail.name} — demo data (generated), ${api.meta.unit}`, 'Volume']);
    expect(facts.attribution).toBe(api.meta.attribution);
    expect(facts.source).toBe(`Source: ${api.meta.attribution} · demo`);
    await expectSourceUnderChart();
    // The kind selector offers what the commodity lists, nothing else.
    expect((await offeredOptions('Kind')).sort()).toEqual(detail.available_series.map((s) => s.type).sort());
    await page.screenshot({ path: join(ARTIFACTS, 'price-candles.png'), fullPage: true });
  });

  it('draws another series type as a line, with frequency and transform', async () => {
    const start = isoDaysAgo(200);
    const held = await show({ kind: 'open_interest', start, frequency: 'weekly', transform: 'change', limit: '20' });
    const expectedUrl =
      `${e2e.gatewayUrl()}/api/v1/commodities/${DEMO}/series?type=open_interest&start_date=${start}` +
      `&frequency=weekly&transform=change&limit=20`;
    expect(held.url).toBe(expectedUrl);
    const api = await fromApi(expectedUrl);
    expect(api.data.length).toBe(20);
    const expected = api.data.map((p) => ({ date: p.date, value: p.value })).sort(byDate);
    expect(held.points).toEqual(expected);
    expect(held.dataPoints).toEqual(expected);
    expect((await chartFacts()).drawing).toBe('line');
    expect((await chartFacts()).legend).toEqual([`${(await detailOf(DEMO)).name} — open interest, change, contracts`]);
    await page.screenshot({ path: join(ARTIFACTS, 'open-interest-line.png'), fullPage: true });
  });

  it("draws each trader group's net position of a COT format", async () => {
    await page.getByLabel('Frequency').selectOption('');
    await page.getByLabel('Transform').selectOption('none');
    await page.getByLabel('Limit').fill('');
    const held = await show({ kind: 'cot_disaggregated', start: isoDaysAgo(300) });
    expect(await page.getByLabel('Frequency').isVisible()).toBe(false);
    const expectedUrl = `${e2e.gatewayUrl()}/api/v1/commodities/${DEMO}/cot?format=disaggregated&start_date=${isoDaysAgo(300)}&per_page=100&page=1`;
    expect(held.url).toBe(expectedUrl);
    const api = await fromApi(expectedUrl);
    expect(api.data.length).toBeGreaterThan(20);
    const groups = ['producer_merchant', 'swap_dealer', 'managed_money', 'other_reportable'];
    const expected = api.data
      .map((r) => {
        const p: Record<string, unknown> = { date: r.report_date };
        for (const g of groups) p[g] = (r[g] as { net: number }).net;
        return p;
      })
      .sort(byDate);
    expect(held.points).toEqual(expected);
    expect(await page.locator('#cdsx-legend li').allTextContents()).toEqual([
      'Producer merchant net',
      'Swap dealer net',
      'Managed money net',
      'Other reportable net',
    ]);
    await page.screenshot({ path: join(ARTIFACTS, 'cot-disaggregated.png'), fullPage: true });
  });

  it('draws a spot price (value only) as a line, naming its basis, unit and source under the chart', async () => {
    // The excerpt ends in 2022: without dates (the last 12 months) the page says where the data is.
    const none = await show({ commodity: 'CRUDE_OIL_WTI', kind: 'price', start: '', end: '' });
    expect(none.points).toEqual([]);
    expect(await page.locator('#cdsx-table thead').textContent()).toBe(
      'No data for this request: the price series of Crude Oil WTI runs from 2022-09-01 to 2022-11-28 ' +
        '(without dates, the API answers the last 12 months).',
    );
    await page.screenshot({ path: join(ARTIFACTS, 'spot-price-no-data-in-range.png'), fullPage: true });
    const held = await show({ start: '2022-09-01', end: '2022-11-30' });
    const expectedUrl = `${e2e.gatewayUrl()}/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-09-01&end_date=2022-11-30`;
    expect(held.url).toBe(expectedUrl);
    const api = (await fromApi(expectedUrl)) as { data: Record<string, unknown>[]; meta: Record<string, string> };
    expect(api.meta).toMatchObject({ price_basis: 'spot', source: 'eia:RWTC', frequency: 'daily', unit: 'USD/bbl' });
    // the 61 trading days of the excerpt, value only
    expect(api.data.length).toBe(61);
    expect(api.data.every((p) => p.open === undefined && p.close === undefined)).toBe(true);
    const expected = api.data.map((p) => ({ date: p.date, value: p.value })).sort(byDate);
    expect(held.points).toEqual(expected);
    expect(held.dataPoints).toEqual(expected);
    const facts = await chartFacts();
    // a line: no candlesticks, no volume pane
    expect(facts.drawing).toBe('line');
    expect(held.points.every((p) => !('open' in p))).toBe(true);
    const detail = await detailOf('CRUDE_OIL_WTI');
    expect(facts.legend).toEqual([`${detail.name} — spot price, USD/bbl`]);
    // The EIA's attribution reads "Source: …" itself: no second label.
    expect(facts.attribution).toBe(api.meta.attribution);
    expect(facts.source).toBe(`${api.meta.attribution} · eia:RWTC`);
    await expectSourceUnderChart();
    expect(await page.locator('#cdsx-table thead th').allTextContents()).toEqual(['Date', 'Value']);
    expect(await page.locator('#cdsx-caption').textContent()).toContain('spot price, daily, USD/bbl');
    expect(await page.locator('#cdsx-kind-hint').innerText()).toBe('Spot price · daily\n2022-09-01 to 2022-11-28');
    // A daily series may be asked for at any frequency.
    expect(await offeredOptions('Frequency')).toEqual(['', 'daily', 'weekly', 'monthly']);
    await page.screenshot({ path: join(ARTIFACTS, 'spot-price-line.png'), fullPage: true });
  });

  it('draws a monthly average at its own dates, with its attribution, and offers no finer frequency', async () => {
    const held = await show({ commodity: 'GOLD', kind: 'price', start: '2024-01-01', end: '' });
    const expectedUrl = `${e2e.gatewayUrl()}/api/v1/commodities/GOLD/series?type=price&start_date=2024-01-01`;
    expect(held.url).toBe(expectedUrl);
    const api = (await fromApi(expectedUrl)) as { data: Record<string, unknown>[]; meta: Record<string, string> };
    expect(api.meta).toMatchObject({
      price_basis: 'monthly_average',
      source: 'worldbank:GOLD',
      frequency: 'monthly',
      unit: 'USD/troy oz',
      attribution: 'The World Bank: Commodity Price Data (The Pink Sheet), CC BY 4.0',
    });
    expect(api.data.length).toBeGreaterThan(5);
    // one point a month at the API's dates: nothing filled in between
    const expected = api.data.map((p) => ({ date: p.date, value: p.value })).sort(byDate);
    expect(held.points).toEqual(expected);
    const facts = await chartFacts();
    expect(facts.drawing).toBe('line');
    expect(facts.legend).toEqual(['Gold — monthly average, USD/troy oz']);
    expect(facts.attribution).toBe(api.meta.attribution);
    expect(facts.source).toBe(
      'Source: The World Bank: Commodity Price Data (The Pink Sheet), CC BY 4.0 · worldbank:GOLD',
    );
    await expectSourceUnderChart();
    // Gold offers its price only (no demo data for it), and nothing finer than monthly.
    expect(await offeredOptions('Kind')).toEqual(['price']);
    expect(await offeredOptions('Frequency')).toEqual(['', 'monthly']);
    expect(await page.getByLabel('Frequency').locator('option[value=""]').textContent()).toBe('Native (monthly)');
    const gold = (await detailOf('GOLD')).available_series.find((s) => s.type === 'price') as {
      first_date: string;
      last_date: string;
    };
    expect(await page.locator('#cdsx-kind-hint').innerText()).toBe(
      `Monthly average · monthly\n${gold.first_date} to ${gold.last_date}`,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'monthly-average-line.png'), fullPage: true });
    // On a phone-sized screen the legend and the source wrap under the chart, still inside its card.
    await page.setViewportSize({ width: 400, height: 800 });
    await page.mouse.move(0, 0);
    await expectSourceUnderChart();
    await page.locator('#cdsx-chart-card').screenshot({ path: join(ARTIFACTS, 'monthly-average-narrow.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('converts a price to the currency and unit chosen, shows the working under the chart, and a refusal as the API words it', async () => {
    // Only the units of the series' own kind are offered: mass for corn (its bushel of 56 lb too),
    // mass without the bushel for gold, volume for crude oil; a currency only for a price.
    if ((await page.getByLabel('API key').inputValue()) === '') await page.getByLabel('API key').fill(key);
    const unitsOf = async (slug: string) => {
      await page.getByLabel('Commodity').fill(slug);
      await page.getByLabel('Commodity').press('Tab');
      await page.waitForSelector(`#cdsx[data-commodity="${slug}"]`);
      return offeredOptions('Unit');
    };
    const mass = ['t', 'kg', 'g', 'lb', 'cwt', 'short_ton', 'troy_oz'];
    expect(await unitsOf('GOLD')).toEqual(['', ...mass]);
    expect(await unitsOf('CRUDE_OIL_WTI')).toEqual(['', 'bbl', 'gal', 'm3']);
    expect(await unitsOf('CORN')).toEqual(['', ...mass, 'bu']);
    expect(await page.locator('#cdsx-unit-hint').textContent()).toBe('A bushel of corn is 56 lb.');
    expect((await offeredOptions('Currency')).slice(0, 3)).toEqual(['', 'EUR', 'USD']);

    const range = { kind: 'price', start: '2025-01-01', end: '2026-06-30' };
    const published = await show(range);
    const base = `${e2e.gatewayUrl()}/api/v1/commodities/CORN/series?type=price&start_date=2025-01-01&end_date=2026-06-30`;
    expect(published.url).toBe(base);
    const asPublished = (await fromApi(base)) as {
      data: { date: string; value: number }[];
      meta: Record<string, string>;
    };
    expect(asPublished.meta).toMatchObject({ unit: 'USD/bu', frequency: 'monthly' });
    expect(asPublished.data).toHaveLength(18);

    await page.getByLabel('Currency').selectOption('EUR');
    await page.getByLabel('Unit').selectOption('t');
    const converted = await show({});
    expect(converted.url).toBe(`${base}&currency=EUR&unit=t`);
    const api = (await fromApi(converted.url)) as {
      data: { date: string; value: number | null; fx_rate?: number }[];
      meta: { unit: string; conversion: Record<string, Record<string, unknown>> };
    };
    // The page draws what the API serves: a month without a rate (after 2026-04-13) is a gap.
    expect(converted.points).toEqual(api.data.map((p) => ({ date: p.date, value: p.value })).sort(byDate));
    expect(api.meta.unit).toBe('EUR/t');
    const conversion = await page.evaluate(
      () => (window as unknown as { cdsExplorer: { conversion: unknown } }).cdsExplorer.conversion,
    );
    expect(conversion).toEqual(api.meta.conversion);

    // The table's unit is EUR/t, and each value is the published one times the unit factor the
    // working line shows and the rate of its row.
    expect(await page.locator('#cdsx-caption').textContent()).toContain('EUR/t');
    const heads = await page.locator('#cdsx-table thead th').allTextContents();
    expect(heads).toEqual(['Date', 'Value (EUR/t)', 'Rate (EUR per USD)']);
    const working = (await page.locator('#cdsx-conversion').textContent()) ?? '';
    const factor = Number(/Unit: × ([0-9.]+)/.exec(working)?.[1]);
    expect(factor).toBeCloseTo(1000 / (56 * 0.45359237), 3);
    const rows = await page
      .locator('#cdsx-table tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    expect(rows).toHaveLength(18);
    const number = (text: string) => Number(text.replace(/,/g, ''));
    const usd = new Map(asPublished.data.map((p) => [p.date, p.value]));
    let withRate = 0;
    for (const [date, value, rate] of rows) {
      if (value === 'no rate') continue;
      withRate += 1;
      // the table rounds: within the last digit it shows
      expect(number(value!)).toBeCloseTo(usd.get(date!)! * factor * number(rate!), 1);
    }
    expect(withRate).toBe(16);
    // May and June 2026: no rate in the month (the rates end on 2026-04-13)
    expect(
      rows
        .filter(([, value]) => value === 'no rate')
        .map(([date]) => date)
        .sort(),
    ).toEqual(['2026-05-31', '2026-06-30']);
    // The working: from and to, the factor and its reason, the rates, their rule and the missing
    // points, and the rates' attribution with the words that converted values are derived data.
    expect(working).toContain('from USD/bu to EUR/t');
    expect(working).toContain('1 t = ');
    expect(working).toContain(
      "Currency: USD to EUR at the reference rates USD/EUR, each point at the average of its month's daily rates",
    );
    expect(working).toContain('2 without a rate');
    expect(working).toContain('Source: ECB statistics');
    expect(working.toLowerCase()).toContain('converted values are derived data');
    expect((await chartFacts()).legend).toEqual(['Corn — price received by farmers, EUR/t']);
    await expectSourceUnderChart();
    await page.screenshot({ path: join(ARTIFACTS, 'converted-eur-per-tonne.png'), fullPage: true });

    // A refusal (a unit of another kind: corn in barrels, which the selector does not offer) is the
    // API's 400 naming the parameter, on the page instead of a chart.
    await page.evaluate(() => {
      const o = document.querySelector<HTMLOptionElement>('#cdsx-unit option[value="bbl"]')!;
      o.disabled = false;
      o.hidden = false;
    });
    await page.getByLabel('Unit').selectOption('bbl');
    const refused = await show({});
    expect(refused.points).toEqual([]);
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toContain('The API answered 400');
    expect(await alert.textContent()).toContain('Parameterunit');
    expect(await page.locator('#cdsx-chart-card').isVisible()).toBe(false);
    await page.screenshot({ path: join(ARTIFACTS, 'converted-unit-refused.png'), fullPage: true });
    // Back to the series as published, for the cases that follow.
    await page.getByLabel('Currency').selectOption('');
    await page.getByLabel('Unit').selectOption('');
    await show({});
    expect(await page.locator('#cdsx-conversion').isVisible()).toBe(false);
  });

  it('shows the price note of a commodity without a price series, instead of a chart or an error', async () => {
    const detail = await detailOf('PALLADIUM');
    expect(detail.price_note).toBeTruthy();
    expect(detail.available_series.some((s) => s.type === 'price')).toBe(false);
    await page.getByLabel('Commodity').fill('PALLADIUM');
    await page.getByLabel('Commodity').press('Tab');
    await page.waitForSelector('#cdsx[data-commodity="PALLADIUM"]');
    // the note is there as soon as the commodity is chosen
    expect((await chartFacts()).note).not.toBeNull();
    expect(await page.locator('#cdsx-note-title').textContent()).toBe(`${detail.name} has no price series`);
    expect(await page.locator('#cdsx-note-text').textContent()).toBe(detail.price_note);
    expect(await offeredOptions('Kind')).toEqual(detail.available_series.map((s) => s.type));
    const held = await show({});
    expect(held.url).toBeNull();
    expect(held.points).toEqual([]);
    expect(await page.getByRole('alert').isVisible()).toBe(false);
    expect(await page.locator('#cdsx-results').isVisible()).toBe(false);
    expect(await page.getByRole('note').textContent()).toContain(detail.price_note);
    expect(await page.locator('#cdsx-status').textContent()).toBe(
      `${detail.name} has no price series: see the note below.`,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'no-price-note.png'), fullPage: true });
  });

  it("shows the API's own error for a bad key", async () => {
    const held = await show({ key: 'f'.repeat(40), commodity: DEMO, kind: 'price' });
    expect(held.points).toEqual([]);
    const alert = page.getByRole('alert');
    expect(await alert.isVisible()).toBe(true);
    const text = await alert.textContent();
    expect(text).toContain('The API answered 401: The API key is not valid: it is malformed, unknown or revoked.');
    expect(text).toContain('unauthorized');
    expect(await alert.getByRole('link', { name: 'What this error means' }).getAttribute('href')).toMatch(
      /\/docs\/errors#unauthorized$/,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'bad-key.png'), fullPage: true });
    // A parameter error names the parameter.
    await show({ key, limit: '0' });
    expect(await alert.textContent()).toContain('invalid_parameter');
    expect(await alert.textContent()).toContain('Parameterlimit');
    await page.getByLabel('Limit').fill('');
  });

  it('names the commodity even when the lookup the key change started overtakes Show', async () => {
    // Show asks for the commodity's detail first; the commodity list the key change asked for
    // arrives next and starts its own lookup of the same detail, which arrives last. The chart is
    // still drawn under the commodity's name, with the form fitted to it.
    const main = page;
    page = await context.newPage();
    try {
      await page.route(/\/api\/v1\/commodities\?/, async (route) => {
        await new Promise((r) => setTimeout(r, 300));
        await route.continue();
      });
      await page.route(new RegExp(`/api/v1/commodities/${DEMO}$`), async (route) => {
        await new Promise((r) => setTimeout(r, 900));
        await route.continue();
      });
      await page.goto(`${siteUrl}/dashboard/explorer`);
      await page.waitForSelector('#cdsx[data-ready="true"]');
      const start = isoDaysAgo(30);
      await show({ key, commodity: DEMO, kind: 'price', start });
      const detail = await detailOf(DEMO);
      const facts = await chartFacts();
      expect(facts.drawing).toBe('candles');
      expect(facts.legend[0]).toMatch(new RegExp(`^${detail.name.replace(/[()]/g, '\\$&')} — `));
      expect(await page.locator('#cdsx').getAttribute('data-commodity')).toBe(DEMO);
    } finally {
      await page.close();
      page = main;
    }
  });

  it("draws a first chart with no key pasted from the session's key, asks once more when the API refuses it, and keeps it nowhere", async () => {
    // Session keys as the dashboard gets them from the admin API; the first one is revoked (as an
    // expired or replaced one is), so the page must ask for another, once.
    const account = await e2e.account('enterprise');
    const make = async () =>
      (
        await e2e.admin<{ key: string; key_id: string }>('POST', `/accounts/${account.accountId}/session-keys`, {
          ttl_seconds: 600,
        })
      ).body;
    const stale = await make();
    const live = await make();
    expect((await e2e.admin('POST', `/keys/${stale.key_id}/revoke`, {})).status).toBe(200);
    await eventually(
      'the revoked session key refused',
      async () => (await e2e.get('/api/v1/commodities', { key: stale.key, validate: false })).status === 401,
      10_000,
    );
    handOut = [stale, live];
    asked = [];
    const p = await context.newPage();
    const errors: string[] = [];
    p.on('pageerror', (err) => errors.push(err.message));
    p.on('console', (m) => {
      if (m.type() === 'error' && !m.text().includes('401') && !m.text().includes('409')) errors.push(m.text());
    });
    const sent = new Set<string>();
    p.on('request', (r) => {
      if (r.url().includes('/api/v1/')) sent.add(r.headers().authorization ?? '');
    });
    try {
      await p.goto(`${siteUrl}/dashboard/explorer-session`);
      await p.waitForFunction(
        () => JSON.parse(document.getElementById('cdsx-chart')?.dataset.points ?? '[]').length > 0,
      );
      // One ask, then one more naming the refused key: never a loop.
      expect(asked).toEqual([{ _csrf: SESSION_CSRF }, { _csrf: SESSION_CSRF, replace: stale.key_id }]);
      expect([...sent].sort()).toEqual([`Bearer ${live.key}`, `Bearer ${stale.key}`].sort());
      expect(await p.getByLabel('API key').inputValue()).toBe('');
      // Gold's excerpt ends before the last 12 months: the first chart shows its last year, as the API serves it.
      expect(await p.getByLabel('Commodity').inputValue()).toBe('GOLD');
      const held = await p.evaluate(() => {
        const x = (window as unknown as { cdsExplorer: { url: string; points: unknown[]; keyKind: string } })
          .cdsExplorer;
        return {
          url: x.url,
          points: x.points,
          keyKind: x.keyKind,
          local: window.localStorage.length,
          session: window.sessionStorage.length,
          cookie: document.cookie,
          html: document.documentElement.outerHTML,
          state: JSON.stringify(x),
        };
      });
      expect(held.keyKind).toBe('session');
      const api = await fromApi(held.url);
      expect(held.points).toEqual(api.data.map((p) => ({ date: p.date, value: p.value })).sort(byDate));
      expect([held.local, held.session, held.cookie]).toEqual([0, 0, '']);
      for (const k of [live.key, stale.key]) {
        expect(held.html).not.toContain(k);
        expect(held.state).not.toContain(k);
      }
      await p.screenshot({ path: join(ARTIFACTS, 'session-key-first-chart.png'), fullPage: true });

      // When the dashboard gives no key, its words are shown; a pasted key still works.
      handOut = [
        {
          status: 409,
          error: { code: 'free_key_ceiling', message: 'Dashboard session keys for Free accounts are paused.' },
        },
      ];
      await p.reload();
      await p.getByRole('alert').getByText('Dashboard session keys for Free accounts are paused.').waitFor();
      await p.screenshot({ path: join(ARTIFACTS, 'session-key-refused.png'), fullPage: true });
      await p.getByLabel('API key').fill(key);
      await p.getByLabel('Commodity').fill(DEMO);
      await p.getByLabel('Kind').selectOption('price');
      await p.getByRole('button', { name: 'Show', exact: true }).click();
      await p.waitForFunction(
        () => JSON.parse(document.getElementById('cdsx-chart')?.dataset.points ?? '[]').length > 0,
      );
      expect(
        await p.evaluate(() => (window as unknown as { cdsExplorer: { keyKind: string } }).cdsExplorer.keyKind),
      ).toBe('pasted');
      expect(errors).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('never persists the key, and runs without a CSP violation or script error', async () => {
    await show({ key, kind: 'price', start: isoDaysAgo(30) });
    const stored = await page.evaluate(() => ({
      local: window.localStorage.length,
      session: window.sessionStorage.length,
      cookie: document.cookie,
      html: document.documentElement.outerHTML,
      state: JSON.stringify((window as unknown as { cdsExplorer: unknown }).cdsExplorer),
    }));
    expect(stored.local).toBe(0);
    expect(stored.session).toBe(0);
    expect(stored.cookie).toBe('');
    expect(await context.cookies()).toEqual([]);
    expect(stored.html).not.toContain(key);
    expect(stored.state).not.toContain(key);
    // Reloading the page forgets it.
    await page.reload();
    await page.waitForSelector('#cdsx[data-ready="true"]');
    expect(await page.getByLabel('API key').inputValue()).toBe('');
    expect(browserErrors.filter((e) => !e.includes('401') && !e.includes('400'))).toEqual([]);
  });
});
