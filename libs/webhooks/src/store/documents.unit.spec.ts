import { describe, expect, it } from 'vitest';
import { PREVIOUS_SECRET_VALID_MS } from '../signature.ts';
import {
  attemptOutcome,
  endpointEdit,
  HISTORY_LENGTH,
  newDelivery,
  newEndpoint,
  resend,
  rotation,
  successNeedsWrite,
  toEndpoint,
  unheld,
  type DeliveryDoc,
} from './documents.ts';
import type { DeliveryAttempt } from './port.ts';

const T0 = Date.parse('2026-11-02T12:00:00Z');
const DAY = 86_400_000;
const retry = { baseMs: 1_000, maxMs: 60_000 };
const input = { url: 'https://hooks.example.com/cds', commodities: null, types: null, enabled: true };
const { doc: endpointDoc } = newEndpoint('whk_000000000000000000000001', 'acc', 'a@example.com', input, new Date(T0));

function delivery(over: Partial<DeliveryDoc> = {}): DeliveryDoc {
  const notification = {
    id: `evt_${'1'.padStart(32, '0')}`,
    type: 'series.updated' as const,
    data: {
      commodity: 'GOLD',
      topic: 'price' as const,
      series_type: 'price' as const,
      first_date: '2026-11-02',
      newest_date: '2026-11-02',
      landed_at: new Date(T0).toISOString(),
      url: 'https://api.example.com/api/v1/commodities/GOLD/series?type=price',
    },
  };
  return { ...newDelivery(toEndpoint(endpointDoc), notification, new Date(T0), DAY), ...over };
}

const attempt = (outcome: DeliveryAttempt['outcome'], at: number): DeliveryAttempt => ({
  at: new Date(at),
  outcome,
  status_code: outcome === 'delivered' ? 204 : 500,
  error: null,
  duration_ms: 5,
});

describe('webhook documents: the pure steps both adapters take', () => {
  it('records a failure as the next try after the backoff, never past the give-up time, then as failed', () => {
    const held = delivery({ status: 'delivering', attempts: 3, streak: 2, lease: 3, lease_owner: 'a' });
    const at = new Date(T0 + 10_000);
    expect(attemptOutcome(held, attempt('timeout', at.getTime()), at, retry, () => 0)).toMatchObject({
      status: 'pending',
      streak: 3,
      next_attempt_at: new Date(at.getTime() + 4_000),
      attempts: 3,
      lease_owner: null,
      lease_until: null,
    });
    const late = new Date(T0 + DAY - 500);
    expect(attemptOutcome(held, attempt('timeout', late.getTime()), late, retry, () => 0).next_attempt_at).toEqual(
      held.give_up_at,
    );
    const end = new Date(T0 + DAY);
    expect(attemptOutcome(held, attempt('http_error', end.getTime()), end, retry, () => 0)).toMatchObject({
      status: 'failed',
      next_attempt_at: null,
    });
    expect(attemptOutcome(held, attempt('delivered', end.getTime()), end, retry, () => 0)).toMatchObject({
      status: 'delivered',
      next_attempt_at: null,
      streak: 0,
    });
  });

  it('keeps the last attempts newest first, at most HISTORY_LENGTH', () => {
    const old = Array.from({ length: HISTORY_LENGTH }, (_, i) => attempt('timeout', T0 + i));
    const at = new Date(T0 + 1_000);
    const set = attemptOutcome(delivery({ history: old }), attempt('delivered', at.getTime()), at, retry, () => 0);
    expect(set.history).toHaveLength(HISTORY_LENGTH);
    expect(set.history![0]!.outcome).toBe('delivered');
    expect(set.last_attempt?.outcome).toBe('delivered');
  });

  it('re-sends: due now with a fresh window, or only the window while a live lease holds it', () => {
    const at = new Date(T0 + DAY);
    expect(resend(delivery({ status: 'failed', streak: 5 }), at, DAY)).toEqual({
      status: 'pending',
      next_attempt_at: at,
      give_up_at: new Date(at.getTime() + DAY),
      streak: 0,
      lease_owner: null,
      lease_until: null,
    });
    const inFlight = delivery({ status: 'delivering', lease_until: new Date(at.getTime() + 1) });
    expect(resend(inFlight, at, DAY)).toEqual({ give_up_at: new Date(at.getTime() + DAY) });
  });

  it('edits an endpoint: enabling clears the failing run, disabling says the owner did it', () => {
    const at = new Date(T0 + 1);
    const failing = {
      ...endpointDoc,
      enabled: false,
      disabled_reason: 'failing' as const,
      failing_since: new Date(T0),
    };
    expect(endpointEdit(failing, input, at)).toMatchObject({
      enabled: true,
      disabled_reason: null,
      failing_since: null,
    });
    expect(endpointEdit(endpointDoc, { ...input, enabled: false }, at)).toMatchObject({
      enabled: false,
      disabled_reason: 'owner',
    });
    expect(endpointEdit(endpointDoc, input, at)).not.toHaveProperty('failing_since');
  });

  it('rotates: the replaced secret signs for PREVIOUS_SECRET_VALID_MS more', () => {
    const at = new Date(T0 + 5);
    expect(rotation(endpointDoc, 'whsec_new', at)).toEqual({
      secret: 'whsec_new',
      secret_hint: '_new',
      previous_secret: endpointDoc.secret,
      previous_secret_hint: endpointDoc.secret_hint,
      previous_secret_expires_at: new Date(at.getTime() + PREVIOUS_SECRET_VALID_MS),
      updated_at: at,
    });
  });

  it('writes a healthy endpoint after a success at most once a minute, a failing one at once', () => {
    const healthy = { ...toEndpoint(endpointDoc), last_success_at: new Date(T0) };
    expect(successNeedsWrite(healthy, new Date(T0 + 59_999))).toBe(false);
    expect(successNeedsWrite(healthy, new Date(T0 + 60_000))).toBe(true);
    expect(successNeedsWrite({ ...healthy, failing_since: new Date(T0) }, new Date(T0 + 1))).toBe(true);
    expect(successNeedsWrite(null, new Date(T0))).toBe(true);
  });

  it('gives a held delivery back with its attempt uncounted', () => {
    expect(unheld(3, 'pending')).toEqual({ status: 'pending', attempts: 2, lease_owner: null, lease_until: null });
    expect(unheld(0, 'failed')).toEqual({
      status: 'failed',
      attempts: 0,
      next_attempt_at: null,
      lease_owner: null,
      lease_until: null,
    });
  });
});
