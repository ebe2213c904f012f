import { MAX_WEBHOOK_ENDPOINTS, type Notification } from '@cds/contracts';
import { isDatabaseUnavailable } from '@cds/store';
import { getTestInfra, startMongo, uniqueName } from '@cds/testkit';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIOUS_SECRET_VALID_MS, signingSecrets } from '../../signature.ts';
import { DELIVERY_RETENTION_MS, type DeliveryAttempt, type WebhookStores } from '../port.ts';
import type { WebhookStoreOptions } from '../stores.ts';

/** Opens the adapter under test on `db`. */
export type OpenStores = (db: Db, opts: WebhookStoreOptions) => Promise<WebhookStores>;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-02T12:00:00Z');

/**
 * The webhook store's contract (port.ts: WebhookAdmin and WebhookQueue), registered as describe
 * blocks for one adapter; each adapter's int spec runs it against the run's MongoDB API server
 * from @cds/testkit. On an injected clock: idempotent enqueue, leases that expire, backoff, the
 * 24 h give-up and the 3-day disable, secret rotation with a 24 h overlap, claims fair across
 * accounts, and a deadline on every call.
 */
export function registerWebhookContract(
  adapter: string,
  open: OpenStores,
  server: {
    /**
     * Writers racing for one thing (a delivery's lease, an account's last endpoint places) get it
     * once. The FerretDB adapter's claims give that on any server; the MongoDB adapter's filtered
     * updates only on MongoDB (FerretDB 1.x evaluates an update's filter apart from the write).
     */
    atomicUpdates: boolean;
    /** Claim documents the adapter keeps per lease (sweepClaims deletes them): 1 on FerretDB, 0 on MongoDB. */
    claimsPerLease: number;
  },
): void {
  let client: MongoClient;
  let now = T0;
  const clock = () => now;
  const retry = { baseMs: 1_000, maxMs: 60_000 };

  function storeOn(db: Db, owner: string, leaseMs = 30_000, accountConcurrency = 4): Promise<WebhookStores> {
    return open(db, {
      clock,
      retry,
      retryForMs: DAY,
      disableAfterMs: 3 * DAY,
      leaseMs,
      accountConcurrency,
      owner,
      random: () => 0,
      publicOrigin: 'https://api.example.com',
    });
  }

  let n = 0;
  function notification(commodity = 'GOLD'): Notification {
    n += 1;
    return {
      id: `evt_${n.toString(16).padStart(32, '0')}`,
      type: 'series.updated',
      data: {
        commodity,
        topic: 'price',
        series_type: 'price',
        first_date: '2026-11-02',
        newest_date: '2026-11-02',
        landed_at: new Date(now).toISOString(),
        url: `https://api.example.com/api/v1/commodities/${commodity}/series?type=price`,
      },
    };
  }

  const failure = (outcome: DeliveryAttempt['outcome'] = 'http_error'): DeliveryAttempt => ({
    at: new Date(now),
    outcome,
    status_code: outcome === 'http_error' ? 500 : null,
    error: 'HTTP 500',
    duration_ms: 12,
  });
  const success = (): DeliveryAttempt => ({
    at: new Date(now),
    outcome: 'delivered',
    status_code: 204,
    error: null,
    duration_ms: 8,
  });

  const input = { url: 'https://hooks.example.com/cds', commodities: null, types: null, enabled: true };

  beforeAll(async () => {
    client = await new MongoClient(getTestInfra().mongoUrl, { appName: `webhooks-${adapter}` }).connect();
  }, 60_000);

  afterAll(async () => {
    await client?.close();
  });

  describe(`webhook store contract: ${adapter} adapter, endpoints`, () => {
    it('creates endpoints with a secret shown once, up to the limit, scoped to their account', async () => {
      now = T0;
      const store = await storeOn(client.db(uniqueName('wh_endpoints')), 'a');
      const created = await store.createEndpoint('acc_1', 'owner@example.com', input);
      if (created === 'limit_reached') throw new Error('limit');
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(created.endpoint).toMatchObject({
        account_id: 'acc_1',
        enabled: true,
        disabled_reason: null,
        secret_hint: created.secret.slice(-4),
        failing_since: null,
      });
      expect(created.endpoint.id).toMatch(/^whk_[0-9a-f]{24}$/);
      expect(JSON.stringify(await store.listEndpoints('acc_1'))).not.toContain(created.secret);
      expect(await store.getEndpoint('acc_2', created.endpoint.id)).toBeNull();
      expect(await store.rotateSecret('acc_2', created.endpoint.id)).toBeNull();
      expect(await store.deleteEndpoint('acc_2', created.endpoint.id)).toBe(false);
      for (let i = 1; i < MAX_WEBHOOK_ENDPOINTS; i += 1) {
        expect(await store.createEndpoint('acc_1', 'owner@example.com', input)).not.toBe('limit_reached');
      }
      expect(await store.createEndpoint('acc_1', 'owner@example.com', input)).toBe('limit_reached');
      expect(await store.createEndpoint('acc_2', 'other@example.com', input)).not.toBe('limit_reached');
      // Deleting one gives its place back.
      const other = (await store.listEndpoints('acc_1')).find((e) => e.id !== created.endpoint.id)!;
      expect(await store.deleteEndpoint('acc_1', other.id)).toBe(true);
      expect(await store.createEndpoint('acc_1', 'owner@example.com', input)).not.toBe('limit_reached');
      expect(await store.createEndpoint('acc_1', 'owner@example.com', input)).toBe('limit_reached');
      const rotated = await store.rotateSecret('acc_1', created.endpoint.id);
      expect(rotated).not.toBe(created.secret);
      expect((await store.getEndpoint('acc_1', created.endpoint.id))?.secret_hint).toBe(rotated!.slice(-4));
      expect(JSON.stringify(await store.getEndpoint('acc_1', created.endpoint.id))).not.toContain(created.secret);
      await store.deleteAccount('acc_1');
      expect(await store.listEndpoints('acc_1')).toEqual([]);
      expect(await store.listEndpoints('acc_2')).toHaveLength(1);
    });

    it.skipIf(!server.atomicUpdates)('holds the limit when creates race past the count', async () => {
      now = T0;
      const store = await storeOn(client.db(uniqueName('wh_endpoint_race')), 'a');
      // Creates racing past the count: the limit still holds, and the free places are all taken.
      for (let i = 0; i < 5; i += 1) await store.createEndpoint('acc_race', 'race@example.com', input);
      const raced = await Promise.all(
        Array.from({ length: 8 }, () => store.createEndpoint('acc_race', 'race@example.com', input)),
      );
      expect(raced.filter((r) => r !== 'limit_reached')).toHaveLength(MAX_WEBHOOK_ENDPOINTS - 5);
      expect(await store.listEndpoints('acc_race')).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
      // Deleting one gives its place back.
      const [first] = await store.listEndpoints('acc_race');
      expect(await store.deleteEndpoint('acc_race', first!.id)).toBe(true);
      expect(await store.createEndpoint('acc_race', 'race@example.com', input)).not.toBe('limit_reached');
      expect(await store.createEndpoint('acc_race', 'race@example.com', input)).toBe('limit_reached');
    });

    it('matches enabled endpoints on their commodity and topic filters', async () => {
      const store = await storeOn(client.db(uniqueName('wh_match')), 'a');
      const make = async (commodities: string[] | null, types: ('price' | 'cot_legacy')[] | null, enabled = true) => {
        const r = await store.createEndpoint('acc_m', 'm@example.com', { ...input, commodities, types, enabled });
        if (r === 'limit_reached') throw new Error('limit');
        return r.endpoint.id;
      };
      const all = await make(null, null);
      const gold = await make(['GOLD', 'CORN'], null);
      const cot = await make(null, ['cot_legacy']);
      const goldPrice = await make(['GOLD'], ['price']);
      await make(null, null, false);
      const ids = async (commodity: string, topic: 'price' | 'cot_legacy' | 'stocks') =>
        (await store.matchingEndpoints({ commodity, topic })).map((e) => e.id).sort();
      expect(await ids('GOLD', 'price')).toEqual([all, gold, goldPrice].sort());
      expect(await ids('CORN', 'cot_legacy')).toEqual([all, gold, cot].sort());
      expect(await ids('WHEAT', 'stocks')).toEqual([all]);
    });
  });

  describe(`webhook store contract: ${adapter} adapter, deliveries`, () => {
    it('enqueues one delivery per endpoint and event; enqueuing again changes nothing', async () => {
      now = T0;
      const store = await storeOn(client.db(uniqueName('wh_enqueue')), 'a');
      const r = await store.createEndpoint('acc_e', 'e@example.com', input);
      if (r === 'limit_reached') throw new Error('limit');
      const event = notification();
      expect(await store.enqueue([r.endpoint], event)).toBe(1);
      now += 5_000;
      expect(await store.enqueue([r.endpoint], event)).toBe(0);
      const list = await store.listDeliveries('acc_e', r.endpoint.id);
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({
        id: `${r.endpoint.id}:${event.id}`,
        status: 'pending',
        attempts: 0,
        notification: event,
        created_at: new Date(T0),
        give_up_at: new Date(T0 + DAY),
      });
      expect(await store.listDeliveries('acc_other', r.endpoint.id)).toEqual([]);
    });

    it('leases a delivery to one claimant; a lease that expires makes it due again, and the old holder cannot record', async () => {
      now = T0;
      const db = client.db(uniqueName('wh_lease'));
      const a = await storeOn(db, 'a', 30_000);
      const b = await storeOn(db, 'b', 30_000);
      const r = await a.createEndpoint('acc_l', 'l@example.com', input);
      if (r === 'limit_reached') throw new Error('limit');
      await a.enqueue([r.endpoint], notification());
      const [held] = await a.claimDue(10);
      expect(held).toBeDefined();
      expect(held!.endpoint?.secret).toMatch(/^whsec_/);
      expect(held!.delivery.status).toBe('delivering');
      expect(await b.claimDue(10)).toEqual([]);
      now += 29_000;
      expect(await b.claimDue(10)).toEqual([]);
      // The holder was killed: its lease runs out and another notifier takes the delivery over.
      now += 2_000;
      expect(await a.oldestDueAt()).toEqual(new Date(T0 + 30_000));
      const [taken] = await b.claimDue(10);
      expect(taken?.delivery.id).toBe(held!.delivery.id);
      expect(taken!.lease).toBe(held!.lease + 1);
      expect(await a.recordAttempt(held!, success())).toBe('lease_lost');
      const recorded = await b.recordAttempt(taken!, success());
      // The attempt the killed holder started counts: this one is the second.
      expect(recorded).toMatchObject({ delivery: { status: 'delivered', attempts: 2 }, endpointDisabled: false });
      expect(await a.claimDue(10)).toEqual([]);
      expect(await a.oldestDueAt()).toBeNull();
      // Its two lease claims (on an adapter that keeps them) go in a sweep once two leases have passed, not before.
      expect(await a.sweepClaims()).toBe(0);
      now += 61_000;
      expect(await a.sweepClaims()).toBe(2 * server.claimsPerLease);
      // (The FerretDB adapter's place claim of the endpoint stays while the endpoint does.)
      expect(await db.collection('claims').countDocuments({ delivery_id: { $ne: null } })).toBe(0);
      // The delivered delivery stays in the log for DELIVERY_RETENTION_MS after it was created, then goes.
      expect(await a.sweepDeliveries()).toBe(0);
      expect(await a.listDeliveries('acc_l', r.endpoint.id)).toHaveLength(1);
      now = T0 + DELIVERY_RETENTION_MS + 1;
      expect(await a.sweepDeliveries()).toBe(1);
      expect(await a.listDeliveries('acc_l', r.endpoint.id)).toEqual([]);
    });

    it.skipIf(!server.atomicUpdates)('never hands one delivery to two claimants racing for it', async () => {
      now = T0;
      const db = client.db(uniqueName('wh_race'));
      // (No per-account cap here: one account's 12 deliveries all go in the three rounds.)
      const a = await storeOn(db, 'a', 30_000, 100);
      const b = await storeOn(db, 'b', 30_000, 100);
      const r = await a.createEndpoint('acc_r', 'r@example.com', input);
      if (r === 'limit_reached') throw new Error('limit');
      for (let i = 0; i < 12; i += 1) await a.enqueue([r.endpoint], notification());
      const [fromA, fromB] = await Promise.all([a.claimDue(12), b.claimDue(12)]);
      const idsA = fromA.map((c) => c.delivery.id);
      const idsB = fromB.map((c) => c.delivery.id);
      expect(idsA.filter((id) => idsB.includes(id))).toEqual([]);
      const rest = await a.claimDue(12);
      expect(new Set([...idsA, ...idsB, ...rest.map((c) => c.delivery.id)]).size).toBe(12);
    });

    it('retries with doubling waits, keeps the last 10 attempts, and gives up once the 24 h have passed', async () => {
      now = T0;
      const store = await storeOn(client.db(uniqueName('wh_backoff')), 'a');
      const r = await store.createEndpoint('acc_b', 'b@example.com', input);
      if (r === 'limit_reached') throw new Error('limit');
      await store.enqueue([r.endpoint], notification());
      const gaps: number[] = [];
      for (let i = 0; i < 12; i += 1) {
        const [claim] = await store.claimDue(1);
        expect(claim, `attempt ${i + 1} is due`).toBeDefined();
        const rec = await store.recordAttempt(claim!, failure());
        if (rec === 'lease_lost') throw new Error('lease lost');
        gaps.push(rec.delivery.next_attempt_at!.getTime() - now);
        expect(await store.claimDue(1)).toEqual([]);
        now = rec.delivery.next_attempt_at!.getTime();
      }
      expect(gaps).toEqual([
        1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000,
      ]);
      const [latest] = await store.listDeliveries('acc_b', r.endpoint.id);
      expect(latest).toMatchObject({ attempts: 12, status: 'pending' });
      expect(latest!.history).toHaveLength(10);
      expect(latest!.history[0]!.at.getTime()).toBeGreaterThan(latest!.history[1]!.at.getTime());
      // Late in the run the next attempt is the give-up time itself, and a failure then is final.
      now = T0 + DAY - 10_000;
      const [late] = await store.claimDue(1);
      const lateRec = await store.recordAttempt(late!, failure('timeout'));
      if (lateRec === 'lease_lost') throw new Error('lease lost');
      expect(lateRec.delivery.next_attempt_at).toEqual(new Date(T0 + DAY));
      now = T0 + DAY;
      const [last] = await store.claimDue(1);
      const final = await store.recordAttempt(last!, failure());
      if (final === 'lease_lost') throw new Error('lease lost');
      expect(final.delivery).toMatchObject({ status: 'failed', next_attempt_at: null, attempts: 14 });
      now += DAY;
      expect(await store.claimDue(5)).toEqual([]);
      // A re-send gives it a fresh run, due now, the backoff starting over.
      const resent = await store.resendDelivery('acc_b', final.delivery.id);
      expect(resent).toMatchObject({
        status: 'pending',
        next_attempt_at: new Date(now),
        give_up_at: new Date(now + DAY),
      });
      expect(await store.resendDelivery('acc_other', final.delivery.id)).toBeNull();
      const [again] = await store.claimDue(1);
      const againRec = await store.recordAttempt(again!, failure());
      if (againRec === 'lease_lost') throw new Error('lease lost');
      expect(againRec.delivery.next_attempt_at!.getTime() - now).toBe(1_000);
    });

    it('gives a released delivery back due at once', async () => {
      now = T0;
      const store = await storeOn(client.db(uniqueName('wh_release')), 'a');
      const r = await store.createEndpoint('acc_x', 'x@example.com', input);
      if (r === 'limit_reached') throw new Error('limit');
      await store.enqueue([r.endpoint], notification());
      const [held] = await store.claimDue(1);
      await store.release(held!);
      const [again] = await store.claimDue(1);
      expect(again?.delivery.id).toBe(held!.delivery.id);
      // The released claim made no attempt: the new one is the first.
      expect(again!.delivery.attempts).toBe(1);
    });

    it('marks an endpoint failing, clears it on a success, and disables it (once) after 3 days of failures', async () => {
      now = T0;
      const store = await storeOn(client.db(uniqueName('wh_disable')), 'a');
      const r = await store.createEndpoint('acc_d', 'd@example.com', input);
      if (r === 'limit_reached') throw new Error('limit');
      const id = r.endpoint.id;
      /** One attempt of a fresh delivery. */
      const attempt = async (result: DeliveryAttempt) => {
        await store.enqueue([r.endpoint], notification());
        const [claim] = await store.claimDue(1);
        const rec = await store.recordAttempt(claim!, result);
        if (rec === 'lease_lost') throw new Error('lease lost');
        return rec;
      };
      const first = await attempt(failure());
      expect(first.endpointDisabled).toBe(false);
      expect((await store.getEndpoint('acc_d', id))?.failing_since).toEqual(new Date(T0));
      now += DAY;
      await store.claimDue(100).then((cs) => Promise.all(cs.map((c) => store.abandon(c))));
      await attempt(success());
      expect(await store.getEndpoint('acc_d', id)).toMatchObject({
        failing_since: null,
        last_success_at: new Date(now),
      });
      const runStart = now;
      await attempt(failure());
      now = runStart + 3 * DAY - 1;
      await store.claimDue(100).then((cs) => Promise.all(cs.map((c) => store.abandon(c))));
      expect((await attempt(failure('timeout'))).endpointDisabled).toBe(false);
      now = runStart + 3 * DAY;
      await store.claimDue(100).then((cs) => Promise.all(cs.map((c) => store.abandon(c))));
      const disabling = await attempt(failure('network_error'));
      expect(disabling.endpointDisabled).toBe(true);
      expect(disabling.endpoint).toMatchObject({
        enabled: false,
        disabled_reason: 'failing',
        contact_email: 'd@example.com',
      });
      expect(await store.matchingEndpoints({ commodity: 'GOLD', topic: 'price' })).toEqual([]);
      // Its queued deliveries are not sent while it is disabled; the claim shows the endpoint disabled.
      await store.enqueue([r.endpoint], notification());
      const [queued] = await store.claimDue(1);
      expect(queued?.endpoint?.enabled).toBe(false);
      expect((await store.recordAttempt(queued!, failure())) as unknown).toMatchObject({ endpointDisabled: false });
      // Enabling it again clears the failing run and the reason.
      const enabled = await store.updateEndpoint('acc_d', id, input);
      expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    });

    it('keeps the replaced secret signing for 24 h after a rotation, then only the new one', async () => {
      now = T0;
      const store = await storeOn(client.db(uniqueName('wh_rotate')), 'a');
      const r = await store.createEndpoint('acc_s', 's@example.com', input);
      if (r === 'limit_reached') throw new Error('limit');
      expect(r.endpoint).toMatchObject({ previous_secret_hint: null, previous_secret_expires_at: null });
      /** The secrets the next claimed delivery is signed with, at `now`. */
      const signedWith = async () => {
        await store.enqueue([r.endpoint], notification());
        const [claim] = await store.claimDue(1);
        await store.recordAttempt(claim!, success());
        return signingSecrets(claim!.endpoint!, now);
      };
      expect(await signedWith()).toEqual([r.secret]);
      now = T0 + HOUR;
      const second = (await store.rotateSecret('acc_s', r.endpoint.id))!;
      const until = new Date(T0 + HOUR + PREVIOUS_SECRET_VALID_MS);
      const shown = await store.getEndpoint('acc_s', r.endpoint.id);
      expect(shown).toMatchObject({
        secret_hint: second.slice(-4),
        previous_secret_hint: r.secret.slice(-4),
        previous_secret_expires_at: until,
      });
      // The dashboard's view carries neither secret in full.
      expect(JSON.stringify(shown)).not.toContain(r.secret);
      expect(JSON.stringify(shown)).not.toContain(second);
      expect(await signedWith()).toEqual([second, r.secret]);
      now = until.getTime() - 1;
      expect(await signedWith()).toEqual([second, r.secret]);
      now = until.getTime();
      expect(await signedWith()).toEqual([second]);
      // Rotating twice within the 24 h keeps only the secret just replaced: the older one ends at once.
      now += HOUR;
      const third = (await store.rotateSecret('acc_s', r.endpoint.id))!;
      expect(await signedWith()).toEqual([third, second]);
      now += 1_000;
      const fourth = (await store.rotateSecret('acc_s', r.endpoint.id))!;
      expect(await signedWith()).toEqual([fourth, third]);
      expect(await store.rotateSecret('acc_other', r.endpoint.id)).toBeNull();
    });

    it("claims fairly: another account's one due delivery goes in the first round, behind many of a tarpit's", async () => {
      now = T0;
      const db = client.db(uniqueName('wh_fair'));
      const store = await storeOn(db, 'a', 30_000, 2);
      const tarpit = await store.createEndpoint('acc_slow', 'slow@example.com', {
        ...input,
        url: 'https://tarpit.example.com/never-answers',
      });
      const other = await store.createEndpoint('acc_b', 'b@example.com', input);
      if (tarpit === 'limit_reached' || other === 'limit_reached') throw new Error('limit');
      for (let i = 0; i < 30; i += 1) await store.enqueue([tarpit.endpoint], notification());
      now += 1_000;
      expect(await store.enqueue([other.endpoint], notification())).toBe(1);
      // Global FIFO would hand out 4 of acc_slow's older ones; the account's cap is 2.
      const first = await store.claimDue(4);
      const accounts = first.map((c) => c.delivery.account_id);
      expect(accounts).toContain('acc_b');
      expect(accounts.filter((a) => a === 'acc_slow')).toHaveLength(2);
      expect(first).toHaveLength(3);
      // While its two hang, acc_slow gets nothing more, on this notifier or another.
      const other2 = await storeOn(db, 'b', 30_000, 2);
      expect(await store.claimDue(4)).toEqual([]);
      expect(await other2.claimDue(4)).toEqual([]);
      // One ends (a timeout): acc_slow has room for one more, and it is due again later.
      const slow = first.find((c) => c.delivery.account_id === 'acc_slow')!;
      await store.recordAttempt(slow, failure('timeout'));
      const next = await other2.claimDue(4);
      expect(next.map((c) => c.delivery.account_id)).toEqual(['acc_slow']);
      // Once the leases end (the notifier died), the account's cap is free again.
      now += 31_000;
      const after = await store.claimDue(10);
      expect(after.filter((c) => c.delivery.account_id === 'acc_slow')).toHaveLength(2);
      // Without a cap, round-robin over the read (4 deliveries per slot) still takes acc_b's at once.
      const fresh = client.db(uniqueName('wh_fair_rr'));
      const rr = await storeOn(fresh, 'a', 30_000, 100);
      const t2 = await rr.createEndpoint('acc_slow', 'slow@example.com', input);
      const o2 = await rr.createEndpoint('acc_b', 'b@example.com', input);
      if (t2 === 'limit_reached' || o2 === 'limit_reached') throw new Error('limit');
      for (let i = 0; i < 30; i += 1) await rr.enqueue([t2.endpoint], notification());
      now += 1_000;
      await rr.enqueue([o2.endpoint], notification());
      const round = await rr.claimDue(8);
      expect(round.map((c) => c.delivery.account_id).sort()).toEqual(['acc_b', ...Array<string>(7).fill('acc_slow')]);
    });

    it('sends a test event due now, and deleting an endpoint deletes its deliveries', async () => {
      now = T0;
      const store = await storeOn(client.db(uniqueName('wh_test_event')), 'a');
      const r = await store.createEndpoint('acc_t', 't@example.com', { ...input, commodities: ['CORN'] });
      if (r === 'limit_reached') throw new Error('limit');
      const test = await store.sendTestEvent('acc_t', r.endpoint.id);
      expect(test).toMatchObject({ status: 'pending', next_attempt_at: new Date(T0) });
      expect(test!.notification).toMatchObject({ test: true, type: 'series.updated', data: { commodity: 'CORN' } });
      expect(test!.notification.data.url).toMatch(/^https:\/\/api\.example\.com\/api\/v1\/commodities\/CORN\/series\?/);
      expect(await store.sendTestEvent('acc_other', r.endpoint.id)).toBeNull();
      expect(await store.claimDue(5)).toHaveLength(1);
      expect(await store.deleteEndpoint('acc_t', r.endpoint.id)).toBe(true);
      expect(await store.listDeliveries('acc_t', r.endpoint.id)).toEqual([]);
    });
  });

  describe(`webhook store contract: ${adapter} adapter, a server that stops answering`, () => {
    it('ends admin and queue calls by the deadline as "database unavailable", and works again after', async () => {
      now = T0;
      const frozen = await startMongo();
      const own = await new MongoClient(frozen.url, { socketTimeoutMS: 2_000 }).connect();
      try {
        const store = await open(own.db('frozen'), {
          clock,
          retry,
          retryForMs: DAY,
          disableAfterMs: 3 * DAY,
          owner: 'frozen',
          operationTimeoutMs: 300,
        });
        const r = await store.createEndpoint('acc_f', 'f@example.com', input);
        if (r === 'limit_reached') throw new Error('limit');
        // Stopped, not dead: the connection stays open and nothing ever answers.
        await frozen.kill('SIGSTOP');
        const started = Date.now();
        const calls: Promise<unknown>[] = [
          store.listEndpoints('acc_f'),
          store.createEndpoint('acc_f', 'f@example.com', input),
          store.matchingEndpoints({ commodity: 'GOLD', topic: 'price' }),
          store.claimDue(5),
          store.oldestDueAt(),
        ];
        for (const failed of await Promise.all(
          calls.map((c) =>
            c.then(
              () => undefined,
              (e: unknown) => e,
            ),
          ),
        )) {
          expect(isDatabaseUnavailable(failed), String(failed)).toBe(true);
          expect((failed as Error).message).toMatch(/no answer from the database within 300 ms/);
        }
        expect(Date.now() - started).toBeLessThan(5_000);
        await frozen.kill('SIGCONT');
        expect(await store.enqueue([r.endpoint], notification())).toBe(1);
        expect(await store.claimDue(5)).toHaveLength(1);
      } finally {
        await frozen.kill('SIGCONT').catch(() => undefined);
        await own.close().catch(() => undefined);
        await frozen.stop();
      }
    });
  });
}
