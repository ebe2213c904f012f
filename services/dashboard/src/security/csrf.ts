import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The CSRF token of a session (or of a visitor's pre-session cookie before log-in): an HMAC of
 * its id under SESSION_SECRET. Stateless, bound to the session, and rotated with it at log-in.
 */
export function csrfToken(secret: string, binding: string): string {
  return createHmac('sha256', secret).update(`csrf:${binding}`).digest('base64url');
}

/** True when `presented` is the token of `binding`; compares in constant time. */
export function csrfValid(secret: string, binding: string | undefined, presented: unknown): boolean {
  if (binding === undefined || binding === '' || typeof presented !== 'string' || presented.length > 100) return false;
  const expected = Buffer.from(csrfToken(secret, binding));
  const actual = Buffer.from(presented);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A keyed hash (hex) for ids and addresses kept in Redis, so neither a session id nor an e-mail is stored there. */
export function keyedHash(secret: string, purpose: string, value: string): string {
  return createHmac('sha256', secret).update(`${purpose}:${value}`).digest('hex').slice(0, 40);
}
