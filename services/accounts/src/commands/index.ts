import type { Plan } from '@cds/contracts';
import type { KeyMetadata } from '../keys/model.ts';
import { closeAccount, createAccount, getAccount, setPlan, type ClosedAccount } from './accounts.ts';
import { commandContext, type AccountView, type KeyCommandDeps } from './context.ts';
import { createKey, createSessionKey, listKeys, revokeIfActive, revokeKey, type CreatedKey } from './keys.ts';

export { type ClosedAccount } from './accounts.ts';
export {
  DEFAULT_MAX_ACTIVE_FREE_KEYS,
  DEFAULT_MAX_ACTIVE_FREE_SESSION_KEYS,
  MAX_SESSION_KEYS_PER_ACCOUNT,
  type AccountView,
  type KeyCommandDeps,
  type KeyCreationRefusal,
} from './context.ts';
export { hashKey, type CreatedKey } from './keys.ts';

export interface KeyCommands {
  /**
   * Creates an account; with `account_id`, idempotently: an account that exists already is
   * answered as it is (`created: false`), also to the losers of a race to create it.
   */
  createAccount(input: {
    name: string;
    plan: Plan;
    account_id?: string | undefined;
  }): Promise<{ account: AccountView; created: boolean }>;
  getAccount(accountId: string): AccountView & { keys: KeyMetadata[] };
  createKey(accountId: string, input: { label?: string | undefined }): Promise<CreatedKey>;
  /** A dashboard session key living `ttlSeconds` (keys.ts createSessionKey: bounds and ceiling). */
  createSessionKey(accountId: string, ttlSeconds: number): Promise<CreatedKey>;
  listKeys(accountId: string): KeyMetadata[];
  revokeKey(keyId: string): Promise<KeyMetadata>;
  /** Revokes a key unless it is revoked already, without an error then (the session-key expiry). */
  revokeIfActive(keyId: string): Promise<void>;
  setPlan(accountId: string, plan: Plan): Promise<AccountView & { previous_plan: Plan }>;
  /**
   * Closes the account for good (`account.closed`), then revokes every key of it still active.
   * Idempotent: on a closed account it only revokes what is still active, so a revocation that
   * failed halfway is finished by calling it again. From the closure on, key creations and plan
   * changes of the account are refused (403), also after a restart (the state comes from the stream).
   */
  closeAccount(accountId: string): Promise<ClosedAccount>;
}

/**
 * The account and key commands (accounts.ts, keys.ts). Each validates against the model replayed
 * from the keys stream, then publishes its event with the expected last sequence of the account's
 * or key's subject (publish.ts), so two admin replicas cannot both act on the same state: the loser
 * catches up, re-validates (and then usually fails validation, e.g. "already revoked") or retries.
 * After a publish the command waits until its own event is applied, so a following read sees it.
 */
export function createKeyCommands(deps: KeyCommandDeps): KeyCommands {
  const ctx = commandContext(deps);
  return {
    createAccount: (input) => createAccount(ctx, input),
    getAccount: (accountId) => getAccount(ctx, accountId),
    createKey: (accountId, input) => createKey(ctx, accountId, input),
    listKeys: (accountId) => listKeys(ctx, accountId),
    createSessionKey: (accountId, ttlSeconds) => createSessionKey(ctx, accountId, ttlSeconds),
    revokeKey: (keyId) => revokeKey(ctx, keyId),
    revokeIfActive: (keyId) => revokeIfActive(ctx, keyId),
    setPlan: (accountId, plan) => setPlan(ctx, accountId, plan),
    closeAccount: (accountId) => closeAccount(ctx, accountId),
  };
}
