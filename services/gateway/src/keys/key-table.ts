import { hash } from 'node:crypto';
import type { KeyEvent, Plan } from '@cds/contracts';

export interface Principal {
  keyId: string;
  accountId: string;
  plan: Plan;
}

interface KeyEntry {
  keyId: string;
  accountId: string;
}

/** SHA-256 hex of a key, as key events carry it. */
export function hashKey(key: string): string {
  // The one-shot hash: no Hash object per request (this runs on every authenticated request).
  return hash('sha256', key, 'hex');
}

/**
 * The gateway's in-memory view of accounts and keys, folded from the key-lifecycle events. Only
 * active keys are held (by hash): a revocation removes its key and leaves nothing behind, so the
 * table is proportional to the active keys (plus one plan per account). No revoked key can come
 * back: the keys stream keeps one message per key subject, so a revocation replaces its key's
 * creation and a replay never sees the two out of order. The plan is read from the account at
 * lookup time, so a plan change applies to every key of the account at once.
 */
export class KeyTable {
  readonly #keysByHash = new Map<string, KeyEntry>();
  readonly #plans = new Map<string, Plan>();
  #ignored = 0;

  apply(event: KeyEvent): void {
    switch (event.type) {
      case 'account.created':
        this.#plans.set(event.data.account_id, event.data.plan);
        return;
      case 'account.plan_changed':
        this.#plans.set(event.data.account_id, event.data.plan);
        return;
      case 'key.created':
        if (!this.#plans.has(event.data.account_id)) this.#plans.set(event.data.account_id, event.data.plan);
        this.#keysByHash.set(event.data.key_hash, { keyId: event.data.key_id, accountId: event.data.account_id });
        return;
      case 'key.revoked':
        this.#keysByHash.delete(event.data.key_hash);
        return;
      case 'account.closed':
        // Nothing to hold: the admin API revokes the account's keys right after closing it, each
        // with its own key.revoked, and refuses new ones; the table needs no entry for the closure.
        this.#ignored++;
        return;
    }
  }

  /** Events applied that the table holds nothing for (`account.closed`). */
  get ignoredEvents(): number {
    return this.#ignored;
  }

  /** The principal of a well-formed key, or undefined when unknown or revoked. */
  lookupHash(keyHash: string): Principal | undefined {
    const entry = this.#keysByHash.get(keyHash);
    if (entry === undefined) return undefined;
    const plan = this.#plans.get(entry.accountId);
    return plan === undefined ? undefined : { ...entry, plan };
  }

  /** Looks up a key by its hash (the gateway checks the key's shape before calling). */
  lookup(key: string): Principal | undefined {
    return this.lookupHash(hashKey(key));
  }

  get activeKeys(): number {
    return this.#keysByHash.size;
  }

  /** Accounts whose plan the table holds. */
  get accounts(): number {
    return this.#plans.size;
  }
}
