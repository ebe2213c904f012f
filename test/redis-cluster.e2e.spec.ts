/// <reference lib="dom" />
// The system on a Redis Cluster (REDIS_CLUSTER_NODES; issue #27's way past one Redis primary): three
// primaries with a replica each, two gateways and the dashboard. A developer signs up, confirms, logs in and creates a
// key in a real browser (throttles and sessions on the cluster); the rate windows stay exact across
// both gateways for accounts whose keys sit on different nodes; the usage page reads what the
// gateways counted; a password reset ends the developer's other session (its keys in other slots
// than the user's session set). Then a primary is killed under load: its replica takes its slots,
// never a 5xx meanwhile, exact again once it serves. Screenshots go to
// test/artifacts/redis-cluster/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PLANS } from '@cds/contracts';
import { startSmtpListener, type SmtpListener } from '@cds/dashboard/testing';
import { REPO_ROOT, type RedisClusterHandle } from '@cds/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.ts';
import { logIn, openPasswordReset, signUp } from './support/dashboard-flows.ts';
import { eventually, keyStatuses, startE2E, type E2E } from './support/harness.ts';
import { fallbackCount, metricSum } from './support/load.ts';

const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'redis-cluster');
const EMAIL = 'grace.hopper@example.test';
const PASSWORD = 'compiler for cobol';
const NEW_PASSWORD = 'nanoseconds of wire';
const LIMIT = PLANS.free.perMinute;
const GATEWAYS = 2;

let smtp: SmtpListener;
let e2e: E2E;
let cluster: RedisClusterHandle;
let dash: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  smtp = await startSmtpListener();
  e2e = await startE2E({ gateways: GATEWAYS, redisCluster: true, dashboard: { smtpUrl: smtp.url } });
  cluster = e2e.infra.redisCluster!;
  dash = e2e.system.dashboardUrl!;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await e2e?.stop();
  await smtp?.stop();
}, 60_000);

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

/** The cluster node holding an account's rate windows (`cds:rl:{acc}`, the gateway's default prefix). */
async function nodeOf(accountId: string): Promise<number> {
  const slot = Number(await cluster.command(0, ['CLUSTER', 'KEYSLOT', `cds:rl:{${accountId}}`]));
  return cluster.nodeOfSlot(slot);
}

/** Waits until the current UTC minute has at least `ms` left, so one window holds the whole check. */
async function minuteLeft(ms: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < ms) await new Promise((r) => setTimeout(r, left + 200));
}

/** `n` requests with `key`, alternating over the gateways, one after another; their statuses. */
async function calls(key: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) {
    out.push((await e2e.get('/api/v1/commodities?per_page=1', { key, replica: i % GATEWAYS })).status);
  }
  return out;
}

/** Logs `p` in as the developer, onto the keys page. */
async function loggedIn(p: Page, password: string): Promise<void> {
  await logIn(p, dash, EMAIL, password);
  await p.getByRole('heading', { name: 'API keys' }).waitFor();
}

describe('the system on a Redis Cluster', () => {
  let dashboardKey = '';

  it('signs a developer up, logs in and creates a key: throttles and sessions on the cluster', async () => {
    await signUp(page, dash, smtp, EMAIL, PASSWORD);
    await loggedIn(page, PASSWORD);
    await page.getByLabel('Label').fill('on the cluster');
    await page.getByRole('button', { name: 'Create key' }).click();
    dashboardKey = await page.getByLabel('New API key').inputValue();
    expect(dashboardKey).toMatch(/^cds_[0-9A-Za-z]{36}$/);
    await shot('01-key-created');
  });

  it('keeps the rate windows exact across both gateways, for accounts on every node; the usage page reads them', async () => {
    // API accounts until three nodes are covered, plus the dashboard's.
    const byNode = new Map<number, string>();
    for (let i = 0; i < 30 && byNode.size < 3; i += 1) {
      const acc = await e2e.account('free');
      const node = await nodeOf(acc.accountId);
      if (!byNode.has(node)) byNode.set(node, acc.key);
    }
    expect(byNode.size).toBe(3);
    await minuteLeft(20_000);
    await eventually(
      'the dashboard key known on every gateway',
      async () =>
        (
          await keyStatuses(
            e2e.system.gateways.map((g) => g.url),
            dashboardKey,
          )
        ).every((st) => st === 304),
      15_000,
    );
    const figures: string[] = [];
    for (const [node, key] of [...byNode, ["the dashboard's account", dashboardKey] as const]) {
      const statuses = await calls(key, LIMIT + 3);
      figures.push(
        `${typeof node === 'number' ? `node ${node}` : node}: ${statuses.filter((s) => s === 200).length} × 200`,
      );
      expect(
        statuses.filter((s) => s === 200),
        `node ${node}`,
      ).toHaveLength(LIMIT);
      expect(statuses.slice(LIMIT), `node ${node}`).toEqual([429, 429, 429]);
    }
    // Each gateway asked Redis for an account's first refusal only: the later ones it answered itself.
    let kept = 0;
    for (const g of e2e.system.gateways) {
      kept += await metricSum(`${g.url}/metrics`, 'cds_gateway_rate_limit_decisions_total', { source: 'kept' });
    }
    console.log(
      `redis cluster: windows exact across ${GATEWAYS} gateways (${figures.join('; ')}); ${kept} refusals answered from the gateways' kept refusals`,
    );
    expect(kept).toBeGreaterThanOrEqual(4);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
    const chart = page.getByRole('img', { name: /Requests per day/ });
    const points = JSON.parse((await chart.getAttribute('data-points')) ?? '[]') as [string, number][];
    expect(points.at(-1)![1]).toBe(LIMIT);
    await shot('02-usage');
  });

  it('a password reset ends the developer’s other session', async () => {
    const other = await browser.newContext();
    try {
      const second = await other.newPage();
      await loggedIn(second, PASSWORD);
      // The first browser forgets its session and asks for a reset link.
      await context.clearCookies();
      await openPasswordReset(page, dash, smtp, EMAIL);
      await page.getByLabel('New password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Set new password' }).click();
      await page.getByText('Your password is changed.').waitFor();
      // The other session (its key in another slot than the user's session set) is gone.
      await second.goto(`${dash}/keys`);
      await second.getByRole('heading', { name: 'Log in' }).waitFor();
      await loggedIn(page, NEW_PASSWORD);
      await shot('03-after-reset');
    } finally {
      await other.close();
    }
  });

  it('a primary killed under load: its replica takes over, never a 5xx, exact again once it serves', async () => {
    const lost = 2;
    const accountOf = async (node: number) => {
      for (let i = 0; i < 30; i += 1) {
        const acc = await e2e.account('free');
        if ((await nodeOf(acc.accountId)) === node) return acc.key;
      }
      throw new Error(`no account on node ${node} in 30 tries`);
    };
    const lostKey = await accountOf(lost);
    // No window to hold here: during the failover any 200 or 429 is right (the exact check below
    // waits for its own).
    const urls = e2e.system.gateways.map((g) => g.url);
    const fallbacksBefore = await fallbackCount(urls);
    const killedAt = Date.now();
    await cluster.killNode(lost);
    // Requests flow while the cluster notices (2 s node timeout) and promotes the replica.
    const during: number[] = [];
    const failover = cluster.waitForFailover(lost, 30_000);
    let promoted: number | undefined;
    void failover.then((n) => (promoted = n)).catch(() => undefined);
    while (promoted === undefined && Date.now() - killedAt < 30_000) {
      during.push(...(await calls(lostKey, GATEWAYS)));
      await new Promise((r) => setTimeout(r, 100));
    }
    const replica = await failover;
    const failoverMs = Date.now() - killedAt;
    let backMs = 0;
    await eventually(
      'no more fallback decisions',
      async () => {
        const before = await fallbackCount(urls);
        await calls(lostKey, GATEWAYS);
        backMs = Date.now() - killedAt;
        return (await fallbackCount(urls)) === before;
      },
      30_000,
    );
    const fallbacks = (await fallbackCount(urls)) - fallbacksBefore;
    // The promoted replica serves the slots: a fresh account there is exact across the gateways.
    const fresh = await accountOf(replica);
    await minuteLeft(10_000);
    const exact = await calls(fresh, LIMIT + 3);
    await cluster.startNode(lost);
    console.log(
      `redis cluster: primary ${lost} killed: its replica (node ${replica}) served its slots ${failoverMs} ms later, ` +
        `the gateways back on Redis ${backMs} ms after the kill (${fallbacks} fallback decisions); ` +
        `${during.length} requests meanwhile (${during.filter((s) => s === 200).length} × 200); ` +
        `then ${exact.filter((s) => s === 200).length} of ${exact.length} for a fresh account there; ` +
        `the old primary rejoined as a replica`,
    );
    expect(during.every((s) => s === 200 || s === 429)).toBe(true);
    expect(replica).not.toBe(lost);
    expect(exact.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(exact.slice(LIMIT)).toEqual([429, 429, 429]);
  }, 150_000);
});
