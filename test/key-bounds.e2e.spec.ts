/// <reference lib="dom" />
// Bounded keys (issue #22, security review finding 1): one free account looping "Create key" in a
// real browser meets the plan's cap on active keys (10), then the per-account throttle on key changes,
// with a clear page each time; the keys stream keeps one message per account and per key; and every
// gateway replica's key table holds only the active keys. Screenshots go to test/artifacts/key-bounds/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { KEYS_STREAM, PLANS } from '@cds/contracts';
import { startSmtpListener, type SmtpListener } from '@cds/dashboard/testing';
import { connectMessaging } from '@cds/messaging';
import { REPO_ROOT } from '@cds/testkit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { logIn, signUp } from './support/dashboard-flows.ts';
import { eventually, startE2E, type E2E } from './support/harness.ts';
import { metricSum } from './support/load.ts';

const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'key-bounds');
const EMAIL = 'ada.lovelace@example.test';
const PASSWORD = 'analytical engine notes';
// The dashboard's default throttle on key creation (services/dashboard/src/security/throttle.ts).
const CREATES_PER_HOUR = 20;
const CAP = PLANS.free.maxActiveKeys;

let smtp: SmtpListener;
let e2e: E2E;
let dash: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  smtp = await startSmtpListener();
  e2e = await startE2E({ gateways: 2, dashboard: { smtpUrl: smtp.url } });
  dash = e2e.system.dashboardUrl!;
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await e2e?.stop();
  await smtp?.stop();
}, 60_000);

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

/** Submits the keys page's create form; resolves with the answer's status and, when created, the key. */
async function submitCreate(label: string): Promise<{ status: number; key?: string; keyId?: string }> {
  await page.goto(`${dash}/keys`);
  await page.getByLabel('Label').fill(label);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/dashboard/keys') && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Create key' }).click(),
  ]);
  await page.waitForLoadState();
  if (answer.status() !== 200) return { status: answer.status() };
  const key = await page.getByLabel('New API key').inputValue();
  const keyId = /Key id (key_[0-9a-f]+)/.exec(
    await page.getByRole('region', { name: /Your new key/ }).innerText(),
  )?.[1];
  return { status: 200, key, ...(keyId !== undefined ? { keyId } : {}) };
}

async function revoke(keyId: string): Promise<void> {
  await page.goto(`${dash}/keys/${keyId}/revoke`);
  await page.getByRole('button', { name: `Revoke key ${keyId}` }).click();
  await page.getByText(`Key ${keyId} is revoked.`).waitFor();
}

const gatewayMetric = (name: string) =>
  Promise.all(e2e.system.gateways.map((g) => metricSum(`${g.url}/metrics`, name)));

describe('one free account creating keys in a loop', () => {
  it('meets the cap, then the throttle, and leaves only its active keys in every gateway', async () => {
    // Sign up, confirm by mail, log in.
    await signUp(page, dash, smtp, EMAIL, PASSWORD);
    await logIn(page, dash, EMAIL, PASSWORD);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    // The loop: the first CAP creations succeed, the next is refused with the plan's cap, clearly.
    const keys: { key: string; keyId: string }[] = [];
    let attempts = 0;
    for (let i = 1; i <= CAP; i += 1) {
      const created = await submitCreate(`loop ${i}`);
      attempts += 1;
      expect(created.status).toBe(200);
      keys.push({ key: created.key!, keyId: created.keyId! });
    }
    const capped = await submitCreate('one too many');
    attempts += 1;
    expect(capped.status).toBe(403);
    expect(await page.getByRole('alert').innerText()).toBe(
      `You have ${CAP} active keys, the most the free plan allows. Revoke one before creating another.`,
    );
    expect(await page.getByLabel('Label').inputValue()).toBe('one too many');
    await shot('01-cap');

    // Revoking makes room; creating again counts against the hourly throttle until it says stop.
    // The cap (3) is below the throttle (20 an hour): at the cap, the oldest key is revoked first.
    const revoked = keys.splice(0, CAP - 1);
    for (const k of revoked) await revoke(k.keyId);
    while (attempts < CREATES_PER_HOUR) {
      if (keys.length === CAP) {
        const oldest = keys.shift()!;
        await revoke(oldest.keyId);
        revoked.push(oldest);
      }
      const created = await submitCreate(`after revoke ${attempts}`);
      attempts += 1;
      expect(created.status).toBe(200);
      keys.push({ key: created.key!, keyId: created.keyId! });
    }
    expect(keys).toHaveLength(CAP);
    const throttled = await submitCreate('throttled');
    expect(throttled.status).toBe(429);
    expect(await page.getByText(/Too many attempts; wait \d+ minute\(s\) and try again\./).isVisible()).toBe(true);
    await shot('02-throttled');

    // Every gateway holds exactly the account's active keys: revoked ones leave nothing behind.
    await eventually(
      'every gateway table at the active keys',
      async () => (await gatewayMetric('cds_gateway_active_keys')).every((n) => n === CAP),
      10_000,
    );
    expect(await gatewayMetric('cds_gateway_key_accounts')).toEqual(e2e.system.gateways.map(() => 1));
    for (const [replica] of e2e.system.gateways.entries()) {
      for (const k of [revoked[0]!, revoked.at(-1)!]) {
        expect((await e2e.get('/api/v1/commodities?per_page=1', { key: k.key, replica })).status).toBe(401);
      }
      expect((await e2e.get('/api/v1/commodities?per_page=1', { key: keys.at(-1)!.key, replica })).status).toBe(200);
    }
    // The keys stream: one message for the account and one for each key ever created (its
    // creation, or its revocation, which replaced it), not one per event.
    const messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'key-bounds-e2e' });
    try {
      const info = await messaging.jsm.streams.info(KEYS_STREAM);
      expect(info.state.messages).toBe(1 + revoked.length + keys.length);
      console.info(
        `key bounds: ${attempts} creations (${CAP} capped at once), ${revoked.length} revocations; stream ${info.state.messages} messages; gateway tables ${CAP} keys`,
      );
    } finally {
      await messaging.close();
    }
  }, 240_000);
});
