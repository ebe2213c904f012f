import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The signature header of a delivery (docs/notifications.md). */
export const SIGNATURE_HEADER = 'CDS-Signature';
/** How far a receiver lets `t` stray from its clock, in seconds (replays older than this are refused). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** A new signing secret: `whsec_` and 32 random bytes in base64url. The HMAC key is the whole string. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function hmacHex(secret: string, timestamp: number, body: string | Uint8Array): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(`${timestamp}.`);
  mac.update(body);
  return mac.digest('hex');
}

/**
 * The `CDS-Signature` value of a delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`,
 * with one `v1` per secret, in the order given (the current secret first, then the one it replaced
 * while that is still valid: see `signingSecrets`).
 */
export function signDelivery(
  secrets: string | readonly string[],
  body: string | Uint8Array,
  nowSeconds: number,
): string {
  const t = Math.floor(nowSeconds);
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new Error('signDelivery needs at least one secret');
  return [`t=${t}`, ...list.map((secret) => `v1=${hmacHex(secret, t, body)}`)].join(',');
}

/** How long the secret replaced by a rotation keeps signing deliveries, beside the new one. */
export const PREVIOUS_SECRET_VALID_MS = 24 * 60 * 60 * 1000;

/** The secrets of an endpoint, as the notifier holds them. */
export interface EndpointSecrets {
  secret: string;
  /** The secret the last rotation replaced (null: never rotated, or after it expired). */
  previous_secret: string | null;
  /** Until then `previous_secret` signs too. */
  previous_secret_expires_at: Date | null;
}

/**
 * The secrets a delivery sent at `nowMs` is signed with: the current one, and the one it replaced
 * until `previous_secret_expires_at` (so a receiver still holding the old secret keeps accepting
 * deliveries during the 24 h after a rotation, as with Stripe's "roll secret").
 */
export function signingSecrets(endpoint: EndpointSecrets, nowMs: number): string[] {
  const { secret, previous_secret: previous, previous_secret_expires_at: until } = endpoint;
  return previous !== null && until !== null && nowMs < until.getTime() ? [secret, previous] : [secret];
}

export type SignatureCheck =
  { ok: true; timestamp: number } | { ok: false; reason: 'malformed' | 'stale' | 'mismatch'; message: string };

/**
 * What a receiver does with a delivery: parses `t=…,v1=…` (several `v1` entries allowed), refuses a
 * `t` more than `toleranceSeconds` from its clock (a replay), and compares the HMAC of
 * `"<t>.<raw body>"` in constant time. The body must be the bytes received, before any JSON parsing.
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  body: string | Uint8Array,
  nowSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (header === undefined || header.length > 1_000) {
    return { ok: false, reason: 'malformed', message: 'no usable CDS-Signature header' };
  }
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (timestamp === undefined || candidates.length === 0) {
    return { ok: false, reason: 'malformed', message: 'CDS-Signature needs t=<unix seconds> and v1=<64 hex digits>' };
  }
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    return { ok: false, reason: 'stale', message: `t is more than ${toleranceSeconds} s from this clock` };
  }
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  const matched = candidates.some((c) => timingSafeEqual(Buffer.from(c, 'hex'), expected));
  return matched
    ? { ok: true, timestamp }
    : { ok: false, reason: 'mismatch', message: 'no v1 signature matches the body with this secret' };
}
