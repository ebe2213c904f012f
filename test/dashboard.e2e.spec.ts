/// <reference lib="dom" />
// The developer dashboard in a real browser (Debian's Chromium, headless, driven by playwright-core)
// against the whole system: 3 gateway replicas, the admin API, the dashboard, and a real SMTP
// listener in this process. Sign-up → mail → verify → log in → key → API call → revoke → 401 from
// every gateway within 1 s; then the other pages, a password change, the explorer (data with no key
// pasted: the session's key, kept nowhere in the browser, counted in the account's usage), log-out
// (the session's key 401 on every gateway), password reset, session expiry (its key 401 too) and
// account deletion (the account closed at the admin API, every key 401).
// A screenshot of every page goes to test/artifacts/dashboard/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { linkIn, startSmtpListener, type SmtpListener } from '@cds/dashboard/testing';
import { connectMessaging } from '@cds/messaging';
import { REPO_ROOT } from '@cds/testkit';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { launchChromium } from './support/browser.ts';
import { logIn as logInAs, openMailLink, openPasswordReset } from './support/dashboard-flows.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startE2E, type E2E } from './support/harness.ts';
import { waitForProjections } from './support/projections.ts';

const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'dashboard');
const IDLE_SECONDS = 8;
const EMAIL = 'grace.hopper@example.test';
const PASSWORD = 'a long and lovely passphrase';
const NEW_PASSWORD = 'another lovely passphrase 2';

let smtp: SmtpListener;
let e2e: E2E;
let dash: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let backfill: Promise<{ code: number | null; stderr: string }>;
const browserErrors: string[] = [];

beforeAll(async () => {
  smtp = await startSmtpListener();
  e2e = await startE2E({
    gateways: 3,
    dashboard: { smtpUrl: smtp.url, env: { SESSION_IDLE_SECONDS: String(IDLE_SECONDS) } },
  });
  dash = e2e.system.dashboardUrl!;
  // The explorer test needs data. Load it and let every projection catch up before any test runs:
  // an ingest still running would share the machine with the timed revocation (1 s), and a
  // projection still applying would serve the explorer part of a series.
  backfill = e2e.ingest(['backfill', '--demo', '--years', '1']);
  const loaded = await backfill;
  expect(loaded.code, loaded.stderr).toBe(0);
  const messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'dashboard-e2e' });
  try {
    await waitForProjections(messaging, 120_000);
  } finally {
    await messaging.close();
  }
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.on('pageerror', (err) => browserErrors.push(err.message));
  page.on('console', (m) => {
    // Pages answered 4xx on purpose (a refused form, a 404) are logged by Chromium as failed loads.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) browserErrors.push(m.text());
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await backfill?.catch(() => undefined);
  await e2e?.stop();
  await smtp?.stop();
}, 60_000);

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

async function status(key: string, replica: number): Promise<number> {
  const res = await fetch(`${e2e.gatewayUrl(replica)}/api/v1/commodities`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Milliseconds until every gateway answers `expected` for the key (polling every 5 ms), or throws.
 * 'accepted' is anything but 401: the free plan's 10 requests a minute may already be spent (429).
 */
async function untilAll(key: string, expected: number | 'accepted', timeoutMs: number): Promise<number[]> {
  const start = performance.now();
  return Promise.all(
    [0, 1, 2].map(async (replica) => {
      for (;;) {
        const got = await status(key, replica);
        if (got === expected || (expected === 'accepted' && got !== 401)) return performance.now() - start;
        if (performance.now() - start > timeoutMs) throw new Error(`gateway ${replica} did not answer ${expected}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    }),
  );
}

const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();

const logIn = (email: string, password: string) => logInAs(page, dash, email, password);

/** The day's requests of the account, as the usage page shows them. */
async function usageToday(): Promise<number> {
  await nav('Usage');
  const chart = page.getByRole('img', { name: /Requests per day/ });
  return (JSON.parse((await chart.getAttribute('data-points')) ?? '[]') as [string, number][]).at(-1)![1];
}

/** The session key the explorer page is given, read from the dashboard's answer as the page gets it. */
interface SessionKey {
  key: string;
  key_id: string;
  expires_at: string;
}
function nextSessionKey(): Promise<SessionKey> {
  return page
    .waitForResponse((r) => r.url().endsWith('/dashboard/explorer/session-key') && r.ok())
    .then((r) => r.json() as Promise<SessionKey>);
}

/** Waits for the explorer's chart to hold points (its first chart, or the one Show asked for). */
const chartDrawn = () =>
  page.waitForFunction(() => JSON.parse(document.getElementById('cdsx-chart')?.dataset.points ?? '[]').length > 0);

async function createKey(label: string): Promise<{ key: string; keyId: string }> {
  await nav('API keys');
  await page.getByLabel('Label').fill(label);
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = await page.getByLabel('New API key').inputValue();
  const keyId = /Key id (key_[0-9a-f]+)/.exec(
    await page.getByRole('region', { name: /Your new key/ }).innerText(),
  )?.[1];
  expect(key).toMatch(/^cds_[0-9A-Za-z]{36}$/);
  expect(keyId).toBeDefined();
  return { key, keyId: keyId! };
}

describe('developer dashboard in a browser', () => {
  let firstKey = '';

  it('signs up, verifies by mail, logs in, creates a key, calls the API, and revokes it on every gateway within 1 s', async () => {
    await page.goto(`${dash}/`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await shot('01-login-empty');
    await page.getByRole('link', { name: 'Sign up' }).first().click();
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByLabel('Password').fill('too short');
    await page.getByRole('button', { name: 'Sign up' }).click();
    expect(await page.getByText('Use at least 12 characters.').isVisible()).toBe(true);
    expect(await page.getByLabel('E-mail address').inputValue()).toBe(EMAIL);
    await shot('02-signup-error');
    const since = smtp.mails.length;
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await shot('03-check-inbox');

    const mail = await smtp.waitFor(EMAIL, /Confirm your e-mail/, { since });
    await openMailLink(page, linkIn(mail, 'verify'));
    expect(new URL(page.url()).pathname).toBe('/dashboard/verify');
    await shot('04-verify');
    await page.getByRole('button', { name: 'Confirm my e-mail address' }).click();
    await page.getByRole('heading', { name: 'Your e-mail is confirmed' }).waitFor();
    await shot('05-verified');

    await page.getByRole('link', { name: 'Log in' }).last().click();
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill('wrong password here');
    await page.getByRole('button', { name: 'Log in' }).click();
    expect(await page.getByRole('alert').innerText()).toBe('The e-mail address or the password is wrong.');
    await shot('06-login-error');
    await logIn(EMAIL, PASSWORD);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await page.getByText('No keys yet.').isVisible()).toBe(true);
    await shot('07-keys-empty');

    const { key, keyId } = await createKey('<b>my laptop</b>');
    firstKey = key;
    await shot('08-key-created');
    // The label is shown as text, not markup.
    expect(await page.getByRole('cell', { name: '<b>my laptop</b>', exact: true }).isVisible()).toBe(true);
    await untilAll(key, 200, 5_000);

    await page.getByRole('link', { name: new RegExp(`Revoke .*\\(${keyId}\\)`) }).click();
    await page.getByRole('heading', { name: /Revoke “<b>my laptop<\/b>”\?/ }).waitFor();
    await shot('09-revoke-confirm');
    const clicked = performance.now();
    await page.getByRole('button', { name: `Revoke key ${keyId}` }).click();
    const after = await untilAll(key, 401, 1_000);
    const fromClick = performance.now() - clicked;
    console.info(
      `revocation: 401 on all 3 gateways ${Math.round(fromClick)} ms after the click (per gateway from polling start: ${after.map((t) => Math.round(t)).join(', ')} ms)`,
    );
    expect(fromClick).toBeLessThan(1_000);
    await page.getByText(`Key ${keyId} is revoked.`).waitFor();
    expect(
      await page
        .getByRole('row', { name: new RegExp(keyId) })
        .getByText('Revoked')
        .isVisible(),
    ).toBe(true);
    await shot('10-key-revoked');
  });

  it('shows the plan, usage with the calls just made, the rotation guide and the account page', async () => {
    await nav('Plan');
    await page.getByText('You are on the free plan.').waitFor();
    await shot('11-plan');
    await nav('Usage');
    const chart = page.getByRole('img', { name: /Requests per day/ });
    const points = JSON.parse((await chart.getAttribute('data-points')) ?? '[]') as [string, number][];
    expect(points).toHaveLength(30);
    expect(points.at(-1)![1]).toBeGreaterThanOrEqual(3);
    await shot('12-usage');
    await nav('API keys');
    await page.getByRole('link', { name: 'Rotate a key' }).click();
    await page.getByRole('heading', { name: 'Rotate a key' }).waitFor();
    await shot('13-rotate');
    await nav('Account');
    await page.getByRole('heading', { name: 'Delete my account' }).waitFor();
    await shot('14-account');
    expect(firstKey).not.toBe('');
    // Changing the password takes the current one; this session goes on and the owner gets a mail.
    const since = smtp.mails.length;
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('an interim passphrase 7');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password is changed. Every other session').waitFor();
    await shot('14b-password-changed');
    await smtp.waitFor(EMAIL, /Your password was changed/, { since });
  });

  it('shows data in the explorer with no key pasted: the session key is kept nowhere in the browser and counted in usage; a pasted key still works', async () => {
    // Professional, so the calls below fit the minute's window whatever the earlier tests spent.
    await nav('Account');
    const accountId = await page.locator('dd code').filter({ hasText: /^acc_/ }).innerText();
    const upgraded = await e2e.admin('PUT', `/accounts/${accountId}/plan`, { plan: 'professional' });
    expect(upgraded.status).toBe(200);
    const { key } = await createKey('explorer');
    const loaded = await backfill;
    expect(loaded.code, loaded.stderr).toBe(0);
    await eventually(
      'demo data served',
      async () => {
        const res = await fetch(`${e2e.gatewayUrl()}/api/v1/commodities/GOLD/series?type=price&limit=1`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return res.ok && ((await res.json()) as { data: unknown[] }).data.length > 0;
      },
      90_000,
    );
    const before = await usageToday();
    // Every call the page makes to the API: the key it sent, the answer's status and rate window.
    const calls: { auth: string; status: number; limit: string | undefined }[] = [];
    const watch = (res: Response) => {
      const req = res.request();
      if (req.method() !== 'GET' || !new URL(req.url()).pathname.startsWith('/api/v1/')) return;
      calls.push({
        auth: req.headers().authorization ?? '',
        status: res.status(),
        limit: res.headers()['x-ratelimit-limit'],
      });
    };
    page.on('response', watch);
    const given = nextSessionKey();
    await nav('Data explorer');
    await page.getByRole('heading', { name: 'Data explorer' }).waitFor();
    // Nothing pasted: the page draws a first chart with the session's key.
    await chartDrawn();
    const session = await given;
    expect(session.key).toMatch(/^cds_[0-9A-Za-z]{36}$/);
    expect(await page.getByLabel('API key').inputValue()).toBe('');
    expect(
      await page.evaluate(() => (window as unknown as { cdsExplorer: { keyKind: string } }).cdsExplorer.keyKind),
    ).toBe('session');
    const first = JSON.parse((await page.getByRole('img', { name: /Chart/ }).getAttribute('data-points')) ?? '[]');
    expect(first.length).toBeGreaterThan(5);
    expect(await page.locator('#cdsx-commodity').inputValue()).toBe('GOLD');
    await shot('15-explorer-session-key');
    // The list, the commodity's detail and its series: each with the session key, answered 200 under
    // the plan's window, as any key of the account is.
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls.map((c) => [c.auth, c.status, c.limit])).toEqual(
      calls.map(() => [`Bearer ${session.key}`, 200, '100']),
    );
    // Kept nowhere in the browser: no storage, no cookie a script reads, not in the page or its state.
    const held = await page.evaluate(() => ({
      local: JSON.stringify({ ...window.localStorage }),
      session: JSON.stringify({ ...window.sessionStorage }),
      cookie: document.cookie,
      html: document.documentElement.outerHTML,
      state: JSON.stringify((window as unknown as { cdsExplorer: unknown }).cdsExplorer),
    }));
    expect(held.local).toBe('{}');
    expect(held.session).toBe('{}');
    expect(held.cookie).toBe('');
    expect(held.html).not.toContain(session.key);
    expect(held.state).not.toContain(session.key);
    for (const c of await context.cookies()) {
      expect(c.value).not.toContain(session.key);
      expect(c.httpOnly).toBe(true);
    }
    // A pasted key still works, and is used instead.
    const sessionCalls = calls.length;
    await page.getByLabel('API key').fill(key);
    await page.getByLabel('Commodity').fill('GOLD');
    await page.getByLabel('Kind').selectOption('price');
    await page.getByLabel('Start date').fill(new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10));
    const shown = await page.evaluate(
      () => (window as unknown as { cdsExplorer: { shown: number } }).cdsExplorer.shown,
    );
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.waitForFunction(
      (n) => (window as unknown as { cdsExplorer: { shown: number } }).cdsExplorer.shown > n,
      shown,
    );
    const points = JSON.parse((await page.getByRole('img', { name: /Chart/ }).getAttribute('data-points')) ?? '[]') as {
      date: string;
    }[];
    expect(points.length).toBeGreaterThan(2);
    expect(calls.length).toBeGreaterThan(sessionCalls);
    expect(calls.slice(sessionCalls).every((c) => c.auth === `Bearer ${key}` && c.status === 200)).toBe(true);
    await shot('15b-explorer-pasted-key');
    page.off('response', watch);
    // Both keys' calls count in the account's day, the session key's like any other.
    expect(await usageToday()).toBe(before + calls.length);
    // The session key is the dashboard's: the admin API marks it, the keys page does not list it.
    const listed = await e2e.admin<{ keys: { key_id: string; status: string; session_expires_at?: string }[] }>(
      'GET',
      `/accounts/${accountId}/keys`,
    );
    expect(listed.body.keys.find((k) => k.key_id === session.key_id)).toMatchObject({
      status: 'active',
      session_expires_at: expect.any(String),
    });
    await nav('API keys');
    expect(await page.getByText(session.key_id).count()).toBe(0);
  });

  it("logs out: the session's key is refused by every gateway at once, and the old session no longer opens a page", async () => {
    const given = nextSessionKey();
    await nav('Data explorer');
    const session = await given;
    await untilAll(session.key, 'accepted', 5_000);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByText('You are logged out.').waitFor();
    const after = await untilAll(session.key, 401, 1_000);
    console.info(`session key after log-out: 401 on all 3 gateways within ${Math.round(Math.max(...after))} ms`);
    // Revoked by the log-out, long before its end (the idle time from its creation).
    expect(Date.now()).toBeLessThan(Date.parse(session.expires_at) - 2_000);
    await shot('16-logged-out');
    await page.goto(`${dash}/keys`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
  });

  it('resets the password by mail; the old one stops working', async () => {
    const since = smtp.mails.length;
    await openPasswordReset(page, dash, smtp, EMAIL);
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await shot('17-reset');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Your password is changed.').waitFor();
    await smtp.waitFor(EMAIL, /Your password was changed/, { since });
    await logIn(EMAIL, PASSWORD);
    expect(await page.getByRole('alert').innerText()).toBe('The e-mail address or the password is wrong.');
    await logIn(EMAIL, NEW_PASSWORD);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  it('ends an idle session, and its key with it on every gateway', async () => {
    const given = nextSessionKey();
    await nav('Data explorer');
    const session = await given;
    // It lives the idle time, no longer: the session's end.
    expect(Date.parse(session.expires_at) - Date.now()).toBeLessThanOrEqual(IDLE_SECONDS * 1000);
    await untilAll(session.key, 'accepted', 5_000);
    await page.waitForTimeout((IDLE_SECONDS + 1) * 1000);
    await page.goto(`${dash}/usage`);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    // No dashboard asked: the admin API revokes it at its end (a sweep every 5 s), like any revocation.
    await untilAll(session.key, 401, 10_000);
  });

  it('asks for a proof of work once a client has made 3 sign-ups in 10 minutes: the script does it, without it the page says so', async () => {
    // Sign-ups from this client (127.0.0.1; weak passwords: refused after being counted) until the
    // form carries a challenge: after 3 within the 10-minute window.
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const p = await visitor.newPage();
    p.on('pageerror', (err) => browserErrors.push(err.message));
    const challenged = () => p.locator('input[name="pow_nonce"]').count();
    await p.goto(`${dash}/signup`);
    for (let i = 0; i < 3 && (await challenged()) === 0; i++) {
      await p.getByLabel('E-mail address').fill(`burst${i}@example.test`);
      await p.getByLabel('Password').fill('too short');
      await p.getByRole('button', { name: 'Sign up' }).click();
      await p.getByText('Use at least 12 characters.').waitFor();
      await p.goto(`${dash}/signup`);
    }
    // The form carries a challenge, which the page's script solves while the form is filled.
    expect(await challenged()).toBe(1);
    expect(await p.getByText('This form needs a short check done by JavaScript').count()).toBe(0);
    await p.getByLabel('E-mail address').fill('third.user@example.test');
    await p.getByLabel('Password').fill(PASSWORD);
    const started = performance.now();
    await p.getByText(/Check done \(\d+\.\d s\)/).waitFor({ timeout: 60_000 });
    console.info(
      `sign-up proof of work in Chromium: ${Math.round(performance.now() - started)} ms after the form was filled`,
    );
    await p.screenshot({ path: join(ARTIFACTS, '03b-signup-check-done.png'), fullPage: true });
    expect(await p.locator('input[name="pow_nonce"]').inputValue()).toMatch(/^\d+$/);
    await p.getByRole('button', { name: 'Sign up' }).click();
    await p.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await smtp.waitFor('third.user@example.test', /Confirm your e-mail/);
    await visitor.close();

    // Without JavaScript the form says the check needs it, and sending it anyway changes nothing.
    const noScript = await browser.newContext({ viewport: { width: 1280, height: 860 }, javaScriptEnabled: false });
    const q = await noScript.newPage();
    await q.goto(`${dash}/signup`);
    await q.getByText('This form needs a short check done by JavaScript in your browser').waitFor();
    await q.screenshot({ path: join(ARTIFACTS, '03c-signup-without-javascript.png'), fullPage: true });
    await q.getByLabel('E-mail address').fill('fourth.user@example.test');
    await q.getByLabel('Password').fill(PASSWORD);
    await q.getByRole('button', { name: 'Sign up' }).click();
    await q.getByText('Unusually many sign-ups are being made right now').waitFor();
    await noScript.close();
  });

  it('deletes the account: it is closed, every key gets 401 from every gateway, and the log-in is gone', async () => {
    await logIn(EMAIL, NEW_PASSWORD);
    const { key } = await createKey('to be deleted');
    const { key: second } = await createKey('to be deleted too');
    await untilAll(key, 'accepted', 5_000);
    await untilAll(second, 'accepted', 5_000);
    await nav('Account');
    const accountId = await page.locator('dd code').filter({ hasText: /^acc_/ }).innerText();
    await page.getByLabel('Your password, to confirm').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByText('Your account is deleted.').waitFor();
    await shot('18-deleted');
    await untilAll(key, 401, 1_000);
    await untilAll(second, 401, 1_000);
    // Closed at the admin API (the key authority): every key revoked, and no new one for it.
    const account = await e2e.admin<{ closed_at?: string; keys: { status: string }[] }>(
      'GET',
      `/accounts/${accountId}`,
    );
    expect(account.body.closed_at).toEqual(expect.any(String));
    expect(account.body.keys.length).toBeGreaterThanOrEqual(2);
    expect(account.body.keys.filter((k) => k.status !== 'revoked')).toEqual([]);
    const late = await e2e.admin<{ error: { code: string } }>('POST', `/accounts/${accountId}/keys`, {});
    expect([late.status, late.body.error.code]).toEqual([403, 'forbidden']);
    await logIn(EMAIL, NEW_PASSWORD);
    expect(await page.getByRole('alert').innerText()).toBe('The e-mail address or the password is wrong.');
    await page.goto(`${dash}/nothing-here`);
    await shot('19-not-found');
    expect(browserErrors).toEqual([]);
  });
});
