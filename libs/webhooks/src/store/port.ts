import type { Notification, NotificationTopic } from '@cds/contracts';

/**
 * The webhook store's ports: endpoints accounts register in the dashboard and the deliveries the
 * notifier makes to them, in one MongoDB API database (default `cds_webhooks`) that only this
 * library touches. The dashboard manages endpoints and reads deliveries through `WebhookAdmin`;
 * the notifier enqueues, claims and records deliveries through `WebhookQueue`. How a server keeps
 * them exclusive (claim documents on FerretDB, filtered single-document updates on MongoDB) is the
 * adapter's business (ferretdb-adapter.ts, mongodb-adapter.ts); `createWebhookStores` picks one.
 *
 * Every method may reject: each database call has a deadline (StoreUnavailableError from
 * `withDeadline`, `isDatabaseUnavailable` says it is transient). Writes are idempotent, so a call
 * retried after a failure is harmless.
 */

/** `whk_` + 24 lower-case hex digits. */
export type EndpointId = string;

export interface WebhookEndpoint {
  id: EndpointId;
  account_id: string;
  /** https:// only, checked by `checkWebhookUrl` when saved and again at every delivery. */
  url: string;
  /** null: every commodity. */
  commodities: string[] | null;
  /** null: every topic the account's plan may read. */
  types: NotificationTopic[] | null;
  enabled: boolean;
  /** Why it is disabled: by its owner, or by the notifier after failing for 3 days. */
  disabled_reason: 'owner' | 'failing' | null;
  /** Where the "endpoint disabled" notice goes (the owner's e-mail when it was registered). */
  contact_email: string;
  /** Last 4 characters of the signing secret (the secret itself is shown once). */
  secret_hint: string;
  /** Last 4 characters of the secret the last rotation replaced (null: never rotated). */
  previous_secret_hint: string | null;
  /**
   * Until then the replaced secret still signs deliveries, beside the current one (24 h after the
   * rotation); null: never rotated.
   */
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Start of the current run of failed deliveries; null after a success. */
  failing_since: Date | null;
  last_success_at: Date | null;
}

export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'failed';

export interface DeliveryAttempt {
  at: Date;
  /** delivered: 2xx. The rest are failures, retried until the delivery's 24 h run out. */
  outcome: 'delivered' | 'http_error' | 'timeout' | 'network_error' | 'refused_address' | 'too_large';
  status_code: number | null;
  /** A short description for the dashboard (never the response body). */
  error: string | null;
  duration_ms: number;
}

export interface Delivery {
  /** `<endpoint id>:<notification id>`: one delivery per endpoint and event (idempotent). */
  id: string;
  endpoint_id: EndpointId;
  account_id: string;
  event_id: string;
  event_type: string;
  /** The signed body's content. */
  notification: Notification;
  status: DeliveryStatus;
  /** Attempts started (one cut short, by a notifier killed mid-POST, counts too). */
  attempts: number;
  created_at: Date;
  next_attempt_at: Date | null;
  /** Retrying stops at this time (created_at + 24 h); a re-send moves it. */
  give_up_at: Date;
  last_attempt: DeliveryAttempt | null;
  /** The latest attempts, newest first (at most 10). */
  history: DeliveryAttempt[];
}

export interface EndpointInput {
  url: string;
  commodities: string[] | null;
  types: NotificationTopic[] | null;
  enabled: boolean;
}

/** Management, as the dashboard uses it; every call is scoped to an account (another account's ids are "not found"). */
export interface WebhookAdmin {
  /**
   * Creates an endpoint with a new secret; returns the secret in full (only here and in
   * rotateSecret). An account has at most MAX_WEBHOOK_ENDPOINTS, also when creates race: each
   * takes one of the account's places, and deleting an endpoint gives its place back.
   */
  createEndpoint(
    accountId: string,
    contactEmail: string,
    input: EndpointInput,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string } | 'limit_reached'>;
  /** The account's endpoints, oldest first, without their secrets. */
  listEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  getEndpoint(accountId: string, id: EndpointId): Promise<WebhookEndpoint | null>;
  /** Enabling clears `failing_since` and `disabled_reason`; disabling sets `disabled_reason: 'owner'`. */
  updateEndpoint(accountId: string, id: EndpointId, input: EndpointInput): Promise<WebhookEndpoint | null>;
  /**
   * A new secret, returned in full; the one it replaces keeps signing deliveries beside it for
   * PREVIOUS_SECRET_VALID_MS (24 h: `previous_secret_expires_at` of the endpoint). Only the secret
   * just replaced is kept: rotating again within the 24 h ends the older one at once.
   */
  rotateSecret(accountId: string, id: EndpointId): Promise<string | null>;
  /** Deletes the endpoint and its deliveries; false when the account has no such endpoint. */
  deleteEndpoint(accountId: string, id: EndpointId): Promise<boolean>;
  /** The newest deliveries of an endpoint first (default 50, at most 200). */
  listDeliveries(accountId: string, id: EndpointId, limit?: number): Promise<Delivery[]>;
  /**
   * Makes a delivery due again now (status pending, a fresh 24 h, the backoff starting over); one
   * in flight under a live lease only gets the fresh 24 h. null when unknown.
   */
  resendDelivery(accountId: string, deliveryId: string): Promise<Delivery | null>;
  /** Enqueues a test notification (`test: true`) for the endpoint, due now. */
  sendTestEvent(accountId: string, id: EndpointId): Promise<Delivery | null>;
  /** Erases every endpoint and delivery of an account (account deletion). */
  deleteAccount(accountId: string): Promise<void>;
}

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
   * process for `leaseMs`; each lease is the delivery's next generation and counts an attempt.
   * Two claimants never hold one delivery at once. Fair across accounts: due deliveries are taken
   * one per account in turn (not oldest first over all accounts), and none of an account that
   * already has `accountConcurrency` deliveries in flight.
   */
  claimDue(limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt of a held delivery: history, next attempt (backoff) or final status,
   * endpoint health (failing since, disabled once after `disableAfterMs`). 'lease_lost' (nothing
   * written) past the lease's end or when another claim has taken the delivery since.
   */
  recordAttempt(claim: ClaimedDelivery, attempt: DeliveryAttempt): Promise<RecordedAttempt | 'lease_lost'>;
  /** Gives a held delivery back untouched, due at once, its attempt uncounted (shutdown). Nothing once the lease is lost. */
  release(claim: ClaimedDelivery): Promise<void>;
  /** Ends a held delivery as failed without an attempt (its endpoint is gone or disabled). Nothing once the lease is lost. */
  abandon(claim: ClaimedDelivery): Promise<void>;
  /** When the oldest delivery that is due now became due (null: none is due). */
  oldestDueAt(): Promise<Date | null>;
  /**
   * Deletes what the adapter keeps per lease once it is older than two leases (the FerretDB
   * adapter's lease claims: their deliveries moved on long ago, and a stale claimant of an old
   * generation is still stopped by the lease check). Returns how many; the MongoDB adapter keeps
   * nothing per lease and returns 0.
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

export type WebhookAdapterName = 'ferretdb' | 'mongodb';

/** Both ports on one database: the dashboard uses it as `WebhookAdmin`, the notifier as `WebhookQueue`. */
export interface WebhookStores extends WebhookAdmin, WebhookQueue {
  /** Which adapter serves (chosen from the server's buildInfo unless forced). */
  readonly adapter: WebhookAdapterName;
}
