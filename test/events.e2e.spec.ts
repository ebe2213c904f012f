// GET /api/v1/events end to end (issue #14): real fixture files through the ingest CLI -> NATS
// JetStream -> projector (which records each change on CDS_CHANGES) -> the gateway's one follower
// -> server-sent events to real HTTP clients. Refusals are checked against the error contract;
// revocation and plan changes go through the admin API and the key stream as in production.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHANGES_STREAM, ErrorBody, Notification, changesSubject, type ChangeRecord } from '@cds/contracts';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, eventually, startE2E, type E2E } from './support/harness.ts';
import { waitForProjections } from './support/projections.ts';
import { openSse, type SseClient, type SseEvent } from './support/sse.ts';

/** Small, so a client that never reads passes it with a few MB of events (the default is 256 KiB). */
const MAX_UNSENT = 64 * 1024;

let e2e: E2E;
let messaging: Messaging;
const open: SseClient[] = [];
const keys: Record<'free' | 'professional' | 'business' | 'enterprise', string> = {
  free: '',
  professional: '',
  business: '',
  enterprise: '',
};

const eventsUrl = (query = '', replica = 0) => `${e2e.gatewayUrl(replica)}/api/v1/events${query}`;
async function stream(query: string, key: string, lastEventId?: string): Promise<SseClient> {
  const c = await openSse(eventsUrl(query), { key, ...(lastEventId === undefined ? {} : { lastEventId }) });
  open.push(c);
  return c;
}
const notification = (e: SseEvent) => Notification.parse(JSON.parse(e.data));
async function ingest(source: string, file: string): Promise<void> {
  const run = await e2e.ingest(['backfill', '--source', source, '--file', join(FIXTURES, file)]);
  expect(run.code, `${file}: ${run.stderr}`).toBe(0);
}
/** The error body of a refused stream (JSON, with X-Request-Id). */
async function refusal(c: SseClient) {
  await c.ended;
  expect(c.headers['content-type']).toMatch(/^application\/json/);
  const body = ErrorBody.parse(JSON.parse(c.body));
  expect(body.error.request_id).toBe(c.headers['x-request-id']);
  return body.error;
}
/** The final `event: error` of a stream the server ended. */
async function finalError(c: SseClient, timeoutMs = 5_000) {
  await c.waitFor('final error event', (events) => events.some((e) => e.event === 'error'), timeoutMs);
  await c.ended;
  const events = c.events;
  expect(events.at(-1)!.event).toBe('error');
  return ErrorBody.parse(JSON.parse(events.at(-1)!.data)).error;
}
/** Change records as the projector writes them on CDS_CHANGES (a long URL: about 0.7 KB an event). */
function syntheticChanges(n: number): ChangeRecord[] {
  const base = `/api/v1/commodities/GOLD/series?type=price&start_date=2020-01-01&end_date=2020-12-31&x=${'a'.repeat(300)}`;
  return Array.from({ length: n }, (_, i) => ({
    id: `evt_${randomBytes(16).toString('hex')}`,
    type: 'series.updated',
    commodity: 'GOLD',
    topic: 'price',
    series_type: 'price',
    first_date: '2020-01-01',
    newest_date: '2020-12-31',
    landed_at: new Date().toISOString(),
    path: `${base}&n=${i}`,
  }));
}
async function publishChanges(records: readonly ChangeRecord[]): Promise<void> {
  await Promise.all(
    records.map((r) =>
      messaging.publish(changesSubject(r.topic, r.commodity), r, { msgID: r.id, expectStream: CHANGES_STREAM }),
    ),
  );
}
/**
 * Waits until the projector has recorded the change of every event ingested so far (it stores a
 * batch's change records before it acknowledges the batch, so caught-up projections mean they are
 * all on CDS_CHANGES), then until each of `clients` has received the last of them (an SSE id is
 * the CDS_CHANGES sequence; each client's filter must match that change). Returns its sequence.
 */
async function allChangesReceived(clients: readonly SseClient[], timeoutMs = 60_000): Promise<number> {
  await waitForProjections(messaging, timeoutMs);
  const last = (await messaging.jsm.streams.info(CHANGES_STREAM)).state.last_seq;
  expect(last).toBeGreaterThan(0);
  for (const c of clients) {
    await c.waitFor(`change ${last}`, (events) => events.some((e) => e.id === String(last)), timeoutMs);
  }
  return last;
}
async function metric(name: string, label = ''): Promise<number> {
  const text = await (await fetch(`${e2e.gatewayUrl()}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) {
      if (label === '' || line.includes(label)) sum += Number(line.split(' ').at(-1));
    }
  }
  return sum;
}

beforeAll(async () => {
  e2e = await startE2E({
    gateways: 2,
    serviceEnv: {
      gateway: { SSE_MAX_UNSENT_BYTES: String(MAX_UNSENT), SSE_SLOW_GRACE_MS: '1000', SSE_END_GRACE_MS: '20000' },
    },
  });
  messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'events-e2e' });
  for (const plan of ['free', 'professional', 'business', 'enterprise'] as const)
    keys[plan] = (await e2e.account(plan)).key;
  // A first file: the catalog is known (the commodities filter is checked against it) and the
  // changes stream holds something before the streams open.
  await ingest('eia', 'eia_rwtc_wti_spot_daily_2022_excerpt.csv');
  await eventually('WTI prices projected', async () => {
    const r = await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01', {
      key: keys.enterprise,
      validate: false,
    });
    return r.status === 200 && r.json.data.length > 0;
  });
  // Its change records are on CDS_CHANGES, and the first gateway has followed them: a stream
  // opened there from now on starts after them (the first test's streams see only what follows).
  const probe = await openSse(eventsUrl(), { key: keys.enterprise, lastEventId: '0' });
  open.push(probe);
  await allChangesReceived([probe]);
  probe.close();
}, 300_000);

afterAll(async () => {
  for (const c of open) c.close();
  await messaging?.close();
  await e2e?.stop();
}, 60_000);

describe('GET /api/v1/events', () => {
  let witness: SseClient;
  let stocksLastId = '';

  it('streams an ingested change to the clients whose filter matches, within 1 s of the projector landing it', async () => {
    witness = await stream('', keys.enterprise);
    expect(witness.status).toBe(200);
    expect(witness.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(witness.headers['cache-control']).toBe('no-store');
    expect(witness.headers['x-accel-buffering']).toBe('no');
    expect(Number(witness.headers['x-ratelimit-remaining'])).toBeGreaterThan(0);
    expect(witness.headers['x-request-id']).toMatch(/./);
    const wti = await stream('?commodities=CRUDE_OIL_WTI&types=stocks,price', keys.enterprise);
    const gold = await stream('?commodities=GOLD', keys.enterprise);
    await witness.waitFor('retry line', () => witness.retry === 3000);

    await ingest('eia', 'eia_wcestus1_crude_stocks_weekly_2024_excerpt.csv');
    await witness.waitFor('stocks change', () => witness.changes().length > 0, 60_000);
    await wti.waitFor('stocks change (filtered)', () => wti.changes().length > 0, 5_000);
    const seen = witness.changes().map(notification);
    for (const n of seen) {
      expect(n).toMatchObject({ type: 'series.updated', data: { commodity: 'CRUDE_OIL_WTI', topic: 'stocks' } });
      expect(n.data.url).toMatch(/\/api\/v1\/commodities\/CRUDE_OIL_WTI\/series\?/);
    }
    for (const e of [...witness.changes(), ...wti.changes()]) {
      const landed = Date.parse(notification(e).data.landed_at);
      expect(e.at - landed, `event ${e.id} arrived ${e.at - landed} ms after it landed`).toBeLessThan(1_000);
    }
    // The URL fetches the new points.
    const url = new URL(seen[0]!.data.url);
    const fetched = await e2e.get(`${url.pathname}${url.search}`, { key: keys.enterprise });
    expect(fetched.status).toBe(200);
    expect(fetched.json.data.length).toBeGreaterThan(0);
    // Every change of the file recorded and received by both (all of them WTI stocks).
    await allChangesReceived([witness, wti]);
    expect(wti.changes().map((e) => e.id)).toEqual(witness.changes().map((e) => e.id));
    expect(gold.changes()).toEqual([]);
    stocksLastId = witness.changes().at(-1)!.id!;
    wti.close();
    gold.close();
  });

  it('resumes after Last-Event-ID with exactly the events missed while away', async () => {
    const before = witness.changes().length;
    const away = await stream('', keys.enterprise);
    await away.waitFor('retry line', () => away.retry === 3000);
    away.close();
    await ingest('cftc-legacy', 'cftc_legacy_fut_annual_2025_excerpt.txt');
    await witness.waitFor('COT changes', () => witness.changes().some((e) => e.event === 'cot.updated'), 60_000);
    // The whole file landed (several commodities) and reached the witness before reconnecting.
    await allChangesReceived([witness]);
    const missed = witness.changes().slice(before);
    expect(missed.length).toBeGreaterThan(1);
    const back = await stream('', keys.enterprise, stocksLastId);
    await back.waitFor('the missed events', () => back.changes().length >= missed.length, 5_000);
    await sleep(300);
    expect(back.changes().map((e) => e.id)).toEqual(missed.map((e) => e.id));
    expect(back.changes().map((e) => e.data)).toEqual(missed.map((e) => e.data));
    // The query-parameter form for clients that cannot set the header, filtered this time.
    const gold = await stream(`?last_event_id=${stocksLastId}&commodities=GOLD`, keys.enterprise);
    const goldMissed = missed.filter((e) => notification(e).data.commodity === 'GOLD');
    expect(goldMissed.length).toBeGreaterThan(0);
    await gold.waitFor('GOLD events', () => gold.changes().length >= goldMissed.length, 5_000);
    expect(gold.changes().map((e) => e.id)).toEqual(goldMissed.map((e) => e.id));
    back.close();
    gold.close();
    // An id past the end of the stream (a stream recreated since): resync first.
    const ahead = await stream('', keys.enterprise, '999999999');
    await ahead.waitFor('resync', (events) => events.length > 0);
    expect(ahead.events[0]!.event).toBe('resync');
    expect(ahead.events[0]!.id).toBe(witness.changes().at(-1)!.id);
    ahead.close();
  });

  it('refuses bad filters and ids with a 400 naming the parameter', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['?commodities=UNOBTAINIUM', {}, 'commodities'],
      ['?commodities=GOLD,UNOBTAINIUM', {}, 'commodities'],
      ['?commodities=gold', {}, 'commodities'],
      ['?commodities=GOLD,,CORN', {}, 'commodities'],
      ['?commodities=', {}, 'commodities'],
      ['?commodities=GOLD,GOLD', {}, 'commodities'],
      ['?types=bogus', {}, 'types'],
      ['?types=price,', {}, 'types'],
      ['?types=price,price', {}, 'types'],
      ['?types=price&types=stocks', {}, 'types'],
      ['?since=1', {}, 'since'],
      ['?last_event_id=-1', {}, 'last_event_id'],
      ['', { 'last-event-id': 'abc' }, 'Last-Event-ID'],
      ['', { 'last-event-id': '1.5' }, 'Last-Event-ID'],
    ];
    for (const [query, headers, param] of cases) {
      const c = await openSse(eventsUrl(query), { key: keys.enterprise, headers });
      expect(c.status, query).toBe(400);
      const error = await refusal(c);
      expect(error, `${query} ${JSON.stringify(headers)}`).toMatchObject({ code: 'invalid_parameter', param });
      expect(c.headers['x-ratelimit-limit']).toBeDefined();
    }
    const unknown = await refusal(await openSse(eventsUrl('?commodities=UNOBTAINIUM'), { key: keys.enterprise }));
    expect(unknown.message).toContain('UNOBTAINIUM');
    const noKey = await openSse(eventsUrl());
    expect(noKey.status).toBe(401);
    expect((await refusal(noKey)).code).toBe('unauthorized');
    const post = await fetch(eventsUrl(), { method: 'POST', headers: { authorization: `Bearer ${keys.enterprise}` } });
    expect(post.status).toBe(405);
    await post.text();
  });

  it('refuses a COT format the plan does not read with a 403 naming it; without types the plan topics flow', async () => {
    const c = await openSse(eventsUrl('?types=cot_legacy'), { key: keys.free });
    expect(c.status).toBe(403);
    const error = await refusal(c);
    expect(error).toMatchObject({ code: 'forbidden', param: 'types' });
    expect(error.message).toContain('cot_legacy');
    const pro = await openSse(eventsUrl('?types=price,cot_disaggregated'), { key: keys.professional });
    expect(pro.status).toBe(403);
    expect((await refusal(pro)).message).toContain('cot_disaggregated');
    // A free stream without types resumes past the COT changes the witness saw: it gets none of them.
    const free = await stream('', keys.free, '0');
    // The newest series change on the stream (nothing was recorded since the witness got it):
    // once the free stream has it, it has its whole backlog (sent in stream order).
    const lastSeries = witness.changes().findLast((e) => e.event === 'series.updated');
    expect(lastSeries).toBeDefined();
    expect(witness.changes().at(-1)!.id).toBe(
      String((await messaging.jsm.streams.info(CHANGES_STREAM)).state.last_seq),
    );
    await free.waitFor('its backlog', (events) => events.some((e) => e.id === lastSeries!.id));
    expect(free.changes().length).toBeGreaterThan(0);
    expect(free.changes().every((e) => e.event === 'series.updated')).toBe(true);
    free.close();
  });

  it('limits concurrent streams per account by plan across replicas (429 naming the limit), until one closes', async () => {
    const { key } = await e2e.account('free');
    const first = await stream('', key);
    expect(first.status).toBe(200);
    // The second replica counts the first one's stream (Redis).
    const second = await openSse(eventsUrl('', 1), { key });
    expect(second.status).toBe(429);
    const error = await refusal(second);
    expect(error.code).toBe('rate_limited');
    expect(error.message).toMatch(/allows 1 concurrent event stream/);
    first.close();
    await eventually(
      'slot freed',
      async () => {
        const again = await openSse(eventsUrl(), { key });
        open.push(again);
        if (again.status === 200) return true;
        await again.ended;
        return false;
      },
      5_000,
    );
  });

  it('ends a revoked key stream with a final unauthorized event within the revocation target', async () => {
    const account = await e2e.account('business');
    const c = await stream('', account.key);
    await c.waitFor('retry line', () => c.retry === 3000);
    const revokedAt = Date.now();
    const res = await e2e.admin('POST', `/keys/${account.keyId}/revoke`);
    expect(res.status).toBe(200);
    const error = await finalError(c);
    expect(error.code).toBe('unauthorized');
    const tookMs = c.events.at(-1)!.at - revokedAt;
    console.log(`revocation -> final event on the stream: ${tookMs} ms`);
    expect(tookMs).toBeLessThan(1_000);
    expect(c.isEnded()).toBe(true);
  });

  it('applies a plan downgrade at once: explicit COT ends forbidden, the newest over the limit end, COT stops', async () => {
    const account = await e2e.account('business');
    const oldest = await stream('', account.key);
    const cot = await stream('?types=cot_disaggregated', account.key);
    const newest = await stream('?commodities=GOLD', account.key);
    for (const c of [oldest, cot, newest]) expect(c.status).toBe(200);
    await sleep(100);
    const res = await e2e.admin('PUT', `/accounts/${account.accountId}/plan`, { plan: 'free' });
    expect(res.status).toBe(200);
    expect(await finalError(cot)).toMatchObject({ code: 'forbidden', param: 'types' });
    const limited = await finalError(newest);
    expect(limited.code).toBe('rate_limited');
    expect(limited.message).toMatch(/allows 1 concurrent event stream/);
    await sleep(300);
    expect(oldest.isEnded()).toBe(false);
    const seenBefore = witness.changes().length;
    await ingest('cftc-disaggregated', 'cftc_disagg_fut_f_year_2021_excerpt.txt');
    await witness.waitFor(
      'disaggregated changes',
      (events) => events.slice(seenBefore).some((e) => e.event === 'cot.updated'),
      60_000,
    );
    // A series change after them (as the projector records one): the free stream is still live.
    const [price] = syntheticChanges(1);
    await publishChanges([price!]);
    await witness.waitFor('the series change', (events) => events.some((e) => notification(e).id === price!.id));
    await oldest.waitFor('the series change', (events) => events.some((e) => e.event === 'series.updated'));
    const after = witness.changes().slice(seenBefore);
    expect(after.filter((e) => e.event === 'cot.updated').length).toBeGreaterThan(0);
    expect(oldest.changes().map((e) => e.id)).toEqual(
      after.filter((e) => e.event === 'series.updated').map((e) => e.id),
    );
    expect(oldest.isEnded()).toBe(false);
  }, 180_000);

  it('cuts off a client that never reads with a final slow_consumer event, and stays serving the others', async () => {
    const closedBefore = await metric('cds_gateway_sse_streams_closed_total', 'reason="slow_consumer"');
    const url = new URL(eventsUrl());
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `GET /api/v1/events HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${keys.enterprise}\r\n\r\n`,
    );
    socket.pause();
    // Changes as the projector records them, enough bytes to fill the socket buffers and the bound,
    // in batches a reading client takes in time.
    // ~8 MB: more than the kernel buffers of a loopback connection hold (tcp_wmem max 4 MB here).
    const records = syntheticChanges(12_000);
    const reader = await stream('?commodities=GOLD', keys.professional);
    for (let i = 0; i < records.length; i += 500) {
      await publishChanges(records.slice(i, i + 500));
      await reader.waitFor('the batch', () => reader.changes().length >= Math.min(i + 500, records.length), 30_000);
    }
    await eventually(
      'slow consumer counted',
      async () => (await metric('cds_gateway_sse_streams_closed_total', 'reason="slow_consumer"')) > closedBefore,
      10_000,
    );
    // Now read what the server wrote: it ends with the final event, and the connection closes.
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.resume();
    await new Promise<void>((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));
    const received = text.length;
    console.log(`slow client: ${received} bytes received before the cut (bound ${MAX_UNSENT} in the gateway)`);
    expect(text).toMatch(/event: error\ndata: \{"error":\{"code":"slow_consumer"/);
    // What the kernel's socket buffers took before the cut reached the client; the rest never left the ring.
    const events = text.split('\nevent: series.updated\n').length - 1;
    console.log(`slow client: ${events} of ${records.length} events reached it before the cut`);
    expect(events).toBeLessThan(records.length);
    expect(reader.isEnded()).toBe(false);
  });

  it('ends its streams cleanly when the gateway shuts down (clients reconnect elsewhere with Last-Event-ID)', async () => {
    const c = await openSse(eventsUrl('', 1), { key: keys.business });
    open.push(c);
    await c.waitFor('retry line', () => c.retry === 3000);
    const gateway = e2e.system.gateways[1]!;
    const stopped = Date.now();
    await gateway.stop(10_000);
    await c.ended;
    expect(c.comments).toContain('the server is shutting down; reconnect with Last-Event-ID');
    // SIGTERM to exit: the open stream did not hold the server's close for its grace period.
    expect(Date.now() - stopped).toBeLessThan(5_000);
    expect(c.raw().endsWith('\n\n')).toBe(true);
  });
});
