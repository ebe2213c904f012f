import { randomBytes } from 'node:crypto';
import { API_PREFIX, MAX_WEBHOOK_ENDPOINTS, type Notification, type NotificationTopic } from '@cds/contracts';
import { ensureIndexes, isDuplicateKeyError, withDeadline } from '@cds/store';
import type { Collection, Db, Filter } from 'mongodb';
import { retryDelayMs, type RetryPolicy } from './backoff.ts';
import { takeRoundRobin } from './fair-share.ts';
import { newSigningSecret, PREVIOUS_SECRET_VALID_MS } from './signature.ts';
import type { Delivery, DeliveryAttempt, EndpointId, WebhookAdmin, WebhookEndpoint } from './store.ts';

/** An endpoint as the notifier needs it: with its signing secrets (`signingSecrets` picks those valid now). */
export interface SigningEndpoint extends WebhookEndpoint {
  secret: string;
  /** The secret the last rotation replaced; it signs too until `previous_secret_expires_at`. */
  previous_secret: string | null;
}

/** A delivery this process holds the lease of (`lease` is the claim's generation). */
export interface ClaimedDelivery {
  delivery: Delivery;
  /** null: the endpoint was deleted since the delivery was enqueued. */
  endpoint: SigningEndpoint | null;
  lease: number;
  /** The lease ends then: past it the holder writes nothing (another notifier may have taken over). */
  leaseUntil: Date;
}

export interface RecordedAttempt {
  delivery: Delivery;
  /** True once, for the failure that disabled the endpoint (its owner is to be told). */
  endpointDisabled: boolean;
  /** As read after disabling it; otherwise as it was claimed (null: deleted). */
  endpoint: WebhookEndpoint | null;
}

/** The notifier's side of the store: matching, idempotent enqueue, leased claims, attempts. */
export interface WebhookQueue {
  /** Enabled endpoints whose filters take a change of `topic` for `commodity`. */
  matchingEndpoints(change: { commodity: string; topic: NotificationTopic }): Promise<WebhookEndpoint[]>;
  /** One delivery per endpoint (`<endpoint>:<event id>`); enqueuing again changes nothing. Returns how many are new. */
  enqueue(endpoints: readonly WebhookEndpoint[], notification: Notification): Promise<number>;
  /**
   * Leases up to `limit` due deliveries (pending and due, or held by a lease that expired) to this
   * process for `leaseMs`. Two claimants never hold one delivery at once. Fair across accounts: due
   * deliveries are taken one per account in turn (not oldest first over all accounts), and none of
   * an account that already has `accountConcurrency` deliveries in flight.
   */
  claimDue(limit: number): Promise<ClaimedDelivery[]>;
  /** Records an attempt of a held delivery: history, next attempt (backoff) or final status, endpoint health. */
  recordAttempt(claim: ClaimedDelivery, attempt: DeliveryAttempt): Promise<RecordedAttempt | 'lease_lost'>;
  /** Gives a held delivery back untouched, due at once (shutdown). */
  release(claim: ClaimedDelivery): Promise<void>;
  /** Ends a held delivery as failed without an attempt (its endpoint is gone or disabled). */
  abandon(claim: ClaimedDelivery): Promise<void>;
  /** When the oldest delivery that is due now became due (null: none is due). */
  oldestDueAt(): Promise<Date | null>;
  /**
   * Deletes lease claims older than two leases (their deliveries moved on long ago; a stale claimant
   * of an old generation is still stopped by the lease check of its update). Returns how many.
   */
  sweepClaims(): Promise<number>;
  /**
   * Deletes finished deliveries (delivered or failed) created more than DELIVERY_RETENTION_MS ago,
   * so the log the dashboard shows and the collection the due query reads stay bounded. Returns how many.
   */
  sweepDeliveries(): Promise<number>;
}

/** How long a finished delivery stays in the log (docs/notifications.md). */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export type WebhookStore = WebhookAdmin & WebhookQueue;

export interface WebhookStoreOptions {
  db: Db;
  /** ms since the epoch. */
  clock?: () => number;
  /** Deadline of every database call. Default 5 s. */
  operationTimeoutMs?: number;
  retry: RetryPolicy;
  /** How long a delivery is retried (WEBHOOK_RETRY_FOR_MS, 24 h). */
  retryForMs: number;
  /** An endpoint failing this long is disabled at its next failure (WEBHOOK_DISABLE_AFTER_MS, 3 days). */
  disableAfterMs: number;
  /** How long a claim holds a delivery; past it, another notifier may take it over. Default 60 s. */
  leaseMs?: number;
  /**
   * Deliveries of one account in flight at once, over every notifier (WEBHOOK_ACCOUNT_CONCURRENCY):
   * an account's slow endpoints hold at most this many delivery slots. Default 4.
   */
  accountConcurrency?: number;
  /** Names this process's leases (the lease documents and `lease_owner`). */
  owner?: string;
  /** Prefixes the URL of test notifications. Default http://localhost:8080. */
  publicOrigin?: string;
  random?: () => number;
}

interface EndpointDoc extends Omit<WebhookEndpoint, 'id' | 'previous_secret_hint' | 'previous_secret_expires_at'> {
  _id: EndpointId;
  secret: string;
  /** The three `previous_secret` fields are absent from endpoints never rotated since they came in (read as null). */
  previous_secret?: string | null;
  previous_secret_hint?: string | null;
  previous_secret_expires_at?: Date | null;
}

interface DeliveryDoc extends Omit<Delivery, 'id'> {
  _id: string;
  /** Generation of the last claim (0: never claimed). */
  lease: number;
  lease_owner: string | null;
  lease_until: Date | null;
  /** Failed attempts since the delivery was created or re-sent (the backoff exponent). */
  streak: number;
}

/**
 * Updates name a document by `_id` alone: FerretDB 1.24 finds a document by `_id` without a scan
 * but evaluates any other filter field after scanning the whole collection in its own process
 * (measured: an update filtered on `_id` and `lease` took 300 ms at 300 deliveries), so such a
 * filter would be slow and still no compare-and-set. What a filter would guard is checked on the
 * document just read, and exclusion comes from the claims below and the lease's end.
 *
 * A claim document: its unique `_id` makes "the claim of generation N of delivery X", "the
 * disabling of endpoint E for the failing run that began at T", or "place N of account A's
 * endpoints" one insert that only one process wins, on MongoDB and on FerretDB alike (FerretDB 1.x evaluates an update's filter apart from the
 * write, so a filtered update alone is no compare-and-set).
 */
interface ClaimDoc {
  _id: string;
  account_id: string;
  endpoint_id: string;
  delivery_id: string | null;
  owner: string;
  at: Date;
}

const HISTORY_LENGTH = 10;
/** Due deliveries read per claim round, per slot to fill: room to skip those of accounts at their cap. */
const CANDIDATES_PER_SLOT = 4;
/** Reads of due deliveries in one claim round (another only when the last was all capped accounts). */
const CLAIM_PASSES = 3;
/** How stale a healthy endpoint's `last_success_at` may get before a success writes it again. */
const SUCCESS_REFRESH_MS = 60_000;

/** The claim of place `n` of an account's endpoints. */
const endpointPlaceId = (accountId: string, n: number) => `${accountId}#endpoint-place-${n}`;
/** The claim of generation `lease` of a delivery. */
const claimIdOf = (deliveryId: string, lease: number) => `${deliveryId}#${lease}`;
const DEFAULT_LIST_LIMIT = 50;
const MAX_LIST_LIMIT = 200;

function toEndpoint(doc: EndpointDoc): WebhookEndpoint {
  const {
    _id,
    secret: _secret,
    previous_secret: _previous,
    previous_secret_hint: previousHint,
    previous_secret_expires_at: previousUntil,
    ...rest
  } = doc;
  return {
    id: _id,
    ...rest,
    previous_secret_hint: previousHint ?? null,
    previous_secret_expires_at: previousUntil ?? null,
  };
}

function withoutSecret(endpoint: SigningEndpoint): WebhookEndpoint {
  const { secret: _secret, previous_secret: _previous, ...rest } = endpoint;
  return rest;
}

function toSigningEndpoint(doc: EndpointDoc): SigningEndpoint {
  return { ...toEndpoint(doc), secret: doc.secret, previous_secret: doc.previous_secret ?? null };
}

function toDelivery(doc: DeliveryDoc): Delivery {
  const { _id, lease: _l, lease_owner: _o, lease_until: _u, streak: _s, ...rest } = doc;
  return { id: _id, ...rest };
}

function filterAccepts(endpoint: WebhookEndpoint, commodity: string, topic: NotificationTopic): boolean {
  return (
    endpoint.enabled &&
    (endpoint.commodities === null || endpoint.commodities.includes(commodity)) &&
    (endpoint.types === null || endpoint.types.includes(topic))
  );
}

/**
 * The webhook store over MongoDB (or FerretDB): the dashboard's `WebhookAdmin` and the notifier's
 * `WebhookQueue` on three collections of one database (`endpoints`, `deliveries`, `claims`).
 * Every call has a deadline (`withDeadline`); writes are idempotent so a retried call is harmless.
 */
export async function createWebhookStore(opts: WebhookStoreOptions): Promise<WebhookStore> {
  const clock = opts.clock ?? Date.now;
  const timeoutMs = opts.operationTimeoutMs ?? 5_000;
  const leaseMs = opts.leaseMs ?? 60_000;
  const accountConcurrency = opts.accountConcurrency ?? 4;
  const owner = opts.owner ?? `notifier-${randomBytes(4).toString('hex')}`;
  const random = opts.random ?? Math.random;
  const publicOrigin = opts.publicOrigin ?? 'http://localhost:8080';
  const endpoints: Collection<EndpointDoc> = opts.db.collection<EndpointDoc>('endpoints');
  const deliveries: Collection<DeliveryDoc> = opts.db.collection<DeliveryDoc>('deliveries');
  const claims: Collection<ClaimDoc> = opts.db.collection<ClaimDoc>('claims');
  const run = <T>(what: string, op: Parameters<typeof withDeadline<T>>[2]) => withDeadline(what, { timeoutMs }, op);

  await run('ensure webhook indexes', async () => {
    await ensureIndexes(endpoints, [
      { name: 'account', key: { account_id: 1 } },
      { name: 'enabled', key: { enabled: 1 } },
    ]);
    await ensureIndexes(deliveries, [
      { name: 'due', key: { status: 1, next_attempt_at: 1 } },
      { name: 'endpoint_newest', key: { endpoint_id: 1, created_at: -1 } },
      { name: 'account', key: { account_id: 1 } },
    ]);
    await ensureIndexes(claims, [
      { name: 'delivery', key: { delivery_id: 1 } },
      { name: 'endpoint', key: { endpoint_id: 1 } },
      { name: 'account', key: { account_id: 1 } },
    ]);
  });

  const now = () => new Date(clock());

  /** Inserts a claim; false when another process holds it already. */
  const takeClaim = async (doc: ClaimDoc): Promise<boolean> => {
    try {
      await run('insert a claim', ({ maxTimeMS }) => claims.insertOne(doc, { maxTimeMS }));
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  };

  /** The delivery is still `delivering` under this claim's lease, and the lease has not run out. */
  const stillHeld = async (claim: ClaimedDelivery): Promise<boolean> => {
    if (clock() > claim.leaseUntil.getTime()) return false;
    const doc = await run('read a leased delivery', (o) => deliveries.findOne({ _id: claim.delivery.id }, o));
    return doc !== null && doc.lease === claim.lease && doc.status === 'delivering';
  };

  const findEndpoint = (accountId: string, id: EndpointId) =>
    run('read an endpoint', (o) => endpoints.findOne({ _id: id, account_id: accountId }, o));

  const dueFilter = (at: Date): Filter<DeliveryDoc> => ({
    $or: [
      { status: 'pending', next_attempt_at: { $lte: at } },
      { status: 'delivering', lease_until: { $lte: at } },
    ],
  });

  /**
   * Up to `limit` due deliveries, fairly: each account's deliveries in flight now (every notifier's
   * unexpired leases) count against its `accountConcurrency`; the due ones are read oldest first,
   * without the accounts at their cap, and taken one per account in turn. When a read was all
   * deliveries of accounts that reached their cap in this round, another read (without them) finds
   * the others. The cap is read, not locked: N notifiers claiming at the same instant may each fill
   * it, so an account briefly has up to N times its cap in flight.
   */
  const pickDue = async (at: Date, limit: number): Promise<DeliveryDoc[]> => {
    const inFlight = await run('count deliveries in flight', (o) =>
      deliveries
        .find({ status: 'delivering', lease_until: { $gt: at } }, { ...o, projection: { account_id: 1 } })
        .toArray(),
    );
    const busy = new Map<string, number>();
    for (const d of inFlight) busy.set(d.account_id, (busy.get(d.account_id) ?? 0) + 1);
    const picked: DeliveryDoc[] = [];
    const pickedIds = new Set<string>();
    for (let pass = 0; pass < CLAIM_PASSES && picked.length < limit; pass += 1) {
      const capped = [...busy].filter(([, n]) => n >= accountConcurrency).map(([account]) => account);
      const filter: Filter<DeliveryDoc> =
        capped.length === 0 ? dueFilter(at) : { $and: [dueFilter(at), { account_id: { $nin: capped } }] };
      const window = (limit - picked.length) * CANDIDATES_PER_SLOT + picked.length;
      const due = await run('find due deliveries', (o) =>
        deliveries.find(filter, o).sort({ next_attempt_at: 1 }).limit(window).toArray(),
      );
      const fresh = due.filter((d) => !pickedIds.has(d._id));
      const taken = takeRoundRobin(
        fresh,
        limit - picked.length,
        (account) => accountConcurrency - (busy.get(account) ?? 0),
      );
      for (const d of taken) {
        picked.push(d);
        pickedIds.add(d._id);
        busy.set(d.account_id, (busy.get(d.account_id) ?? 0) + 1);
      }
      // Nothing more is due, or everything read was taken: another read finds nothing new.
      if (due.length < window || taken.length === fresh.length) break;
    }
    return picked;
  };

  const newDelivery = (endpoint: WebhookEndpoint, notification: Notification, at: Date): DeliveryDoc => ({
    _id: `${endpoint.id}:${notification.id}`,
    endpoint_id: endpoint.id,
    account_id: endpoint.account_id,
    event_id: notification.id,
    event_type: notification.type,
    notification,
    status: 'pending',
    attempts: 0,
    created_at: at,
    next_attempt_at: at,
    give_up_at: new Date(at.getTime() + opts.retryForMs),
    last_attempt: null,
    history: [],
    lease: 0,
    lease_owner: null,
    lease_until: null,
    streak: 0,
  });

  /** Inserts a delivery; false when it exists already (the same endpoint and event). */
  const insertDelivery = async (doc: DeliveryDoc): Promise<boolean> => {
    try {
      await run('enqueue a delivery', ({ maxTimeMS }) => deliveries.insertOne(doc, { maxTimeMS }));
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  };

  /** After a failed attempt: starts the failing run, or disables the endpoint once it has lasted `disableAfterMs`. */
  const trackFailure = async (endpointId: string, at: Date): Promise<{ disabled: boolean }> => {
    const endpoint = await run('read the endpoint of a failure', (o) => endpoints.findOne({ _id: endpointId }, o));
    if (endpoint === null) return { disabled: false };
    if (endpoint.failing_since === null) {
      await run('mark an endpoint failing', ({ maxTimeMS }) =>
        endpoints.updateOne({ _id: endpointId }, { $set: { failing_since: at } }, { maxTimeMS }),
      );
      return { disabled: false };
    }
    if (!endpoint.enabled || at.getTime() - endpoint.failing_since.getTime() < opts.disableAfterMs) {
      return { disabled: false };
    }
    const won = await takeClaim({
      _id: `disable:${endpointId}:${endpoint.failing_since.getTime()}`,
      account_id: endpoint.account_id,
      endpoint_id: endpointId,
      delivery_id: null,
      owner,
      at,
    });
    if (!won) return { disabled: false };
    await run('disable a failing endpoint', ({ maxTimeMS }) =>
      endpoints.updateOne(
        { _id: endpointId },
        { $set: { enabled: false, disabled_reason: 'failing', updated_at: at } },
        { maxTimeMS },
      ),
    );
    return { disabled: true };
  };

  const store: WebhookStore = {
    // --- WebhookAdmin ---
    async createEndpoint(accountId, contactEmail, input) {
      const count = await run('count endpoints', (o) => endpoints.countDocuments({ account_id: accountId }, o));
      if (count >= MAX_WEBHOOK_ENDPOINTS) return 'limit_reached';
      const secret = newSigningSecret();
      const at = now();
      const id = `whk_${randomBytes(12).toString('hex')}`;
      // One of the account's MAX_WEBHOOK_ENDPOINTS places, taken by a claim with a unique id (freed
      // with the endpoint's claims when it is deleted): creates racing past the count above cannot
      // go over the limit.
      let placed = false;
      for (let n = 0; n < MAX_WEBHOOK_ENDPOINTS && !placed; n += 1) {
        placed = await takeClaim({
          _id: endpointPlaceId(accountId, n),
          account_id: accountId,
          endpoint_id: id,
          delivery_id: null,
          owner,
          at,
        });
      }
      if (!placed) return 'limit_reached';
      const doc: EndpointDoc = {
        _id: id,
        account_id: accountId,
        url: input.url,
        commodities: input.commodities,
        types: input.types,
        enabled: input.enabled,
        disabled_reason: input.enabled ? null : 'owner',
        contact_email: contactEmail,
        secret,
        secret_hint: secret.slice(-4),
        previous_secret: null,
        previous_secret_hint: null,
        previous_secret_expires_at: null,
        created_at: at,
        updated_at: at,
        failing_since: null,
        last_success_at: null,
      };
      await run('create an endpoint', ({ maxTimeMS }) => endpoints.insertOne(doc, { maxTimeMS }));
      return { endpoint: toEndpoint(doc), secret };
    },
    async listEndpoints(accountId) {
      const docs = await run('list endpoints', (o) =>
        endpoints.find({ account_id: accountId }, o).sort({ created_at: 1 }).toArray(),
      );
      return docs.map(toEndpoint);
    },
    async getEndpoint(accountId, id) {
      const doc = await findEndpoint(accountId, id);
      return doc === null ? null : toEndpoint(doc);
    },
    async updateEndpoint(accountId, id, input) {
      const doc = await findEndpoint(accountId, id);
      if (doc === null) return null;
      const at = now();
      const enabling = input.enabled && !doc.enabled;
      const set: Partial<EndpointDoc> = {
        url: input.url,
        commodities: input.commodities,
        types: input.types,
        enabled: input.enabled,
        updated_at: at,
        ...(enabling ? { disabled_reason: null, failing_since: null } : {}),
        ...(!input.enabled && doc.enabled ? { disabled_reason: 'owner' as const } : {}),
      };
      await run('update an endpoint', ({ maxTimeMS }) =>
        endpoints.updateOne({ _id: id, account_id: accountId }, { $set: set }, { maxTimeMS }),
      );
      return toEndpoint({ ...doc, ...set });
    },
    async rotateSecret(accountId, id) {
      const doc = await findEndpoint(accountId, id);
      if (doc === null) return null;
      const secret = newSigningSecret();
      const at = now();
      // The replaced secret signs beside the new one for a day (two v1= in CDS-Signature), so the
      // owner can update the receiver without failed deliveries; one replaced before it is dropped.
      await run('rotate a secret', ({ maxTimeMS }) =>
        endpoints.updateOne(
          { _id: id, account_id: accountId },
          {
            $set: {
              secret,
              secret_hint: secret.slice(-4),
              previous_secret: doc.secret,
              previous_secret_hint: doc.secret_hint,
              previous_secret_expires_at: new Date(at.getTime() + PREVIOUS_SECRET_VALID_MS),
              updated_at: at,
            },
          },
          { maxTimeMS },
        ),
      );
      return secret;
    },
    async deleteEndpoint(accountId, id) {
      const deleted = await run('delete an endpoint', ({ maxTimeMS }) =>
        endpoints.deleteOne({ _id: id, account_id: accountId }, { maxTimeMS }),
      );
      if (deleted.deletedCount === 0) return false;
      await run('delete its deliveries', ({ maxTimeMS }) => deliveries.deleteMany({ endpoint_id: id }, { maxTimeMS }));
      await run('delete its claims', ({ maxTimeMS }) => claims.deleteMany({ endpoint_id: id }, { maxTimeMS }));
      return true;
    },
    async listDeliveries(accountId, id, limit = DEFAULT_LIST_LIMIT) {
      const n = Math.max(1, Math.min(MAX_LIST_LIMIT, Math.floor(limit)));
      const docs = await run('list deliveries', (o) =>
        deliveries
          .find({ endpoint_id: id, account_id: accountId }, o)
          .sort({ created_at: -1, _id: -1 })
          .limit(n)
          .toArray(),
      );
      return docs.map(toDelivery);
    },
    async resendDelivery(accountId, deliveryId) {
      const doc = await run('read a delivery', (o) =>
        deliveries.findOne({ _id: deliveryId, account_id: accountId }, o),
      );
      if (doc === null) return null;
      const at = now();
      const inFlight = doc.status === 'delivering' && doc.lease_until !== null && doc.lease_until > at;
      // In flight: only the retry window moves (making it due now would let a second sender take it).
      const set: Partial<DeliveryDoc> = inFlight
        ? { give_up_at: new Date(at.getTime() + opts.retryForMs) }
        : {
            status: 'pending',
            next_attempt_at: at,
            give_up_at: new Date(at.getTime() + opts.retryForMs),
            streak: 0,
            lease_owner: null,
            lease_until: null,
          };
      await run('re-send a delivery', ({ maxTimeMS }) =>
        deliveries.updateOne({ _id: deliveryId, account_id: accountId }, { $set: set }, { maxTimeMS }),
      );
      return toDelivery({ ...doc, ...set });
    },
    async sendTestEvent(accountId, id) {
      const endpoint = await findEndpoint(accountId, id);
      if (endpoint === null) return null;
      const at = now();
      const day = at.toISOString().slice(0, 10);
      const commodity = endpoint.commodities?.[0] ?? 'GOLD';
      const notification: Notification = {
        id: `evt_${randomBytes(16).toString('hex')}`,
        type: 'series.updated',
        test: true,
        data: {
          commodity,
          topic: 'price',
          series_type: 'price',
          first_date: day,
          newest_date: day,
          landed_at: at.toISOString(),
          url: new URL(
            `${API_PREFIX}/commodities/${commodity}/series?type=price&start_date=${day}&end_date=${day}`,
            publicOrigin,
          ).toString(),
        },
      };
      const doc = newDelivery(toEndpoint(endpoint), notification, at);
      await insertDelivery(doc);
      return toDelivery(doc);
    },
    async deleteAccount(accountId) {
      await run('delete the account endpoints', ({ maxTimeMS }) =>
        endpoints.deleteMany({ account_id: accountId }, { maxTimeMS }),
      );
      await run('delete the account deliveries', ({ maxTimeMS }) =>
        deliveries.deleteMany({ account_id: accountId }, { maxTimeMS }),
      );
      await run('delete the account claims', ({ maxTimeMS }) =>
        claims.deleteMany({ account_id: accountId }, { maxTimeMS }),
      );
    },

    // --- WebhookQueue ---
    async matchingEndpoints({ commodity, topic }) {
      const docs = await run('match endpoints', (o) =>
        endpoints
          .find(
            {
              enabled: true,
              $and: [
                { $or: [{ commodities: null }, { commodities: commodity }] },
                { $or: [{ types: null }, { types: topic }] },
              ],
            },
            o,
          )
          .toArray(),
      );
      return docs.map(toEndpoint).filter((e) => filterAccepts(e, commodity, topic));
    },
    async enqueue(targets, notification) {
      const at = now();
      const inserted = await Promise.all(targets.map((e) => insertDelivery(newDelivery(e, notification, at))));
      return inserted.filter(Boolean).length;
    },
    async claimDue(limit) {
      if (limit <= 0) return [];
      const at = now();
      const candidates = await pickDue(at, limit);
      // Each candidate is claimed on its own (in parallel): losing one to another notifier is normal.
      const attempts = await Promise.all(
        candidates.map(async (doc): Promise<{ doc: DeliveryDoc; lease: number; leaseUntil: Date } | undefined> => {
          const lease = doc.lease + 1;
          const won = await takeClaim({
            _id: claimIdOf(doc._id, lease),
            account_id: doc.account_id,
            endpoint_id: doc.endpoint_id,
            delivery_id: doc._id,
            owner,
            at,
          });
          if (!won) return undefined;
          // The attempt counts from its start: one cut short (a notifier killed mid-POST) is counted
          // too, and the next one is told by its CDS-Delivery-Attempt. release/abandon take it back.
          const set = {
            status: 'delivering' as const,
            attempts: doc.attempts + 1,
            lease,
            lease_owner: owner,
            lease_until: new Date(at.getTime() + leaseMs),
          };
          const updated = await run('lease a delivery', ({ maxTimeMS }) =>
            deliveries.updateOne({ _id: doc._id }, { $set: set }, { maxTimeMS }),
          );
          return updated.matchedCount === 1
            ? { doc: { ...doc, ...set }, lease, leaseUntil: set.lease_until }
            : undefined;
        }),
      );
      const held = attempts.filter((h) => h !== undefined);
      if (held.length === 0) return [];
      const ids = [...new Set(held.map((h) => h.doc.endpoint_id))];
      const found = await run('read the endpoints of claimed deliveries', (o) =>
        endpoints.find({ _id: { $in: ids } }, o).toArray(),
      );
      const byId = new Map(found.map((e) => [e._id, e]));
      return held.map(({ doc, lease, leaseUntil }) => {
        const endpoint = byId.get(doc.endpoint_id);
        return {
          delivery: toDelivery(doc),
          endpoint: endpoint === undefined ? null : toSigningEndpoint(endpoint),
          lease,
          leaseUntil,
        };
      });
    },
    async recordAttempt(claim, attempt) {
      const at = now();
      // Past its lease another notifier may hold the delivery: write nothing.
      if (at > claim.leaseUntil) return 'lease_lost';
      const doc = await run('read a leased delivery', (o) => deliveries.findOne({ _id: claim.delivery.id }, o));
      if (doc === null || doc.lease !== claim.lease) return 'lease_lost';
      const attempts = doc.attempts;
      const history = [attempt, ...doc.history].slice(0, HISTORY_LENGTH);
      let set: Partial<DeliveryDoc>;
      if (attempt.outcome === 'delivered') {
        set = { status: 'delivered', next_attempt_at: null, streak: 0 };
      } else if (at >= doc.give_up_at) {
        set = { status: 'failed', next_attempt_at: null, streak: doc.streak + 1 };
      } else {
        const streak = doc.streak + 1;
        const next = Math.min(at.getTime() + retryDelayMs(streak, opts.retry, random), doc.give_up_at.getTime());
        set = { status: 'pending', next_attempt_at: new Date(next), streak };
      }
      set = { ...set, attempts, history, last_attempt: attempt, lease_owner: null, lease_until: null };
      const updated = await run('record an attempt', ({ maxTimeMS }) =>
        deliveries.updateOne({ _id: doc._id }, { $set: set }, { maxTimeMS }),
      );
      if (updated.matchedCount === 0) return 'lease_lost';
      const known = claim.endpoint;
      const recordedDelivery = toDelivery({ ...doc, ...set });
      if (attempt.outcome === 'delivered') {
        // A healthy endpoint's last success is refreshed at most once a minute (one write fewer
        // per delivery on a busy endpoint); a failing one is cleared at once.
        const fresh =
          known !== null &&
          known.failing_since === null &&
          known.last_success_at !== null &&
          at.getTime() - known.last_success_at.getTime() < SUCCESS_REFRESH_MS;
        if (!fresh) {
          await run('mark an endpoint healthy', ({ maxTimeMS }) =>
            endpoints.updateOne(
              { _id: doc.endpoint_id },
              { $set: { failing_since: null, last_success_at: at } },
              { maxTimeMS },
            ),
          );
        }
        return { delivery: recordedDelivery, endpointDisabled: false, endpoint: known && withoutSecret(known) };
      }
      const { disabled } = await trackFailure(doc.endpoint_id, at);
      const endpoint = disabled
        ? await run('read a disabled endpoint', (o) => endpoints.findOne({ _id: doc.endpoint_id }, o))
        : undefined;
      return {
        delivery: recordedDelivery,
        endpointDisabled: disabled,
        endpoint:
          endpoint === undefined ? known && withoutSecret(known) : endpoint === null ? null : toEndpoint(endpoint),
      };
    },
    async release(claim) {
      if (!(await stillHeld(claim))) return;
      await run('release a delivery', ({ maxTimeMS }) =>
        deliveries.updateOne(
          { _id: claim.delivery.id },
          {
            $set: {
              status: 'pending',
              attempts: Math.max(0, claim.delivery.attempts - 1),
              lease_owner: null,
              lease_until: null,
            },
          },
          { maxTimeMS },
        ),
      );
    },
    async abandon(claim) {
      if (!(await stillHeld(claim))) return;
      await run('abandon a delivery', ({ maxTimeMS }) =>
        deliveries.updateOne(
          { _id: claim.delivery.id },
          {
            $set: {
              status: 'failed',
              attempts: Math.max(0, claim.delivery.attempts - 1),
              next_attempt_at: null,
              lease_owner: null,
              lease_until: null,
            },
          },
          { maxTimeMS },
        ),
      );
    },
    async sweepClaims() {
      const before = new Date(clock() - 2 * leaseMs);
      const swept = await run('sweep old lease claims', ({ maxTimeMS }) =>
        claims.deleteMany({ delivery_id: { $ne: null }, at: { $lt: before } }, { maxTimeMS }),
      );
      return swept.deletedCount;
    },
    async sweepDeliveries() {
      const before = new Date(clock() - DELIVERY_RETENTION_MS);
      const swept = await run('sweep old deliveries', ({ maxTimeMS }) =>
        deliveries.deleteMany({ status: { $in: ['delivered', 'failed'] }, created_at: { $lt: before } }, { maxTimeMS }),
      );
      return swept.deletedCount;
    },
    async oldestDueAt() {
      const at = now();
      const [oldest] = await run('find the oldest due delivery', (o) =>
        deliveries
          .find(dueFilter(at), { ...o, projection: { next_attempt_at: 1, lease_until: 1, status: 1 } })
          .sort({ next_attempt_at: 1 })
          .limit(1)
          .toArray(),
      );
      if (oldest === undefined) return null;
      return oldest.status === 'delivering' ? oldest.lease_until : oldest.next_attempt_at;
    },
  };
  return store;
}
