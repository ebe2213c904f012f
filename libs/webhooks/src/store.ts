import type { Notification, NotificationTopic } from '@cds/contracts';

/**
 * The webhook store: endpoints accounts register in the dashboard and the deliveries the notifier
 * makes to them, in one MongoDB database (default `cds_webhooks`) that only this library touches.
 * The dashboard manages endpoints and reads deliveries through it; the notifier enqueues, claims and
 * records deliveries through it. (The shape is settled here so both sides code against one port.)
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
  /** Creates an endpoint with a new secret; returns the secret in full (only here and in rotateSecret). */
  createEndpoint(
    accountId: string,
    contactEmail: string,
    input: EndpointInput,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string } | 'limit_reached'>;
  listEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  getEndpoint(accountId: string, id: EndpointId): Promise<WebhookEndpoint | null>;
  /** Enabling clears `failing_since` and `disabled_reason`. */
  updateEndpoint(accountId: string, id: EndpointId, input: EndpointInput): Promise<WebhookEndpoint | null>;
  /**
   * A new secret, returned in full; the one it replaces keeps signing deliveries beside it for
   * PREVIOUS_SECRET_VALID_MS (24 h: `previous_secret_expires_at` of the endpoint). Only the secret
   * just replaced is kept: rotating again within the 24 h ends the older one at once.
   */
  rotateSecret(accountId: string, id: EndpointId): Promise<string | null>;
  deleteEndpoint(accountId: string, id: EndpointId): Promise<boolean>;
  /** The newest deliveries of an endpoint first. */
  listDeliveries(accountId: string, id: EndpointId, limit?: number): Promise<Delivery[]>;
  /** Makes a delivery due again now (status pending, a fresh 24 h); null when unknown. */
  resendDelivery(accountId: string, deliveryId: string): Promise<Delivery | null>;
  /** Enqueues a test notification (`test: true`) for the endpoint, due now. */
  sendTestEvent(accountId: string, id: EndpointId): Promise<Delivery | null>;
  /** Erases every endpoint and delivery of an account (account deletion). */
  deleteAccount(accountId: string): Promise<void>;
}
