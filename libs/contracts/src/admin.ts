import { z } from 'zod';
import { AccountId, KeyId } from './events.ts';
import { Plan } from './plans.ts';

// The answers of the internal admin API (services/ingest, never exposed by the ingress): the one
// definition its server returns and its clients (the dashboard) parse. Not in the public OpenAPI document.

/**
 * The body of `POST /admin/v1/accounts`. With `account_id` (a caller-chosen id, e.g. derived from a
 * dashboard user) creation is idempotent: the first call creates the account (201), any later one
 * answers the existing account (200), its name and plan unchanged, even when calls race.
 */
export const AdminCreateAccount = z.strictObject({
  name: z.string().trim().min(1).max(200),
  plan: Plan,
  account_id: AccountId.optional(),
});
export type AdminCreateAccount = z.infer<typeof AdminCreateAccount>;

/** An account as the admin API shows it; `closed_at` once it is closed (then it takes no keys). */
export const AdminAccount = z.object({
  account_id: AccountId,
  name: z.string(),
  plan: Plan,
  created_at: z.string(),
  closed_at: z.string().optional(),
});
export type AdminAccount = z.infer<typeof AdminAccount>;

/** A key's public metadata: never its hash, never the key. */
export const AdminKey = z.object({
  key_id: KeyId,
  account_id: AccountId,
  label: z.string().optional(),
  status: z.enum(['active', 'revoked']),
  created_at: z.string(),
  revoked_at: z.string().optional(),
  /** Present on a dashboard session key only: when the admin API revokes it (it is listed apart from the user's keys). */
  session_expires_at: z.string().optional(),
});
export type AdminKey = z.infer<typeof AdminKey>;

/**
 * The body of `POST /admin/v1/accounts/:id/session-keys`: a dashboard session key that lives
 * `ttl_seconds` (1 s to 24 h), outside the plan's cap on active keys (docs/dashboard-security.md).
 */
export const AdminCreateSessionKey = z.strictObject({
  ttl_seconds: z.number().int().min(1).max(86_400),
});
export type AdminCreateSessionKey = z.infer<typeof AdminCreateSessionKey>;

/** The answer to creating a key: its metadata and the plain key, shown this once. */
export const AdminCreatedKey = AdminKey.extend({ key: z.string().min(1) });
export type AdminCreatedKey = z.infer<typeof AdminCreatedKey>;

/** The answer to listing an account's keys. */
export const AdminKeyList = z.object({ keys: z.array(AdminKey) });
export type AdminKeyList = z.infer<typeof AdminKeyList>;

/**
 * The answer to `POST /admin/v1/accounts/:id/close`: the closed account and its keys, every one
 * revoked. Idempotent: closing a closed account answers the same (and revokes what is still active).
 */
export const AdminClosedAccount = AdminAccount.extend({ closed_at: z.string(), keys: z.array(AdminKey) });
export type AdminClosedAccount = z.infer<typeof AdminClosedAccount>;
