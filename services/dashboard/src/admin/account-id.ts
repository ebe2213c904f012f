import { createHash } from 'node:crypto';

/**
 * The admin account id of a dashboard user: `acc_` + the first 20 hex characters of SHA-256 of the
 * user id. Derived, not random, so creating the account twice (parallel confirmations, a retry
 * after a timeout, the CLI) names the same account and the admin API answers the existing one.
 */
export function accountIdOf(userId: string): string {
  return `acc_${createHash('sha256').update(userId).digest('hex').slice(0, 20)}`;
}
