import type { AdminKey, KeyEvent, Plan } from '@cds/contracts';

export interface AccountState {
  account_id: string;
  name: string;
  plan: Plan;
  created_at: string;
  /** When the account was closed (`account.closed`): from then on it takes no keys and no plan change. */
  closed_at?: string;
  /** Sequence of the last event on this account's subject (for optimistic concurrency). */
  seq: number;
}

export interface KeyState {
  key_id: string;
  account_id: string;
  key_hash: string;
  label?: string;
  created_at: string;
  revoked_at?: string;
  /** A dashboard session key's end (its `session_expires_at`): absent on the user's own keys. */
  session_expires_at?: string;
  /** Sequence of the last event on this key's subject. */
  seq: number;
}

/** Accounts and keys as the key stream says, folded event by event. */
export interface KeysModel {
  accounts: Map<string, AccountState>;
  keys: Map<string, KeyState>;
  /**
   * Active keys per account (accounts with none are absent), kept as events are applied: the
   * user's own keys, which the plan's cap bounds; session keys are counted apart, below.
   */
  activeByAccount: Map<string, number>;
  /** Active own keys of accounts on the Free plan: what the Free-key ceiling bounds. */
  activeFreeKeys: number;
  /** Active dashboard session keys per account (accounts with none are absent): their ids. */
  sessionKeysByAccount: Map<string, Set<string>>;
  /** Active session keys of accounts on the Free plan: what the session-key ceiling bounds. */
  activeFreeSessionKeys: number;
  /** Stream sequence of the last event applied. */
  lastSeq: number;
}

export function createKeysModel(): KeysModel {
  return {
    accounts: new Map(),
    keys: new Map(),
    activeByAccount: new Map(),
    activeFreeKeys: 0,
    sessionKeysByAccount: new Map(),
    activeFreeSessionKeys: 0,
    lastSeq: 0,
  };
}

/**
 * Counts a key becoming active (`delta` 1) or not (-1) for its account: a session key in its
 * account's set, an own key in its account's count; in the Free counts too when the account is Free.
 */
function countActive(model: KeysModel, key: KeyState, delta: 1 | -1): void {
  const free = model.accounts.get(key.account_id)?.plan === 'free';
  if (key.session_expires_at !== undefined) {
    const ids = model.sessionKeysByAccount.get(key.account_id) ?? new Set<string>();
    if (delta === 1) ids.add(key.key_id);
    else ids.delete(key.key_id);
    if (ids.size === 0) model.sessionKeysByAccount.delete(key.account_id);
    else model.sessionKeysByAccount.set(key.account_id, ids);
    if (free) model.activeFreeSessionKeys += delta;
    return;
  }
  const n = (model.activeByAccount.get(key.account_id) ?? 0) + delta;
  if (n === 0) model.activeByAccount.delete(key.account_id);
  else model.activeByAccount.set(key.account_id, n);
  if (free) model.activeFreeKeys += delta;
}

/** An account enters the model, or changes plan: its active keys move into or out of the Free counts. */
function countPlan(model: KeysModel, accountId: string, from: Plan | undefined, to: Plan): void {
  const n = model.activeByAccount.get(accountId) ?? 0;
  const sessions = model.sessionKeysByAccount.get(accountId)?.size ?? 0;
  const sign = from === 'free' && to !== 'free' ? -1 : from !== 'free' && to === 'free' ? 1 : 0;
  model.activeFreeKeys += sign * n;
  model.activeFreeSessionKeys += sign * sessions;
}

/**
 * Applies one key-stream event at stream sequence `seq`. Events at or below the last applied
 * sequence are ignored, so a replay or redelivery changes nothing.
 */
export function applyKeyEvent(model: KeysModel, event: KeyEvent, seq: number): void {
  if (seq <= model.lastSeq) return;
  model.lastSeq = seq;
  switch (event.type) {
    case 'account.created': {
      if (model.accounts.has(event.data.account_id)) return;
      model.accounts.set(event.data.account_id, { ...event.data, created_at: event.occurred_at, seq });
      countPlan(model, event.data.account_id, undefined, event.data.plan);
      return;
    }
    case 'account.plan_changed': {
      const account = model.accounts.get(event.data.account_id);
      if (account === undefined) {
        // Its creation was compacted away (one message per subject): the change carries the rest.
        // One stored before the stream was compacted may lack them: the id names it, the change dates it.
        model.accounts.set(event.data.account_id, {
          account_id: event.data.account_id,
          name: event.data.name ?? event.data.account_id,
          plan: event.data.plan,
          created_at: event.data.created_at ?? event.occurred_at,
          seq,
        });
        countPlan(model, event.data.account_id, undefined, event.data.plan);
        return;
      }
      countPlan(model, event.data.account_id, account.plan, event.data.plan);
      account.plan = event.data.plan;
      account.seq = seq;
      return;
    }
    case 'account.closed': {
      const account = model.accounts.get(event.data.account_id);
      if (account === undefined) {
        // The account's earlier events were compacted away: the closure carries the whole account.
        model.accounts.set(event.data.account_id, {
          account_id: event.data.account_id,
          name: event.data.name,
          plan: event.data.plan,
          created_at: event.data.created_at,
          closed_at: event.data.closed_at,
          seq,
        });
        countPlan(model, event.data.account_id, undefined, event.data.plan);
        return;
      }
      // Closing is final: a second closure (never published by the admin API) keeps the first time.
      account.closed_at ??= event.data.closed_at;
      account.seq = seq;
      return;
    }
    case 'key.created': {
      if (model.keys.has(event.data.key_id)) return;
      const key: KeyState = {
        key_id: event.data.key_id,
        account_id: event.data.account_id,
        key_hash: event.data.key_hash,
        ...(event.data.label !== undefined ? { label: event.data.label } : {}),
        created_at: event.occurred_at,
        ...(event.data.session_expires_at !== undefined ? { session_expires_at: event.data.session_expires_at } : {}),
        seq,
      };
      model.keys.set(key.key_id, key);
      countActive(model, key, 1);
      return;
    }
    case 'key.revoked': {
      const key = model.keys.get(event.data.key_id);
      if (key === undefined) {
        // Its creation was compacted away: the revocation carries the key's label and creation time.
        model.keys.set(event.data.key_id, {
          key_id: event.data.key_id,
          account_id: event.data.account_id,
          key_hash: event.data.key_hash,
          ...(event.data.label !== undefined ? { label: event.data.label } : {}),
          created_at: event.data.created_at ?? event.occurred_at,
          revoked_at: event.occurred_at,
          ...(event.data.session_expires_at !== undefined ? { session_expires_at: event.data.session_expires_at } : {}),
          seq,
        });
        return;
      }
      if (key.revoked_at !== undefined) return;
      key.revoked_at = event.occurred_at;
      key.seq = seq;
      countActive(model, key, -1);
      return;
    }
  }
}

/** The public view of a key: never its hash (the admin API's contract, `AdminKey`). */
export type KeyMetadata = AdminKey;

export function keyMetadata(key: KeyState): KeyMetadata {
  return {
    key_id: key.key_id,
    account_id: key.account_id,
    ...(key.label !== undefined ? { label: key.label } : {}),
    status: key.revoked_at === undefined ? 'active' : 'revoked',
    created_at: key.created_at,
    ...(key.revoked_at !== undefined ? { revoked_at: key.revoked_at } : {}),
    ...(key.session_expires_at !== undefined ? { session_expires_at: key.session_expires_at } : {}),
  };
}

/**
 * An account's keys in creation order: by creation time (the stream's order is not creation order
 * once a revocation has replaced its key's creation), ties in the order applied.
 */
export function keysOf(model: KeysModel, accountId: string): KeyMetadata[] {
  return [...model.keys.values()]
    .filter((k) => k.account_id === accountId)
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
    .map(keyMetadata);
}

/** How many of an account's own keys are active (not revoked): what the plan's cap bounds. */
export function activeKeyCount(model: KeysModel, accountId: string): number {
  return model.activeByAccount.get(accountId) ?? 0;
}

/** An account's active session keys, oldest first. */
export function sessionKeysOf(model: KeysModel, accountId: string): KeyState[] {
  const ids = model.sessionKeysByAccount.get(accountId);
  if (ids === undefined) return [];
  return [...ids]
    .map((id) => model.keys.get(id))
    .filter((k): k is KeyState => k !== undefined)
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
}

/** An account's keys that are still active (not revoked), in no particular order. */
export function activeKeysOf(model: KeysModel, accountId: string): KeyState[] {
  return [...model.keys.values()].filter((k) => k.account_id === accountId && k.revoked_at === undefined);
}
