import { randomBytes } from 'node:crypto';
import { API_PREFIX, type Notification, type NotificationTopic } from '@cds/contracts';
import type { Filter } from 'mongodb';
import { retryDelayMs, type RetryPolicy } from '../backoff.ts';
import { newSigningSecret, PREVIOUS_SECRET_VALID_MS } from '../signature.ts';
import type { Delivery, DeliveryAttempt, EndpointId, EndpointInput, SigningEndpoint, WebhookEndpoint } from './port.ts';

/**
 * The documents both adapters keep, and the pure steps from one state of them to the next. The
 * shapes are the same on either server, so a database written by one adapter reads with the other.
 */

export interface EndpointDoc extends Omit<
  WebhookEndpoint,
  'id' | 'previous_secret_hint' | 'previous_secret_expires_at'
> {
  _id: EndpointId;
  secret: string;
  /** The three `previous_secret` fields are absent from endpoints never rotated since they came in (read as null). */
  previous_secret?: string | null;
  previous_secret_hint?: string | null;
  previous_secret_expires_at?: Date | null;
}

export interface DeliveryDoc extends Omit<Delivery, 'id'> {
  _id: string;
  /** Generation of the last claim (0: never claimed). */
  lease: number;
  lease_owner: string | null;
  lease_until: Date | null;
  /** Failed attempts since the delivery was created or re-sent (the backoff exponent). */
  streak: number;
}

export const ENDPOINTS = 'endpoints';
export const DELIVERIES = 'deliveries';

export const HISTORY_LENGTH = 10;
/** How stale a healthy endpoint's `last_success_at` may get before a success writes it again. */
export const SUCCESS_REFRESH_MS = 60_000;
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 200;

export function toEndpoint(doc: EndpointDoc): WebhookEndpoint {
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

export function withoutSecret(endpoint: SigningEndpoint): WebhookEndpoint {
  const { secret: _secret, previous_secret: _previous, ...rest } = endpoint;
  return rest;
}

export function toSigningEndpoint(doc: EndpointDoc): SigningEndpoint {
  return { ...toEndpoint(doc), secret: doc.secret, previous_secret: doc.previous_secret ?? null };
}

export function toDelivery(doc: DeliveryDoc): Delivery {
  const { _id, lease: _l, lease_owner: _o, lease_until: _u, streak: _s, ...rest } = doc;
  return { id: _id, ...rest };
}

export function filterAccepts(endpoint: WebhookEndpoint, commodity: string, topic: NotificationTopic): boolean {
  return (
    endpoint.enabled &&
    (endpoint.commodities === null || endpoint.commodities.includes(commodity)) &&
    (endpoint.types === null || endpoint.types.includes(topic))
  );
}

/** The query of matchingEndpoints (its result is checked again with filterAccepts). */
export function matchFilter(commodity: string, topic: NotificationTopic): Filter<EndpointDoc> {
  return {
    enabled: true,
    $and: [{ $or: [{ commodities: null }, { commodities: commodity }] }, { $or: [{ types: null }, { types: topic }] }],
  };
}

/** Due at `at`: pending and due, or held by a lease that has ended. */
export function dueFilter(at: Date): Filter<DeliveryDoc> {
  return {
    $or: [
      { status: 'pending', next_attempt_at: { $lte: at } },
      { status: 'delivering', lease_until: { $lte: at } },
    ],
  };
}

export const newEndpointId = (): EndpointId => `whk_${randomBytes(12).toString('hex')}`;

/** A new endpoint with a new secret (returned beside it: the only time it is shown in full). */
export function newEndpoint(
  id: EndpointId,
  accountId: string,
  contactEmail: string,
  input: EndpointInput,
  at: Date,
): { doc: EndpointDoc; secret: string } {
  const secret = newSigningSecret();
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
  return { doc, secret };
}

/** The fields an owner's edit sets: enabling clears the failing run, disabling records why. */
export function endpointEdit(doc: EndpointDoc, input: EndpointInput, at: Date): Partial<EndpointDoc> {
  const enabling = input.enabled && !doc.enabled;
  return {
    url: input.url,
    commodities: input.commodities,
    types: input.types,
    enabled: input.enabled,
    updated_at: at,
    ...(enabling ? { disabled_reason: null, failing_since: null } : {}),
    ...(!input.enabled && doc.enabled ? { disabled_reason: 'owner' as const } : {}),
  };
}

/**
 * The fields a rotation sets. The replaced secret signs beside the new one for a day (two v1= in
 * CDS-Signature), so the owner can update the receiver without failed deliveries; one replaced
 * before it is dropped.
 */
export function rotation(doc: EndpointDoc, secret: string, at: Date): Partial<EndpointDoc> {
  return {
    secret,
    secret_hint: secret.slice(-4),
    previous_secret: doc.secret,
    previous_secret_hint: doc.secret_hint,
    previous_secret_expires_at: new Date(at.getTime() + PREVIOUS_SECRET_VALID_MS),
    updated_at: at,
  };
}

/** The fields a re-send sets. In flight: only the retry window moves (making it due now would let a second sender take it). */
export function resend(doc: DeliveryDoc, at: Date, retryForMs: number): Partial<DeliveryDoc> {
  const inFlight = doc.status === 'delivering' && doc.lease_until !== null && doc.lease_until > at;
  return inFlight
    ? { give_up_at: new Date(at.getTime() + retryForMs) }
    : {
        status: 'pending',
        next_attempt_at: at,
        give_up_at: new Date(at.getTime() + retryForMs),
        streak: 0,
        lease_owner: null,
        lease_until: null,
      };
}

export function newDelivery(
  endpoint: WebhookEndpoint,
  notification: Notification,
  at: Date,
  retryForMs: number,
): DeliveryDoc {
  return {
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
    give_up_at: new Date(at.getTime() + retryForMs),
    last_attempt: null,
    history: [],
    lease: 0,
    lease_owner: null,
    lease_until: null,
    streak: 0,
  };
}

/** The test notification sendTestEvent enqueues: a price update of the endpoint's first commodity, today. */
export function testNotification(endpoint: EndpointDoc, at: Date, publicOrigin: string): Notification {
  const day = at.toISOString().slice(0, 10);
  const commodity = endpoint.commodities?.[0] ?? 'GOLD';
  return {
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
}

/**
 * The fields recording an attempt sets on the delivery held: delivered; or failed, once past its
 * give-up time; or pending again after the backoff (never past the give-up time). The lease ends.
 */
export function attemptOutcome(
  doc: DeliveryDoc,
  attempt: DeliveryAttempt,
  at: Date,
  retry: RetryPolicy,
  random: () => number,
): Partial<DeliveryDoc> {
  let set: Partial<DeliveryDoc>;
  if (attempt.outcome === 'delivered') {
    set = { status: 'delivered', next_attempt_at: null, streak: 0 };
  } else if (at >= doc.give_up_at) {
    set = { status: 'failed', next_attempt_at: null, streak: doc.streak + 1 };
  } else {
    const streak = doc.streak + 1;
    const next = Math.min(at.getTime() + retryDelayMs(streak, retry, random), doc.give_up_at.getTime());
    set = { status: 'pending', next_attempt_at: new Date(next), streak };
  }
  const history = [attempt, ...doc.history].slice(0, HISTORY_LENGTH);
  return { ...set, attempts: doc.attempts, history, last_attempt: attempt, lease_owner: null, lease_until: null };
}

/**
 * After a success: whether the endpoint's health needs a write. A healthy endpoint's last success
 * is refreshed at most once a minute (one write fewer per delivery on a busy endpoint); a failing
 * one is cleared at once.
 */
export function successNeedsWrite(known: WebhookEndpoint | null, at: Date): boolean {
  return !(
    known !== null &&
    known.failing_since === null &&
    known.last_success_at !== null &&
    at.getTime() - known.last_success_at.getTime() < SUCCESS_REFRESH_MS
  );
}

/** The fields giving a held delivery back (release: pending, due as it was; abandon: failed); its attempt is uncounted. */
export function unheld(attempts: number, status: 'pending' | 'failed'): Partial<DeliveryDoc> {
  return {
    status,
    attempts: Math.max(0, attempts - 1),
    ...(status === 'failed' ? { next_attempt_at: null } : {}),
    lease_owner: null,
    lease_until: null,
  };
}
