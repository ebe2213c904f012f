/// <reference lib="dom" />
// The data explorer's supply and demand panel in a real browser against the real system: the June
// 2026 WASDE XML (services/ingest/test/fixtures/wasde_0626_trimmed.xml: US feed grains and corn, US
// soybeans, world corn) through the ingest CLI, the explorer's HTML and assets served under a strict
// CSP, Chromium driven by playwright-core. The balance sheet the page shows and the figure it draws
// across editions must be what the API serves for the same request; screenshots go to
// test/artifacts/explorer-supply-demand/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { connectMessaging } from '@cds/messaging';
import { REPO_ROOT } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { eventually, startE2E, type E2E } from './support/harness.ts';
import { waitForProjections } from './support/projections.ts';

/** The explorer module's interface (services/dashboard/src/explorer/index.ts). */
interface ExplorerModule {
  renderExplorer(opts: { apiBaseUrl: string; assetPrefix: string }): { head: string; body: string };
  registerExplorerAssets(app: FastifyInstance, opts: { prefix: string }): void;
}
// Loaded by path, as test/explorer.e2e.spec.ts does (a root test cannot import another project's file).
const { registerExplorerAssets, renderExplorer } = (await import(
  pathToFileURL(join(REPO_ROOT, 'services', 'dashboard', 'src', 'explorer', 'index.ts')).href
)) as ExplorerModule;
const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'explorer-supply-demand');
const ASSETS = '/dashboard/explorer';
const WASDE_JUNE_2026 = join(REPO_ROOT, 'services', 'ingest', 'test', 'fixtures', 'wasde_0626_trimmed.xml');

let e2e: E2E;
let site: FastifyInstance;
let browser: Browser;
let page: Page;
let key: string;
const browserErrors: string[] = [];

type Figure = Record<string, unknown> & { attribute: string; unit: string; value: number; edition: string };
interface Held {
  url: string | null;
  editionsUrl: string | null;
  points: Record<string, unknown>[];
  dataPoints: Record<string, unknown>[];
}

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  const ingested = await e2e.ingest(['backfill', '--source', 'wasde', '--file', WASDE_JUNE_2026, '--quiet']);
  expect(ingested.code, ingested.stderr).toBe(0);
  key = (await e2e.account('enterprise')).key;
  const messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'explorer-sd-e2e' });
  try {
    await eventually(
      'the June 2026 balance sheets served',
      async () => {
        const res = await e2e.get('/api/v1/commodities/CORN/supply-demand?marketing_year=2026/27', {
          key,
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

  const apiBaseUrl = `${e2e.gatewayUrl()}/api/v1`;
  const { head, body } = renderExplorer({ apiBaseUrl, assetPrefix: ASSETS });
  site = Fastify({ forceCloseConnections: true });
  registerExplorerAssets(site, { prefix: ASSETS });
  const csp =
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; ` +
    `connect-src ${new URL(apiBaseUrl).origin}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
  site.get('/dashboard/explorer', (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8" /><title>Data explorer</title>` +
          `<link rel="icon" href="data:," /><link rel="stylesheet" href="/page.css" />${head}</head>` +
          `<body><main>${body}</main></body></html>`,
      ),
  );
  // Stands in for the dashboard's global stylesheet, so screenshots look like the product.
  site.get('/page.css', (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .send(
        'body{margin:0;background:#f1f5f9;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}' +
          'main{padding:24px 32px;max-width:1200px;margin:0 auto}',
      ),
  );
  const siteUrl = await site.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') browserErrors.push(m.text());
  });
  page.on('pageerror', (err) => browserErrors.push(err.message));
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.goto(`${siteUrl}/dashboard/explorer`);
  await page.waitForSelector('#cdsx[data-ready="true"]');
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await e2e?.stop();
}, 60_000);

const explorerState = () =>
  page.evaluate(() => {
    const x = (window as unknown as { cdsExplorer: Held & { shown: number; editionsShown: number } }).cdsExplorer;
    return {
      url: x.url,
      editionsUrl: x.editionsUrl,
      points: x.points,
      shown: x.shown,
      editionsShown: x.editionsShown,
      dataPoints: JSON.parse(document.getElementById('cdsx-chart')!.dataset.points ?? '[]'),
    };
  });

/** Fills what is given, clicks Show and waits for the page to finish. */
async function show(fields: {
  key?: string;
  commodity?: string;
  region?: string;
  year?: string;
  asOf?: string;
}): Promise<Held> {
  if (fields.key !== undefined) await page.getByLabel('API key').fill(fields.key);
  if (fields.commodity !== undefined) {
    await page.getByLabel('Commodity').fill(fields.commodity);
    await page.getByLabel('Commodity').dispatchEvent('change');
    await page.waitForFunction((c) => document.getElementById('cdsx')!.dataset.commodity === c, fields.commodity);
  }
  await page.getByLabel('Kind').selectOption('supply_demand');
  if (fields.region !== undefined) await page.getByLabel('Region').selectOption(fields.region);
  if (fields.year !== undefined) await page.getByLabel('Marketing year').selectOption(fields.year);
  if (fields.asOf !== undefined) await page.getByLabel('As of').fill(fields.asOf);
  const before = (await explorerState()).shown;
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await page.waitForFunction(
    (n) => (window as unknown as { cdsExplorer: { shown: number } }).cdsExplorer.shown > n,
    before,
  );
  return explorerState();
}

/** Every figure of an API answer (all its pages), as the test reads it straight from the API. */
async function fromApi(url: string): Promise<{ data: Figure[]; meta: Record<string, unknown> }> {
  const path = new URL(url).pathname + new URL(url).search;
  const res = await e2e.get(path, { key });
  expect(res.status, res.text).toBe(200);
  expect(res.json.meta.total_pages).toBeLessThanOrEqual(1);
  return res.json;
}

/** The rows of the balance sheet table: [attribute cell, value, unit, status, edition, checks]. */
const sheetRows = () =>
  page
    .locator('#cdsx-table tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));

/** What the chart drew across editions, from the editions view of the same figure. */
const editionPoints = (figures: Figure[]) =>
  figures.map((f) => ({
    date: String(f.published_at).slice(0, 10),
    edition: f.edition,
    value: f.value,
    change: f.change ?? null,
  }));

describe('the supply and demand panel', () => {
  it("shows CORN's newest US balance sheet as the API serves it, and draws ending stocks across editions", async () => {
    const held = await show({ key, commodity: 'CORN' });
    const sheetUrl = `${e2e.gatewayUrl()}/api/v1/commodities/CORN/supply-demand?region=united_states&marketing_year=2026%2F27&per_page=100`;
    expect(held.url).toBe(sheetUrl);
    const api = await fromApi(sheetUrl);
    expect(api.data.length).toBeGreaterThan(10);
    // the table: the answer's attributes in its order, each value with its unit, status and edition
    const rows = await sheetRows();
    expect(rows.map((r) => [r[2], r[3], r[4]])).toEqual(api.data.map((f) => [f.unit, f.status, f.edition]));
    expect(
      await page.locator('#cdsx-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.attribute)),
    ).toEqual(api.data.map((f) => f.attribute));
    const ending = rows[api.data.findIndex((f) => f.attribute === 'ending_stocks' && f.unit === 'Million Bushels')]!;
    expect(ending.slice(1, 5)).toEqual(['1,960', 'Million Bushels', 'projection', '2026-06']);
    const derived = api.data.findIndex((f) => f.attribute === 'stocks_to_use');
    expect(derived).toBeGreaterThanOrEqual(0);
    expect(api.data[derived]!.derived).toBe(true);
    expect(rows[derived]![0]).toBe('Stocks to use derived');
    // the marketing years offered come from the data, newest first; the regions from the descriptor
    expect(await page.getByLabel('Marketing year').locator('option').allTextContents()).toEqual([
      'Newest',
      '2026/27',
      '2025/26',
      '2024/25',
    ]);
    expect(
      await page
        .getByLabel('Region')
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
    ).toContain('world');
    // the chart: ending stocks across the editions that published it (May's column, then June's)
    const editionsUrl = `${e2e.gatewayUrl()}/api/v1/commodities/CORN/supply-demand?region=united_states&marketing_year=2026%2F27&attribute=ending_stocks&view=editions&per_page=100`;
    expect(held.editionsUrl).toBe(editionsUrl);
    const editions = (await fromApi(editionsUrl)).data.filter((f) => f.unit === 'Million Bushels');
    expect(editions.map((f) => [f.edition, f.value, f.change])).toEqual([
      ['2026-05', 1957, null],
      ['2026-06', 1960, 3],
    ]);
    expect(held.points).toEqual(editionPoints(editions));
    expect(held.dataPoints).toEqual(editionPoints(editions));
    expect(await page.locator('#cdsx-chart').getAttribute('data-drawing')).toBe('editions');
    expect(
      await page
        .locator('#cdsx-editions tbody tr')
        .evaluateAll((trs) => (trs as HTMLTableRowElement[]).map((tr) => tr.cells[3]!.textContent)),
    ).toEqual(['—', '+3']);
    expect(await page.locator('#cdsx-source').textContent()).toContain('USDA World Agricultural Outlook Board');
    expect(api.meta.attribution).toMatch(/^USDA World Agricultural Outlook Board/);
    expect(await page.locator('#cdsx-curl').textContent()).toBe(
      `curl -H "Authorization: Bearer $KEY" \\\n  '${sheetUrl}'`,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'corn-us-2026-27.png'), fullPage: true });
  });

  it('draws the row clicked across editions, with each edition and its change', async () => {
    const before = (await explorerState()).editionsShown;
    await page.locator('#cdsx-table tbody tr[data-attribute="beginning_stocks"]').first().click();
    await page.waitForFunction(
      (n) => (window as unknown as { cdsExplorer: { editionsShown: number } }).cdsExplorer.editionsShown > n,
      before,
    );
    const held = await explorerState();
    expect(held.editionsUrl).toContain('attribute=beginning_stocks&view=editions');
    const api = await fromApi(held.editionsUrl!);
    const unit = await page
      .locator('#cdsx-table tbody tr[data-attribute="beginning_stocks"]')
      .first()
      .getAttribute('data-unit');
    const editions = api.data.filter((f) => f.unit === unit);
    expect(editions.map((f) => [f.edition, f.value, f.change])).toEqual([
      ['2026-05', 2142, null],
      ['2026-06', 2145, 3],
    ]);
    expect(held.points).toEqual(editionPoints(editions));
    expect(await page.locator('#cdsx-table tbody tr[aria-selected="true"]').getAttribute('data-attribute')).toBe(
      'beginning_stocks',
    );
    expect(await page.locator('#cdsx-legend li').allTextContents()).toEqual([
      'Corn — Beginning stocks, United States 2026/27, Million Bushels, by edition',
    ]);
    await page.screenshot({ path: join(ARTIFACTS, 'corn-beginning-stocks-editions.png'), fullPage: true });
  });

  it('as of a date before the June release, shows the sheet the May edition left', async () => {
    const held = await show({ year: '2026/27', asOf: '2026-06-01' });
    const url = `${e2e.gatewayUrl()}/api/v1/commodities/CORN/supply-demand?region=united_states&marketing_year=2026%2F27&as_of=2026-06-01&per_page=100`;
    expect(held.url).toBe(url);
    const api = await fromApi(url);
    expect(new Set(api.data.map((f) => f.edition))).toEqual(new Set(['2026-05']));
    const rows = await sheetRows();
    const i = api.data.findIndex((f) => f.attribute === 'ending_stocks' && f.unit === 'Million Bushels');
    expect(rows[i]!.slice(1, 5)).toEqual(['1,957', 'Million Bushels', 'projection', '2026-05']);
    // only the May column: the one edition before that date
    expect(held.points.map((p) => p.edition)).toEqual(['2026-05']);
    await page.screenshot({ path: join(ARTIFACTS, 'corn-as-of-2026-06-01.png'), fullPage: true });
    await page.getByLabel('As of').fill('');
  });

  it("shows a world table's region", async () => {
    const held = await show({ region: 'world' });
    expect(held.url).toContain('region=world&marketing_year=2026%2F27');
    const api = await fromApi(held.url!);
    expect(api.data.every((f) => f.region === 'world')).toBe(true);
    expect((await sheetRows()).map((r) => r[2])).toEqual(api.data.map((f) => f.unit));
    await page.screenshot({ path: join(ARTIFACTS, 'corn-world-2026-27.png'), fullPage: true });
    await page.getByLabel('Region').selectOption('united_states');
  });

  it('says clearly why an answer is refused (400 naming as_of, 404, a Free key 403), and a commodity without balance sheets', async () => {
    await show({ asOf: '2001-01-01' });
    const error = page.getByRole('alert');
    expect(await error.locator('.cdsx-error-title').textContent()).toBe(
      'No edition answers for this date: choose one between the first edition and today.',
    );
    expect(await error.textContent()).toContain('Parameteras_of');
    await page.screenshot({ path: join(ARTIFACTS, 'refused-as-of.png'), fullPage: true });
    await page.getByLabel('As of').fill('');

    // A commodity without balance sheets is not offered the kind at all.
    await page.getByLabel('Commodity').fill('GOLD');
    await page.getByLabel('Commodity').dispatchEvent('change');
    await page.waitForFunction(() => document.getElementById('cdsx')!.dataset.commodity === 'GOLD');
    const offered = await page
      .getByLabel('Kind')
      .locator('option')
      .evaluateAll((os) => (os as HTMLOptionElement[]).filter((o) => !o.disabled && !o.hidden).map((o) => o.value));
    expect(offered).not.toContain('supply_demand');

    // A commodity the API does not know: its 404, in words.
    await page.getByLabel('Commodity').fill('NO_SUCH_THING');
    await page.getByLabel('Commodity').dispatchEvent('change');
    await page.getByLabel('Kind').selectOption('supply_demand');
    const before = (await explorerState()).shown;
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForFunction(
      (n) => (window as unknown as { cdsExplorer: { shown: number } }).cdsExplorer.shown > n,
      before,
    );
    expect(await error.locator('.cdsx-error-title').textContent()).toBe(
      'No supply and demand balance sheets for NO_SUCH_THING.',
    );
    expect(await error.textContent()).toContain('API answer404');
    expect(await page.locator('#cdsx-curl').textContent()).toContain('/commodities/NO_SUCH_THING/supply-demand?');
    await page.screenshot({ path: join(ARTIFACTS, 'refused-unknown-commodity.png'), fullPage: true });

    // A Free key before its 12 months of editions: the plan's 403, in words.
    const free = (await e2e.account('free')).key;
    await page.getByLabel('API key').fill(free);
    await page.getByLabel('API key').dispatchEvent('change');
    await show({ commodity: 'CORN', asOf: '2025-06-01' });
    expect(await error.locator('.cdsx-error-title').textContent()).toBe(
      "Your key's plan does not reach this edition: Free keys read the editions of their last 12 months.",
    );
    expect(await error.textContent()).toContain('API answer403');
    expect(await error.textContent()).toContain('historical_limit');
    await page.screenshot({ path: join(ARTIFACTS, 'refused-free-plan.png'), fullPage: true });
    await page.getByLabel('As of').fill('');
    expect(browserErrors.filter((e) => !/status of (400|403|404)/.test(e))).toEqual([]);
  });
});
