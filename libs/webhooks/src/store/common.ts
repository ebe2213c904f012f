import { randomBytes } from 'node:crypto';
import type { Notification } from '@cds/contracts';
import { isDuplicateKeyError, withDeadline, type OperationDeadline } from '@cds/store';
import type { Collection, Db, Filter, OptionalUnlessRequiredId } from 'mongodb';
import type { RetryPolicy } from '../backoff.ts';
import { takeRoundRobin } from '../fair-share.ts';
import { newSigningSecret } from '../signature.ts';
import {
  attemptOutcome,
  DEFAULT_LIST_LIMIT,
  DELIVERIES,
  dueFilter,
  ENDPOINTS,
  endpointEdit,
  filterAccepts,
  MAX_LIST_LIMIT,
  matchFilter,
  newDelivery,
  resend,
  rotation,
  successNeedsWrite,
  testNotification,
  toDelivery,
  toEndpoint,
  toSigningEndpoint,
  withoutSecret,
  type DeliveryDoc,
  type EndpointDoc,
} from './documents.ts';
import {
  DELIVERY_RETENTION_MS,
  type ClaimedDelivery,
  type DeliveryAttempt,
  type RecordedAttempt,
  type WebhookAdmin,
  type WebhookQueue,
} from './port.ts';

export interface WebhookStoreSettings {
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
  /** Names this process's leases (`lease_owner`, and the FerretDB adapter's claim documents). */
  owner?: string;
  /** Prefixes the URL of test notifications. Default http://localhost:8080. */
  publicOrigin?: string;
  random?: () => number;
}

/** What both adapters work with: the collections, the settings with their defaults, the deadline. */
export interface StoreContext {
  db: Db;
  endpoints: Collection<EndpointDoc>;
  deliveries: Collection<DeliveryDoc>;
  clock: () => number;
  now: () => Date;
  timeoutMs: number;
  leaseMs: number;
  accountConcurrency: number;
  owner: string;
  random: () => number;
  publicOrigin: string;
  retry: RetryPolicy;
  retryForMs: number;
  disableAfterMs: number;
  /** One database call under the store's deadline. */
  run: <T>(what: string, op: Parameters<typeof withDeadline<T>>[2]) => Promise<T>;
}

export function storeContext(db: Db, opts: WebhookStoreSettings): StoreContext {
  const clock = opts.clock ?? Date.now;
  const deadline: OperationDeadline = { timeoutMs: opts.operationTimeoutMs ?? 5_000 };
  return {
    db,
    endpoints: db.collection<EndpointDoc>(ENDPOINTS),
    deliveries: db.collection<DeliveryDoc>(DELIVERIES),
    clock,
    now: () => new Date(clock()),
    timeoutMs: deadline.timeoutMs,
    leaseMs: opts.leaseMs ?? 60_000,
    accountConcurrency: opts.accountConcurrency ?? 4,
    owner: opts.owner ?? `notifier-${randomBytes(4).toString('hex')}`,
    random: opts.random ?? Math.random,
    publicOrigin: opts.publicOrigin ?? 'http://localhost:8080',
    retry: opts.retry,
    retryForMs: opts.retryForMs,
    disableAfterMs: opts.disableAfterMs,
    run: (what, op) => withDeadline(what, deadline, op),
  };
}

/** The indexes of `endpoints` and `deliveries`, the same for both adapters. */
export const SHARED_INDEXES = {
  endpoints: [
    { name: 'account', key: { account_id: 1 } },
    { name: 'enabled', key: { enabled: 1 } },
  ],
  deliveries: [
    { name: 'due', key: { status: 1, next_attempt_at: 1 } },
    { name: 'endpoint_newest', key: { endpoint_id: 1, created_at: -1 } },
    { name: 'account', key: { account_id: 1 } },
  ],
} as const;

/** Due deliveries read per claim round, per slot to fill: room to skip those of accounts at their cap. */
const CANDIDATES_PER_SLOT = 4;
/** Reads of due deliveries in one claim round (another only when the last was all capped accounts). */
const CLAIM_PASSES = 3;

/** Inserts a document with a unique `_id`; false when it exists already. */
export async function insertUnique<T extends { _id: string }>(
  ctx: StoreContext,
  what: string,
  coll: Collection<T>,
  doc: T,
): Promise<boolean> {
  try {
    await ctx.run(what, ({ maxTimeMS }) => coll.insertOne(doc as OptionalUnlessRequiredId<T>, { maxTimeMS }));
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

export const findEndpoint = (ctx: StoreContext, accountId: string, id: string) =>
  ctx.run('read an endpoint', (o) => ctx.endpoints.findOne({ _id: id, account_id: accountId }, o));

/**
 * Up to `limit` due deliveries, fairly: each account's deliveries in flight now (every notifier's
 * unexpired leases) count against its `accountConcurrency`; the due ones are read oldest first,
 * without the accounts at their cap, and taken one per account in turn. When a read was all
 * deliveries of accounts that reached their cap in this round, another read (without them) finds
 * the others. The cap is read, not locked: N notifiers claiming at the same instant may each fill
 * it, so an account briefly has up to N times its cap in flight. The adapters then lease each.
 */
export async function pickDue(ctx: StoreContext, at: Date, limit: number): Promise<DeliveryDoc[]> {
  const { deliveries, accountConcurrency } = ctx;
  const inFlight = await ctx.run('count deliveries in flight', (o) =>
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
    const due = await ctx.run('find due deliveries', (o) =>
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
}

/** The claims of deliveries just leased, with their endpoints (and secrets) read in one query. */
export async function withEndpoints(
  ctx: StoreContext,
  held: readonly { doc: DeliveryDoc; lease: number; leaseUntil: Date }[],
): Promise<ClaimedDelivery[]> {
  if (held.length === 0) return [];
  const ids = [...new Set(held.map((h) => h.doc.endpoint_id))];
  const found = await ctx.run('read the endpoints of claimed deliveries', (o) =>
    ctx.endpoints.find({ _id: { $in: ids } }, o).toArray(),
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
}

/** The writes recording an attempt takes, as an adapter makes them exclusive. */
export interface AttemptWrites {
  /** Writes the outcome on the delivery as read under the claim's lease; false when the lease was lost meanwhile. */
  record(doc: DeliveryDoc, set: Partial<DeliveryDoc>): Promise<boolean>;
  /** After a failure: starts the endpoint's failing run, or disables it (true for one caller only) once it has lasted `disableAfterMs`. */
  trackFailure(endpointId: string, at: Date): Promise<{ disabled: boolean }>;
}

/** WebhookQueue.recordAttempt, with the adapter's exclusive writes. */
export async function recordAttempt(
  ctx: StoreContext,
  claim: ClaimedDelivery,
  attempt: DeliveryAttempt,
  writes: AttemptWrites,
): Promise<RecordedAttempt | 'lease_lost'> {
  const { endpoints, run } = ctx;
  const at = ctx.now();
  // Past its lease another notifier may hold the delivery: write nothing.
  if (at > claim.leaseUntil) return 'lease_lost';
  const doc = await run('read a leased delivery', (o) => ctx.deliveries.findOne({ _id: claim.delivery.id }, o));
  if (doc === null || doc.lease !== claim.lease) return 'lease_lost';
  const set = attemptOutcome(doc, attempt, at, ctx.retry, ctx.random);
  if (!(await writes.record(doc, set))) return 'lease_lost';
  const known = claim.endpoint;
  const delivery = toDelivery({ ...doc, ...set });
  if (attempt.outcome === 'delivered') {
    if (successNeedsWrite(known, at)) {
      await run('mark an endpoint healthy', ({ maxTimeMS }) =>
        endpoints.updateOne(
          { _id: doc.endpoint_id },
          { $set: { failing_since: null, last_success_at: at } },
          { maxTimeMS },
        ),
      );
    }
    return { delivery, endpointDisabled: false, endpoint: known && withoutSecret(known) };
  }
  const { disabled } = await writes.trackFailure(doc.endpoint_id, at);
  const endpoint = disabled
    ? await run('read a disabled endpoint', (o) => endpoints.findOne({ _id: doc.endpoint_id }, o))
    : undefined;
  return {
    delivery,
    endpointDisabled: disabled,
    endpoint: endpoint === undefined ? known && withoutSecret(known) : endpoint === null ? null : toEndpoint(endpoint),
  };
}

/** The parts of the two ports both adapters implement alike (one database call per step, or reads). */
export type SharedOperations = Pick<
  WebhookAdmin,
  | 'listEndpoints'
  | 'getEndpoint'
  | 'updateEndpoint'
  | 'rotateSecret'
  | 'listDeliveries'
  | 'resendDelivery'
  | 'sendTestEvent'
> &
  Pick<WebhookQueue, 'matchingEndpoints' | 'enqueue' | 'oldestDueAt' | 'sweepDeliveries'>;

export function sharedOperations(ctx: StoreContext): SharedOperations {
  const { endpoints, deliveries, run } = ctx;
  const enqueueOne = (doc: DeliveryDoc) => insertUnique(ctx, 'enqueue a delivery', deliveries, doc);
  const deliveryOf = (endpoint: EndpointDoc, notification: Notification, at: Date) =>
    newDelivery(toEndpoint(endpoint), notification, at, ctx.retryForMs);

  return {
    async listEndpoints(accountId) {
      const docs = await run('list endpoints', (o) =>
        endpoints.find({ account_id: accountId }, o).sort({ created_at: 1 }).toArray(),
      );
      return docs.map(toEndpoint);
    },
    async getEndpoint(accountId, id) {
      const doc = await findEndpoint(ctx, accountId, id);
      return doc === null ? null : toEndpoint(doc);
    },
    async updateEndpoint(accountId, id, input) {
      const doc = await findEndpoint(ctx, accountId, id);
      if (doc === null) return null;
      const set = endpointEdit(doc, input, ctx.now());
      await run('update an endpoint', ({ maxTimeMS }) =>
        endpoints.updateOne({ _id: id, account_id: accountId }, { $set: set }, { maxTimeMS }),
      );
      return toEndpoint({ ...doc, ...set });
    },
    async rotateSecret(accountId, id) {
      const doc = await findEndpoint(ctx, accountId, id);
      if (doc === null) return null;
      const secret = newSigningSecret();
      await run('rotate a secret', ({ maxTimeMS }) =>
        endpoints.updateOne(
          { _id: id, account_id: accountId },
          { $set: rotation(doc, secret, ctx.now()) },
          { maxTimeMS },
        ),
      );
      return secret;
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
      const set = resend(doc, ctx.now(), ctx.retryForMs);
      await run('re-send a delivery', ({ maxTimeMS }) =>
        deliveries.updateOne({ _id: deliveryId, account_id: accountId }, { $set: set }, { maxTimeMS }),
      );
      return toDelivery({ ...doc, ...set });
    },
    async sendTestEvent(accountId, id) {
      const endpoint = await findEndpoint(ctx, accountId, id);
      if (endpoint === null) return null;
      const at = ctx.now();
      const doc = deliveryOf(endpoint, testNotification(endpoint, at, ctx.publicOrigin), at);
      await enqueueOne(doc);
      return toDelivery(doc);
    },

    async matchingEndpoints({ commodity, topic }) {
      const docs = await run('match endpoints', (o) => endpoints.find(matchFilter(commodity, topic), o).toArray());
      return docs.map(toEndpoint).filter((e) => filterAccepts(e, commodity, topic));
    },
    async enqueue(targets, notification) {
      const at = ctx.now();
      const inserted = await Promise.all(
        targets.map((e) => enqueueOne(newDelivery(e, notification, at, ctx.retryForMs))),
      );
      return inserted.filter(Boolean).length;
    },
    async oldestDueAt() {
      const [oldest] = await run('find the oldest due delivery', (o) =>
        deliveries
          .find(dueFilter(ctx.now()), { ...o, projection: { next_attempt_at: 1, lease_until: 1, status: 1 } })
          .sort({ next_attempt_at: 1 })
          .limit(1)
          .toArray(),
      );
      if (oldest === undefined) return null;
      return oldest.status === 'delivering' ? oldest.lease_until : oldest.next_attempt_at;
    },
    async sweepDeliveries() {
      const before = new Date(ctx.clock() - DELIVERY_RETENTION_MS);
      const swept = await run('sweep old deliveries', ({ maxTimeMS }) =>
        deliveries.deleteMany({ status: { $in: ['delivered', 'failed'] }, created_at: { $lt: before } }, { maxTimeMS }),
      );
      return swept.deletedCount;
    },
  };
}
