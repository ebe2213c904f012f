/// <reference lib="dom" />
// The webhook pages of the developer dashboard in a real browser (Debian's Chromium through
// playwright-core) against the whole system with the notifier: sign up → add an endpoint (bad
// input first) → the signing secret shown once → "send test event" → the notifier's signed
// delivery reaches a real HTTPS receiver in this process (self-signed certificate trusted by the
// notifier; its host:port exempted by WEBHOOK_ALLOW_PRIVATE for the dashboard and the notifier) and
// shows as delivered in the log → re-send (same event id) → the notifier killed mid-delivery and
// restarted (the same event id arrives again, and the log shows it delivered) → disable → delete.
// A screenshot of every page goes to test/artifacts/webhooks/.
import { mkdirSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { linkIn, startSmtpListener, type SmtpListener } from '@cds/dashboard/testing';
import { REPO_ROOT } from '@cds/testkit';
import { verifySignature } from '@cds/webhooks';
import {
  createSelfSignedCertificate,
  startHttpsReceiver,
  type HttpsReceiver,
  type SelfSignedCertificate,
} from '@cds/webhooks/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { eventually, FIXTURES, startE2E, type E2E } from './support/harness.ts';

const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'webhooks');
const EMAIL = 'katherine.johnson@example.test';
const PASSWORD = 'orbital mechanics by hand';

let smtp: SmtpListener;
let cert: SelfSignedCertificate;
let receiver: HttpsReceiver;
let e2e: E2E;
let dash: string;
let browser: Browser;
let page: Page;
const browserErrors: string[] = [];
/** When set, the receiver holds the next request unanswered (in `held`): a delivery in flight. */
let holdNext = false;
const held: ServerResponse[] = [];

beforeAll(async () => {
  smtp = await startSmtpListener();
  cert = await createSelfSignedCertificate();
  receiver = await startHttpsReceiver(cert, (_req, res) => {
    if (holdNext) {
      holdNext = false;
      return void held.push(res);
    }
    res.writeHead(204).end();
  });
  const exempt = `127.0.0.1:${receiver.port}`;
  e2e = await startE2E({
    dashboard: { smtpUrl: smtp.url, env: { WEBHOOK_ALLOW_PRIVATE: exempt } },
    notifier: {
      allowPrivate: [exempt],
      extraCaCerts: cert.certFile,
      // The notifier's lease is 2 × WEBHOOK_TIMEOUT_MS + 4 × MONGODB_OPERATION_TIMEOUT_MS (main.ts):
      // 14 s here rather than 40 s, so the delivery of a killed notifier is taken over sooner.
      env: { WEBHOOK_POLL_MS: '200', WEBHOOK_TIMEOUT_MS: '3000', MONGODB_OPERATION_TIMEOUT_MS: '2000' },
    },
  });
  dash = e2e.system.dashboardUrl!;
  // Any ingest publishes the catalog, which the webhook form checks commodity ids against.
  const run = await e2e.ingest([
    'backfill',
    '--source',
    'eia',
    '--file',
    join(FIXTURES, 'eia_rwtc_wti_spot_daily_2022_excerpt.csv'),
  ]);
  expect(run.code, run.stderr).toBe(0);
  await eventually('catalog listed by the query service', async () => {
    const res = await fetch(`${e2e.system.query.url}/api/v1/commodities?per_page=100`);
    return res.ok && ((await res.json()) as { data: { id: string }[] }).data.some((c) => c.id === 'CRUDE_OIL_WTI');
  });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.on('pageerror', (err) => browserErrors.push(err.message));
  page.on('console', (m) => {
    // Pages answered 4xx on purpose (a refused form) are logged by Chromium as failed loads.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) browserErrors.push(m.text());
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 240_000);

afterAll(async () => {
  for (const res of held.splice(0)) res.destroy();
  await browser?.close();
  await e2e?.stop();
  await receiver?.stop();
  await cert?.remove();
  await smtp?.stop();
}, 60_000);

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
const urlError = () => page.locator('#f-url-error').innerText();

/** Reloads the endpoint page until the newest delivery row shows `status`. */
async function untilRow(eventId: string, status: RegExp, timeoutMs = 30_000): Promise<void> {
  await eventually(
    `delivery ${eventId} ${String(status)}`,
    async () => {
      await page.reload();
      const row = page.getByRole('row', { name: new RegExp(eventId) });
      return (await row.count()) === 1 && status.test(await row.innerText());
    },
    timeoutMs,
  );
}

describe('webhook pages in a browser, with the notifier delivering', () => {
  let receiverUrl = '';
  let secret = '';
  let testEventId = '';

  it('signs up and finds Webhooks in the navigation, empty', async () => {
    await page.goto(`${dash}/signup`);
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    const since = smtp.mails.length;
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await page.goto(linkIn(await smtp.waitFor(EMAIL, /Confirm your e-mail/, { since }), 'verify'));
    await page.getByRole('button', { name: 'Confirm my e-mail address' }).click();
    await page.goto(`${dash}/login`);
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await nav('Webhooks');
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    expect(await page.getByText('No endpoints yet.').isVisible()).toBe(true);
    await shot('01-list-empty');
  });

  it('refuses bad input with clear messages on the form', async () => {
    await page.getByRole('link', { name: 'Add an endpoint' }).click();
    await page.getByRole('heading', { name: 'Add a webhook endpoint' }).waitFor();
    // The free plan has no COT: both formats are offered disabled, with why.
    expect(await page.getByRole('checkbox', { name: /COT legacy/ }).isDisabled()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /COT disaggregated/ }).isDisabled()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /Price/ }).isDisabled()).toBe(false);
    await shot('02-create-form');

    await page.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${receiver.port}/hooks`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await urlError()).toContain('must start with https://');
    await page.getByLabel('Endpoint URL').fill('https://127.0.0.1:1/hooks');
    await page.getByLabel('Commodities').fill('CRUDE_OIL_WTI, UNOBTAINIUM');
    await page.getByLabel('Only these:').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await urlError()).toContain('127.0.0.1 is a loopback address');
    expect(await page.locator('#f-commodities-error').innerText()).toContain('Unknown commodity: UNOBTAINIUM');
    expect(await page.locator('#f-types-error').innerText()).toContain('Tick at least one type');
    expect(await page.getByLabel('Commodities').inputValue()).toBe('CRUDE_OIL_WTI, UNOBTAINIUM');
    await shot('03-create-errors');
  });

  it('adds the endpoint and shows its signing secret once, with a copy button', async () => {
    receiverUrl = `${receiver.origin}/hooks/cds`;
    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    await page.getByLabel('Commodities').fill('crude_oil_wti, gold');
    await page.locator('input[name="types"][value="price"]').check();
    await page.locator('input[name="types"][value="stocks"]').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('Endpoint added.').waitFor();
    secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(await page.getByRole('button', { name: 'Copy secret' }).isVisible()).toBe(true);
    expect(await page.getByText('docs/notifications.md').first().isVisible()).toBe(true);
    await shot('04-created-secret');
    await page.getByRole('link', { name: 'All endpoints' }).click();
    const row = page.getByRole('row', { name: new RegExp(receiverUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
    expect(await row.innerText()).toMatch(/CRUDE_OIL_WTI, GOLD[\s\S]*price, stocks[\s\S]*Enabled[\s\S]*never/);
    await shot('05-list');
    await row.getByRole('link').click();
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByText(`whsec_…${secret.slice(-4)}`).isVisible()).toBe(true);
  });

  it('sends a test event: the receiver gets a correctly signed delivery and the log shows it delivered', async () => {
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event queued').waitFor();
    const row = page.getByRole('row', { name: /series\.updated/ });
    testEventId = /evt_[0-9a-f]{32}/.exec(await row.innerText())?.[0] ?? '';
    expect(testEventId).not.toBe('');
    await shot('06-test-queued');

    const [delivery] = await receiver.waitFor(1, (r) => r.headers['cds-event-id'] === testEventId);
    expect(delivery!.method).toBe('POST');
    expect(delivery!.url).toBe('/hooks/cds');
    expect(delivery!.headers['content-type']).toContain('application/json');
    expect(delivery!.headers['user-agent']).toBe('CommodityDataService-Webhooks/1');
    expect(delivery!.headers['cds-event-type']).toBe('series.updated');
    expect(delivery!.headers['cds-delivery-attempt']).toBe('1');
    const check = verifySignature(
      secret,
      delivery!.headers['cds-signature'] as string,
      delivery!.body,
      Date.now() / 1000,
    );
    expect(check.ok).toBe(true);
    const body = JSON.parse(delivery!.body) as { id: string; test?: boolean; data: { commodity: string } };
    expect(body).toMatchObject({ id: testEventId, test: true, data: { commodity: 'CRUDE_OIL_WTI' } });

    await untilRow(testEventId, /Delivered[\s\S]*HTTP 204/);
    await shot('07-test-delivered');
  });

  it('re-sends the delivery: the same event id arrives again', async () => {
    const before = receiver.requests.filter((r) => r.headers['cds-event-id'] === testEventId).length;
    await page.getByRole('button', { name: `Re-send ${testEventId}` }).click();
    await page.getByText('Delivery queued again').waitFor();
    await receiver.waitFor(before + 1, (r) => r.headers['cds-event-id'] === testEventId);
    await untilRow(testEventId, /Delivered/);
    await shot('08-resent');
  });

  it('kills the notifier mid-delivery: after the restart the same event arrives again and the log shows it delivered', async () => {
    holdNext = true;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event queued').waitFor();
    // The log is newest first: the top row is the event just queued.
    const killedId = /evt_[0-9a-f]{32}/.exec(await page.locator('table.deliveries tbody tr').first().innerText())?.[0];
    expect(killedId).toBeDefined();
    expect(killedId).not.toBe(testEventId);
    // The receiver holds it unanswered: the delivery is in flight when the notifier dies.
    await receiver.waitFor(1, (r) => r.headers['cds-event-id'] === killedId);
    expect(held.length).toBe(1);
    const killed = e2e.system.notifier!;
    killed.signal('SIGKILL');
    await eventually('notifier gone', () => Promise.resolve(killed.exited()), 10_000);

    await page.getByRole('link', { name: 'Refresh' }).click();
    await page.getByText('Test event queued').waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: new RegExp(killedId!) });
    const before = await row.innerText();
    expect(before).toMatch(/Delivering/);
    expect(before).not.toMatch(/Delivered/);

    for (const res of held.splice(0)) res.destroy();
    await e2e.system.restartNotifier!();
    // The lease of the killed notifier runs out and the new one sends the same event again.
    const [, again] = await receiver.waitFor(2, (r) => r.headers['cds-event-id'] === killedId, 60_000);
    const check = verifySignature(secret, again!.headers['cds-signature'] as string, again!.body, Date.now() / 1000);
    expect(check.ok).toBe(true);
    expect((JSON.parse(again!.body) as { id: string }).id).toBe(killedId);

    await untilRow(killedId!, /Delivered[\s\S]*HTTP 204/);
    const cells = row.getByRole('cell');
    expect(/evt_[0-9a-f]{32}/.exec(await cells.nth(1).innerText())?.[0]).toBe(killedId);
    // The attempt cut off by the kill counts (attempts count from their start): the log shows 2, and
    // the receiver saw the event twice, told apart by CDS-Delivery-Attempt.
    const attempts = Number(await cells.nth(3).innerText());
    const sent = receiver.requests.filter((r) => r.headers['cds-event-id'] === killedId);
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.map((r) => r.headers['cds-delivery-attempt'])).toEqual(sent.map((_, i) => String(i + 1)));
    await shot('08b-after-kill');
  }, 120_000);

  it('edits the filters, and rotates the secret: for 24 h deliveries are signed with the new and the old one', async () => {
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit the endpoint' }).waitFor();
    expect(await page.getByLabel('Commodities').inputValue()).toBe('CRUDE_OIL_WTI, GOLD');
    expect(await page.locator('input[name="types"][value="stocks"]').isChecked()).toBe(true);
    await page.getByLabel('Commodities').fill('all');
    await page.getByLabel('Every type my plan includes').check();
    await shot('09-edit');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved.').waitFor();
    expect(await page.getByRole('definition').filter({ hasText: 'Every type your plan includes' }).count()).toBe(1);

    await page.getByRole('link', { name: 'Rotate secret' }).click();
    await page.getByRole('heading', { name: 'Rotate the signing secret?' }).waitFor();
    await shot('10-rotate-confirm');
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.getByText('Secret rotated.').waitFor();
    const rotated = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    // The rotate action says until when the old secret stays valid (24 h from now).
    const notice = await page.getByText('Secret rotated.').innerText();
    const until = /stays valid until (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) UTC/.exec(notice);
    expect(notice).toContain(`The old secret (…${secret.slice(-4)})`);
    expect(until, notice).not.toBeNull();
    const untilMs = Date.parse(`${until![1]}T${until![2]}:00Z`);
    expect(Math.abs(untilMs - (Date.now() + 86_400_000))).toBeLessThan(5 * 60_000);
    await shot('11-rotated');
    await page.getByRole('link', { name: 'Refresh' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event queued').waitFor();
    const ids = [...(await page.locator('table.deliveries').innerText()).matchAll(/evt_[0-9a-f]{32}/g)].map(
      (m) => m[0],
    );
    const newest = ids.find((id) => id !== testEventId)!;
    const [delivery] = await receiver.waitFor(1, (r) => r.headers['cds-event-id'] === newest);
    const header = delivery!.headers['cds-signature'] as string;
    // Two v1 entries, the new secret's first: a receiver holding either accepts the delivery.
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature(rotated, header, delivery!.body, Date.now() / 1000).ok).toBe(true);
    expect(verifySignature(secret, header, delivery!.body, Date.now() / 1000).ok).toBe(true);
    const other = 'whsec_' + 'x'.repeat(43);
    expect(verifySignature(other, header, delivery!.body, Date.now() / 1000)).toMatchObject({ reason: 'mismatch' });
    await untilRow(newest, /Delivered/);
  });

  it('disables the endpoint, then deletes it behind a confirmation naming the URL', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Endpoint disabled').waitFor();
    expect(await page.getByText('Disabled by you').first().isVisible()).toBe(true);
    await shot('12-disabled');
    await page.getByRole('link', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Delete this endpoint?' }).waitFor();
    await shot('13-delete-confirm');
    await page.getByRole('button', { name: `Delete ${receiverUrl}` }).click();
    await page.getByText('Endpoint deleted.').waitFor();
    expect(await page.getByText('No endpoints yet.').isVisible()).toBe(true);
    await shot('14-deleted');
    expect(browserErrors).toEqual([]);
  });
});
