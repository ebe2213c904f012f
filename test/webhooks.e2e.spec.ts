// Webhooks through the real system (issue #14): ingest CLI -> NATS -> projector -> CDS_CHANGES ->
// notifier -> a real HTTPS receiver (node:https, a certificate made for the test and trusted by
// the notifier through NODE_EXTRA_CA_CERTS; 127.0.0.1 exempted by WEBHOOK_ALLOW_PRIVATE). Endpoints
// are registered and deliveries read through the WebhookAdmin port, as the dashboard does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { CHANGES_STREAM, ChangeRecord, Notification } from '@cds/contracts';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { connectStore, type Store } from '@cds/store';
import { createWebhookStores, verifySignature, type Delivery, type WebhookStores } from '@cds/webhooks';
import {
  createSelfSignedCertificate,
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
  type SelfSignedCertificate,
} from '@cds/webhooks/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, FIXTURES, startE2E, type E2E } from './support/harness.ts';

const RETRY_BASE_MS = 400;
const TIMEOUT_MS = 3_000;

let e2e: E2E;
let cert: SelfSignedCertificate;
let receiver: HttpsReceiver;
let mongo: Store;
let messaging: Messaging;
let webhooks: WebhookStores;
let accountId: string;

/** Requests to /hold wait here until released (or until the notifier dies). */
const held: ServerResponse[] = [];
let holding = true;
/** Answers given to /flaky so far, per event id. */
const flakyAnswers = new Map<string, number>();

async function register(
  path: string,
  commodities: string[] | null,
  types: ('price' | 'stocks')[] | null,
  account = accountId,
) {
  const created = await webhooks.createEndpoint(account, 'owner@example.com', {
    url: `${receiver.origin}${path}`,
    commodities,
    types,
    enabled: true,
  });
  if (created === 'limit_reached') throw new Error('endpoint limit');
  return created;
}

/** The change records of CDS_CHANGES for a commodity and topic (what the projector recorded). */
async function changesFor(commodity: string, topic: string): Promise<ChangeRecord[]> {
  const info = await messaging.jsm.streams.info(CHANGES_STREAM).catch(() => undefined);
  if (info === undefined) return [];
  const records: ChangeRecord[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq += 1) {
    const msg = await messaging.jsm.streams.getMessage(CHANGES_STREAM, { seq }).catch(() => undefined);
    if (msg === undefined || msg === null) continue;
    const record = ChangeRecord.parse(msg.json());
    if (record.commodity === commodity && record.topic === topic) records.push(record);
  }
  return records;
}

const pathOf = (r: ReceivedRequest) => r.url.split('?')[0];
const header = (r: ReceivedRequest, name: string) => {
  const v = r.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

beforeAll(async () => {
  cert = await createSelfSignedCertificate();
  receiver = await startHttpsReceiver(cert, (req, res) => {
    const path = pathOf(req);
    if (path === '/hold' && holding) return void held.push(res);
    if (path === '/flaky') {
      const id = header(req, 'cds-event-id') ?? '';
      const n = (flakyAnswers.get(id) ?? 0) + 1;
      flakyAnswers.set(id, n);
      return void res.writeHead(n <= 3 ? 500 : 200).end(n <= 3 ? 'try later' : 'ok');
    }
    res.writeHead(204).end();
  });
  e2e = await startE2E({
    notifier: {
      allowPrivate: [`127.0.0.1:${receiver.port}`],
      extraCaCerts: cert.certFile,
      env: {
        // Info: the retry test reads each failed attempt's next_attempt_at from the log.
        LOG_LEVEL: 'info',
        WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
        WEBHOOK_RETRY_MAX_MS: '5000',
        WEBHOOK_POLL_MS: '100',
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        MONGODB_OPERATION_TIMEOUT_MS: '2000',
      },
    },
  });
  mongo = await connectStore({ url: e2e.infra.mongoUrl, appName: 'webhooks-e2e' });
  messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'webhooks-e2e' });
  // The dashboard's side of the store (same database as the notifier's default).
  webhooks = await createWebhookStores(mongo.db('cds_webhooks'), {
    retry: { baseMs: RETRY_BASE_MS, maxMs: 5_000 },
    retryForMs: 86_400_000,
    disableAfterMs: 3 * 86_400_000,
  });
  accountId = (await e2e.account('enterprise')).accountId;
}, 180_000);

afterAll(async () => {
  for (const res of held) res.destroy();
  await messaging?.close();
  await mongo?.close();
  await e2e?.stop();
  await receiver?.stop();
  await cert?.remove();
});

describe('webhooks end to end', () => {
  it('delivers a correctly signed notification of the ingested change to the matching endpoint only', async () => {
    const wti = await register('/wti', ['CRUDE_OIL_WTI'], ['price']);
    const gold = await register('/gold', ['GOLD'], null);
    const run = await e2e.ingest([
      'backfill',
      '--source',
      'eia',
      '--file',
      join(FIXTURES, 'eia_rwtc_wti_spot_daily_2022_excerpt.csv'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [first] = await receiver.waitFor(1, (r) => pathOf(r) === '/wti', 60_000);
    const body = first!.body;
    const signature = header(first!, 'cds-signature');
    expect(verifySignature(wti.secret, signature, body, Date.now() / 1000)).toMatchObject({ ok: true });
    expect(verifySignature(gold.secret, signature, body, Date.now() / 1000)).toMatchObject({ ok: false });
    const notification = Notification.parse(JSON.parse(body));
    expect(notification).toMatchObject({
      type: 'series.updated',
      data: { commodity: 'CRUDE_OIL_WTI', topic: 'price', series_type: 'price' },
    });
    expect(notification.data.url).toMatch(/^http:\/\/localhost:\d+\/api\/v1\/commodities\/CRUDE_OIL_WTI\/series\?/);
    expect(first!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'CommodityDataService-Webhooks/1',
      'cds-event-id': notification.id,
      'cds-event-type': 'series.updated',
      'cds-delivery-attempt': '1',
    });
    // It is one of the changes the projector recorded, and every one of them arrives.
    const recorded = await changesFor('CRUDE_OIL_WTI', 'price');
    expect(recorded.map((r) => r.id)).toContain(notification.id);
    await eventually('every WTI price change delivered', async () => {
      const ids = new Set(receiver.requests.filter((r) => pathOf(r) === '/wti').map((r) => header(r, 'cds-event-id')));
      return (await changesFor('CRUDE_OIL_WTI', 'price')).every((r) => ids.has(r.id));
    });
    const deliveries = await webhooks.listDeliveries(accountId, wti.endpoint.id);
    expect(deliveries.length).toBeGreaterThan(0);
    await eventually('deliveries recorded as delivered', async () =>
      (await webhooks.listDeliveries(accountId, wti.endpoint.id)).every((d) => d.status === 'delivered'),
    );
    expect(receiver.requests.filter((r) => pathOf(r) === '/gold')).toEqual([]);
    expect(await webhooks.listDeliveries(accountId, gold.endpoint.id)).toEqual([]);
  }, 120_000);

  it('still delivers every event at least once after the notifier is killed in the middle of a delivery', async () => {
    const stocks = await register('/hold', ['CRUDE_OIL_WTI'], ['stocks']);
    const run = await e2e.ingest([
      'backfill',
      '--source',
      'eia',
      '--file',
      join(FIXTURES, 'eia_wcestus1_crude_stocks_weekly_2024_excerpt.csv'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    // The receiver holds the first request: the delivery is in flight when the notifier dies.
    await receiver.waitFor(1, (r) => pathOf(r) === '/hold', 60_000);
    expect(held.length).toBeGreaterThan(0);
    e2e.system.notifier!.signal('SIGKILL');
    await eventually('notifier gone', () => Promise.resolve(e2e.system.notifier!.exited()), 10_000);
    const inFlight = (await webhooks.listDeliveries(accountId, stocks.endpoint.id)).filter(
      (d) => d.status === 'delivering',
    );
    expect(inFlight.length).toBeGreaterThan(0);
    holding = false;
    for (const res of held.splice(0)) res.destroy();
    await e2e.system.restartNotifier!();
    // Its lease runs out and the restarted notifier sends it again (with every other stocks change).
    const expected = (await changesFor('CRUDE_OIL_WTI', 'stocks')).map((r) => r.id);
    expect(expected.length).toBeGreaterThan(0);
    let deliveries: Delivery[] = [];
    await eventually(
      'every stocks change delivered after the restart',
      async () => {
        deliveries = await webhooks.listDeliveries(accountId, stocks.endpoint.id, 200);
        const delivered = new Set(deliveries.filter((d) => d.status === 'delivered').map((d) => d.event_id));
        return expected.every((id) => delivered.has(id));
      },
      90_000,
    );
    for (const id of expected) expect(receiver.requests.some((r) => header(r, 'cds-event-id') === id)).toBe(true);
    // The interrupted ones were sent again: their event ids reached the receiver twice (killed, then answered).
    for (const d of inFlight) {
      expect(receiver.requests.filter((r) => header(r, 'cds-event-id') === d.event_id).length).toBeGreaterThanOrEqual(
        2,
      );
    }
  }, 150_000);

  it('retries a receiver answering 500 three times with growing waits, then delivers', async () => {
    const flaky = await register('/flaky', ['CORN'], null);
    const test = await webhooks.sendTestEvent(accountId, flaky.endpoint.id);
    expect(test).not.toBeNull();
    let delivery: Delivery | undefined;
    await eventually(
      'flaky delivery delivered',
      async () => {
        [delivery] = await webhooks.listDeliveries(accountId, flaky.endpoint.id);
        return delivery?.status === 'delivered';
      },
      30_000,
    );
    expect(delivery!.attempts).toBe(4);
    expect(delivery!.history.map((a) => [a.outcome, a.status_code])).toEqual([
      ['delivered', 200],
      ['http_error', 500],
      ['http_error', 500],
      ['http_error', 500],
    ]);
    const requests = receiver.requests.filter((r) => pathOf(r) === '/flaky');
    expect(requests.map((r) => header(r, 'cds-delivery-attempt'))).toEqual(['1', '2', '3', '4']);
    expect(new Set(requests.map((r) => header(r, 'cds-event-id')))).toEqual(new Set([test!.event_id]));
    // The k-th wait (k from 0) is drawn from [base * 2^k, 1.25 * base * 2^k] (jitter only adds a
    // quarter at most); the bands do not overlap, so the waits grow. Both ends are checked without
    // comparing measured durations with each other: polls and database calls only lengthen a gap
    // between attempts (an attempt starts after its due time, due at least the wait after the one
    // before started), and only shorten the wait read from the notifier's log (its next_attempt_at
    // less the time of the line, logged after the wait was chosen).
    const times = [...delivery!.history].reverse().map((a) => a.at.getTime());
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps).toHaveLength(3);
    expect(gaps[0]).toBeGreaterThanOrEqual(RETRY_BASE_MS);
    expect(gaps[1]).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS);
    expect(gaps[2]).toBeGreaterThanOrEqual(4 * RETRY_BASE_MS);
    console.info('webhook retry gaps (ms)', JSON.stringify(gaps));
    let logged: { attempt: number; waitAtMostMs: number }[] = [];
    await eventually('the three failed attempts in the notifier log', () => {
      logged = readFileSync(e2e.system.notifier!.log, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"delivery attempt"') && line.includes(delivery!.id))
        .map((line) => JSON.parse(line) as { attempt: number; time: string; next_attempt_at: string | null })
        .filter((l) => l.next_attempt_at !== null)
        .map((l) => ({ attempt: l.attempt, waitAtMostMs: Date.parse(l.next_attempt_at!) - Date.parse(l.time) }));
      return Promise.resolve(logged.length >= 3);
    });
    expect(logged.map((l) => l.attempt)).toEqual([1, 2, 3]);
    for (const { attempt, waitAtMostMs } of logged) {
      expect(waitAtMostMs).toBeLessThanOrEqual(1.25 * RETRY_BASE_MS * 2 ** (attempt - 1));
    }
    const metrics = await (await fetch(`${e2e.system.notifier!.url}/metrics`)).text();
    expect(metrics).toMatch(/cds_notifier_attempts_total\{[^}]*outcome="http_error"[^}]*\} [3-9]/);
    expect(metrics).toMatch(/cds_notifier_deliveries_total\{[^}]*outcome="delivered"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/cds_notifier_queue_age_seconds/);
  }, 60_000);
  it('tells an endpoint only of the COT formats its account plan reads (the plans come from the key stream)', async () => {
    const free = await e2e.account('free');
    const paying = await e2e.account('professional');
    const freeHook = await register('/plan-free', null, null, free.accountId);
    const paidHook = await register('/plan-paid', null, null, paying.accountId);
    const run = await e2e.ingest([
      'backfill',
      '--source',
      'cftc-legacy',
      '--file',
      join(FIXTURES, 'cftc_legacy_fut_annual_2025_excerpt.txt'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    const cotIds = async () => {
      const info = await messaging.jsm.streams.info(CHANGES_STREAM);
      const ids: string[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
        const msg = await messaging.jsm.streams.getMessage(CHANGES_STREAM, { seq }).catch(() => undefined);
        if (msg === undefined || msg === null) continue;
        const record = ChangeRecord.parse(msg.json());
        if (record.topic === 'cot_legacy') ids.push(record.id);
      }
      return ids;
    };
    await eventually(
      'every legacy COT change delivered to the professional account',
      async () => {
        const expected = await cotIds();
        const got = new Set(
          (await webhooks.listDeliveries(paying.accountId, paidHook.endpoint.id, 200))
            .filter((d) => d.status === 'delivered')
            .map((d) => d.event_id),
        );
        return expected.length > 0 && expected.every((id) => got.has(id));
      },
      90_000,
    );
    const freeDeliveries = await webhooks.listDeliveries(free.accountId, freeHook.endpoint.id, 200);
    expect(freeDeliveries.filter((d) => d.notification.data.topic === 'cot_legacy')).toEqual([]);
    expect(receiver.requests.filter((r) => pathOf(r) === '/plan-free' && r.body.includes('cot_legacy'))).toEqual([]);
  }, 120_000);
});
