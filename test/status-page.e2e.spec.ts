/// <reference lib="dom" />
// The public status page in a real browser (Debian's Chromium, headless, driven by playwright-core)
// against the whole system: the dashboard reads the gateway's GET /api/v1/datasets server-side and
// draws every dataset's 90 days; incidents are written as an operator writes them (`npm run admin --
// incident …`, NATS KV), open ones listed first. Nobody logs in. When the gateway is gone the page
// says so (503), never an error page. Screenshots at 1280 and 390 pixels wide go to
// test/artifacts/status-page/.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CONDITION_DAYS, DATASETS, type DatasetsResponse, type Incident } from '@cds/contracts';
import { REPO_ROOT } from '@cds/testkit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { eventually, startE2E, type E2E } from './support/harness.ts';

const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'status-page');
const [AFFECTED] = DATASETS;

let e2e: E2E;
let dash: string;
let browser: Browser;
const browserErrors: string[] = [];

/** `npm run admin -- incident …` as an operator runs it, as the NATS user `admin`; its JSON answer. */
function incidentCli(args: string[]): Promise<Incident> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--disable-warning=ExperimentalWarning',
        'services/accounts/src/cli.ts',
        'incident',
        ...args,
        '--json',
        '--nats-url',
        e2e.infra.identities.nats.admin,
      ],
      { cwd: REPO_ROOT, env: { ...process.env, CDS_LOCAL_ENV: '/nonexistent' }, timeout: 30_000 },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`incident ${args[0]} exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as Incident);
    });
  });
}

async function datasets(): Promise<DatasetsResponse> {
  const res = await fetch(`${e2e.gatewayUrl()}/api/v1/datasets`, { signal: AbortSignal.timeout(5_000) });
  expect(res.status).toBe(200);
  return (await res.json()) as DatasetsResponse;
}

async function openPage(width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => browserErrors.push(err.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) browserErrors.push(m.text());
  });
  return page;
}

let open: Incident;
let resolved: Incident;

beforeAll(async () => {
  e2e = await startE2E({ dashboard: {} });
  dash = e2e.system.dashboardUrl!;
  // An older incident, resolved; then a newer one still open on one dataset, with a second update.
  const first = await incidentCli(['open', '--title', 'Delayed projections', '--message', 'Reads lag behind.']);
  resolved = await incidentCli(['resolve', first.id, '--message', 'Caught up; all data current.']);
  const opened = await incidentCli([
    'open',
    '--title',
    'Agency API answering errors',
    '--datasets',
    AFFECTED!.id,
    '--message',
    'The agency answers 503 since 13:50; the next release may be late.',
  ]);
  open = await incidentCli(['update', opened.id, '--state', 'identified', '--message', 'Their maintenance window.']);
  await eventually(
    'the incidents on GET /datasets',
    async () => (await datasets()).incidents.filter((i) => [open.id, resolved.id].includes(i.id)).length === 2,
    15_000,
  );
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await e2e?.stop();
}, 60_000);

describe('the status page', () => {
  it('is linked from every page for visitors, and needs no log-in', async () => {
    const page = await openPage(1280);
    await page.goto(`${dash}/login`);
    await page.getByRole('contentinfo').getByRole('link', { name: 'Service status' }).click();
    await page.getByRole('heading', { name: 'Service status', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/status');
    await page.context().close();
  });

  it('draws 90 days per dataset with a legend, and the incidents, open first, each with its updates (1280 wide)', async () => {
    const page = await openPage(1280);
    const res = await page.goto(`${dash}/status`);
    expect(res?.status()).toBe(200);
    const strips = page.locator('ol.strip');
    await expect.poll(() => strips.count()).toBe(DATASETS.length);
    for (let i = 0; i < DATASETS.length; i++) {
      expect(await strips.nth(i).locator('li.day').count(), DATASETS[i]!.id).toBe(CONDITION_DAYS);
    }
    // Every cell names its date and condition, the way the gateway judged that day.
    const today = (await datasets()).data[0]!;
    const last = strips.first().locator('li.day').last();
    expect(await last.getAttribute('data-date')).toBe(today.days[0]!.date);
    expect(await last.getAttribute('aria-label')).toMatch(new RegExp(`: ${today.days[0]!.condition}`));
    expect(await last.getAttribute('class')).toContain(`c-${today.days[0]!.condition}`);

    const legend = page.getByRole('region', { name: 'Legend' });
    for (const label of ['Available', 'Degraded', 'Late', 'Missing']) {
      await expect.poll(() => legend.getByText(label, { exact: true }).count()).toBe(1);
    }

    // One tab stop per strip; the arrow keys walk it and the day's words appear under it.
    await last.focus();
    await page.keyboard.press('ArrowLeft');
    const previous = strips
      .first()
      .locator('li.day')
      .nth(CONDITION_DAYS - 2);
    expect(await previous.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.locator('[data-day-detail]').first().textContent()).toBe(
      await previous.getAttribute('aria-label'),
    );

    const incidents = page.locator('#incidents article.incident');
    expect(await incidents.count()).toBe(2);
    await expect.poll(() => incidents.first().getByRole('heading').textContent()).toBe(open.title);
    expect(await incidents.nth(1).getByRole('heading').textContent()).toBe(resolved.title);
    const updates = await incidents.first().locator('.updates li .update-text').allTextContents();
    expect(updates).toEqual([
      'Their maintenance window.',
      'The agency answers 503 since 13:50; the next release may be late.',
    ]);
    expect(await page.locator(`#dataset-${AFFECTED!.id}`).getByText(`Open incident: ${open.title}`).count()).toBe(1);

    // The public API's address as the dashboard is told it (PUBLIC_API_URL, libs/testkit system.ts).
    const api = `http://localhost:${new URL(e2e.gatewayUrl()).port}/api/v1`;
    expect(await page.getByRole('link', { name: 'JSON', exact: true }).getAttribute('href')).toBe(`${api}/datasets`);
    expect(await page.getByRole('link', { name: 'Atom feed' }).getAttribute('href')).toBe(`${api}/datasets/feed`);
    await page.screenshot({ path: join(ARTIFACTS, 'status-1280.png'), fullPage: false });
    await page.screenshot({ path: join(ARTIFACTS, 'status-1280-full.png'), fullPage: true });
    await page.locator('#incidents').screenshot({ path: join(ARTIFACTS, 'incidents-1280.png') });
    expect(browserErrors).toEqual([]);
    await page.context().close();
  });

  it('fits a 390-wide phone without sideways scrolling', async () => {
    const page = await openPage(390);
    await page.goto(`${dash}/status`);
    expect(await page.locator('ol.strip').first().locator('li.day').count()).toBe(CONDITION_DAYS);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(ARTIFACTS, 'status-390.png'), fullPage: false });
    await page.locator('ol.strip').nth(1).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'status-390-dataset.png'), fullPage: false });
    await page.locator('#incidents').screenshot({ path: join(ARTIFACTS, 'incidents-390.png') });
    expect(browserErrors).toEqual([]);
    await page.context().close();
  });

  it('says so clearly when the gateway is gone: a 503 page with the reason, no error page', async () => {
    await e2e.system.gateways[0]!.stop();
    const page = await openPage(1280);
    let status = 0;
    await eventually(
      'the status page without its gateway',
      async () => {
        status = (await page.goto(`${dash}/status`))?.status() ?? 0;
        return status === 503;
      },
      20_000,
    );
    await page
      .getByText("The service's status cannot be shown right now: the API gateway could not be reached.")
      .waitFor();
    expect(await page.locator('ol.strip').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'gateway-gone-1280.png'), fullPage: false });
    await page.context().close();
  });
});
