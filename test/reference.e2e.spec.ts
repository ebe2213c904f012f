/// <reference lib="dom" />
// The interactive API reference (Scalar at /docs) in a real browser against the real system: the
// page and everything it loads come from the gateway's own origin (no CDN, no fonts, no telemetry),
// its CSP blocks nothing it needs, it shows the authentication and rate-limit sections of the
// OpenAPI document and links the error codes, and "try it" sends GET /api/v1/commodities to the
// same origin with the key typed on the page as a Bearer token, a key the page never stores.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { eventually, FIXTURES, startE2E, type E2E } from './support/harness.ts';

const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'reference');
/** Real EIA prices through the ingest CLI: it publishes the catalog too, so the list is not empty. */
const EIA_WTI = join(FIXTURES, 'eia_rwtc_wti_spot_daily_2022_excerpt.csv');

let e2e: E2E;
let origin: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let key: string;
/** Every request the page made: its URL, and its Authorization header. */
const requests: { url: string; authorization: string | undefined }[] = [];
const browserErrors: string[] = [];

/**
 * CSP violations the page reports (kept on the window by a script the test adds before any other),
 * but one: the zod inside Scalar's bundle probes `Function('')` once to choose its JIT, catches the
 * refusal and validates without it. That refusal is the policy working (no 'unsafe-eval').
 */
const cspViolations = async (): Promise<string[]> =>
  (await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).filter(
    (v) => v !== 'script-src eval',
  );

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  const ingested = await e2e.ingest(['backfill', '--source', 'eia', '--file', EIA_WTI, '--quiet']);
  expect(ingested.code, ingested.stderr).toBe(0);
  key = (await e2e.account('business')).key;
  await eventually(
    'the catalog served',
    async () => {
      const res = await e2e.get('/api/v1/commodities', { key, validate: false });
      return res.status === 200 && res.json.data.length > 0;
    },
    60_000,
  );
  origin = new URL(e2e.gatewayUrl()).origin;

  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.addInitScript(() => {
    const w = window as unknown as { cspViolations: string[] };
    w.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.cspViolations.push(`${e.effectiveDirective} ${e.blockedURI}`),
    );
  });
  page = await context.newPage();
  page.on('request', (r) => requests.push({ url: r.url(), authorization: r.headers().authorization }));
  page.on('console', (m) => {
    if (m.type() === 'error') browserErrors.push(m.text());
  });
  page.on('pageerror', (err) => browserErrors.push(err.message));
  mkdirSync(ARTIFACTS, { recursive: true });
}, 240_000);

afterAll(async () => {
  if (page !== undefined) {
    writeFileSync(join(ARTIFACTS, 'page.html'), await page.content().catch(() => ''));
    const controls = await page
      .evaluate(() =>
        [...document.querySelectorAll('button, input, [contenteditable], [role=textbox], section[id], h1, h2, h3')].map(
          (e) =>
            `${e.tagName} id=${e.id} aria=${e.getAttribute('aria-label')} ph=${e.getAttribute('placeholder')} text=${(e.textContent ?? '').trim().slice(0, 60)}`,
        ),
      )
      .catch(() => []);
    writeFileSync(join(ARTIFACTS, 'controls.txt'), controls.join('\n'));
  }
  await browser?.close();
  await e2e?.stop();
}, 60_000);

describe('API reference at /docs', () => {
  it('renders the served OpenAPI document from the gateway alone, with the sections and the error codes link', async () => {
    const response = await page.goto(`${origin}/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.url()).toBe(`${origin}/docs`);
    await page.getByRole('heading', { name: 'Commodity Data Service', level: 1 }).waitFor({ timeout: 30_000 });
    // The sections of the document's description, and its link to the error codes page.
    for (const name of ['Authentication', 'Rate limits', 'Errors']) {
      await expect(page.getByRole('heading', { name, exact: true }).first().isVisible()).resolves.toBe(true);
    }
    const errorsLink = page.getByRole('link', { name: 'error codes page' });
    expect(await errorsLink.getAttribute('href')).toBe('/docs/errors');
    // Every operation of the document is there.
    for (const summary of ['List commodities', 'Get a commodity', 'Get a time series']) {
      expect(await page.getByText(summary, { exact: true }).count(), summary).toBeGreaterThan(0);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'reference.png') });
    await page
      .getByRole('heading', { name: 'Rate limits', exact: true })
      .first()
      .evaluate((e) => e.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: join(ARTIFACTS, 'rate-limits.png') });
    // Each operation shows our code samples (x-codeSamples): curl first, the clients' in its picker.
    await page.getByText('Get a time series', { exact: true }).first().click();
    await page.waitForTimeout(1500);
    await page.screenshot({ path: join(ARTIFACTS, 'code-sample.png') });
    expect(await page.content()).toContain('CDS_BASE_URL');
    // (The Python and TypeScript samples beside it run in test/clients.e2e.spec.ts.)

    const loaded = requests.map((r) => r.url);
    expect(loaded).toContain(`${origin}/docs/js/scalar.js`);
    expect(loaded).toContain(`${origin}/api/v1/openapi.json`);
    expect(await cspViolations()).toEqual([]);
  });

  it('sends "try it" to the same origin with the key typed on the page, as a Bearer token, and shows the 200', async () => {
    await page.goto(`${origin}/docs`);
    await page.getByRole('heading', { name: 'Commodity Data Service', level: 1 }).waitFor({ timeout: 30_000 });
    // The key goes into the page's authentication field (Bearer).
    const tokenField = page.getByPlaceholder('Token').first();
    await tokenField.scrollIntoViewIfNeeded();
    await tokenField.fill(key);
    await page.screenshot({ path: join(ARTIFACTS, 'key-entered.png') });

    const testRequest = page.getByRole('button', { name: /^Test Request\s*\(get \/commodities\)$/ });
    await testRequest.scrollIntoViewIfNeeded();
    await testRequest.click();
    const send = page.getByRole('button', { name: /^Send/ }).first();
    await send.waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'try-it-open.png') });
    const sent = page.waitForRequest((r) => r.url().startsWith(`${origin}/api/v1/commodities`));
    await send.click();
    const request = await sent;
    expect(request.headers().authorization).toBe(`Bearer ${key}`);
    expect(request.url()).not.toContain(key);
    const response = await request.response();
    expect(response?.status()).toBe(200);
    // The page shows the answer: its status and the body.
    await page.getByText('200 OK', { exact: true }).first().waitFor({ timeout: 15_000 });
    await page.getByText('"ALUMINUM"').first().waitFor({ timeout: 15_000 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(ARTIFACTS, 'try-it-200.png') });
    // The links off the site left are the "Powered by Scalar" credit and MDN's page of the status
    // (links a user may follow, not requests; "Open API Client" to client.scalar.com is hidden).
    const offsite = await page.evaluate((own) => {
      const links = [...document.querySelectorAll('a[href]')] as HTMLAnchorElement[];
      return links.filter((a) => a.protocol.startsWith('http') && a.origin !== own).map((a) => a.href);
    }, origin);
    writeFileSync(join(ARTIFACTS, 'offsite-links.txt'), offsite.join('\n'));
    expect([...new Set(offsite.map((h) => new URL(h).hostname))].sort()).toEqual([
      'developer.mozilla.org',
      'scalar.com',
    ]);
  });

  it('made no request outside the gateway origin and kept the key in no storage', async () => {
    expect(requests.length).toBeGreaterThan(0);
    for (const { url } of requests) {
      const u = new URL(url);
      // data: URIs (inline icons) are in the page itself: nothing leaves the machine for them.
      if (u.protocol === 'data:') continue;
      expect(u.origin, url).toBe(origin);
    }
    // The key went only in the Authorization header of the try-it request, never in a URL.
    for (const r of requests) expect(r.url).not.toContain(key);
    const keyed = requests.filter((r) => r.authorization !== undefined);
    expect(keyed.map((r) => [new URL(r.url).pathname, r.authorization])).toEqual([
      ['/api/v1/commodities', `Bearer ${key}`],
    ]);
    expect(await cspViolations()).toEqual([]);

    const stored = await page.evaluate(() => ({
      local: Object.entries(localStorage),
      session: Object.entries(sessionStorage),
      cookie: document.cookie,
    }));
    expect(JSON.stringify(stored)).not.toContain(key);
    const cookies = await context.cookies();
    expect(JSON.stringify(cookies)).not.toContain(key);
    writeFileSync(join(ARTIFACTS, 'storage.json'), JSON.stringify({ ...stored, cookies }, null, 2));

    // A reload starts without the key.
    await page.reload();
    await page.getByRole('heading', { name: 'Commodity Data Service', level: 1 }).waitFor({ timeout: 30_000 });
    expect(await page.content()).not.toContain(key);
    expect(browserErrors.filter((e) => !e.includes('favicon'))).toEqual([]);
  });
});
