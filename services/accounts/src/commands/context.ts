import { randomBytes } from 'node:crypto';
import type { AdminAccount, KeyEvent } from '@cds/contracts';
import { type ApiError, ForbiddenError, NotFoundError } from '@cds/http';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { KeyLog } from '../keys/key-log.ts';
import type { AccountState, KeysModel } from '../keys/model.ts';

/** An account as the admin API answers it (the contract its clients parse). */
export type AccountView = AdminAccount;

/**
 * Why a key creation was refused: the Free-key ceiling, the plan's cap per account, a closed
 * account, or (a session key) the Free session-key ceiling.
 */
export type KeyCreationRefusal = 'free_key_ceiling' | 'plan_cap' | 'account_closed' | 'session_key_ceiling';

/** The default of MAX_ACTIVE_FREE_KEYS (services/accounts/src/config.ts). */
export const DEFAULT_MAX_ACTIVE_FREE_KEYS = 500_000;
/** The default of MAX_ACTIVE_FREE_SESSION_KEYS: a tenth of the Free-key ceiling. */
export const DEFAULT_MAX_ACTIVE_FREE_SESSION_KEYS = 50_000;
/**
 * Active session keys one account may hold (one per dashboard session): a new one past it replaces
 * the account's oldest, so many sessions never pile up keys (docs/dashboard-security.md "Session keys").
 */
export const MAX_SESSION_KEYS_PER_ACCOUNT = 3;

export interface KeyCommandDeps {
  js: JetStreamClient;
  log: KeyLog;
  clock?: () => Date;
  /** Random bytes source (tests may pin it). */
  random?: (n: number) => Buffer;
  /** Attempts when another writer changed the same subject first. Default 3. */
  maxAttempts?: number;
  /**
   * Active Free keys across all accounts above which a new Free key is refused (409
   * free_key_ceiling): every gateway replica holds every active key in memory. Default 500,000.
   */
  maxActiveFreeKeys?: number;
  /**
   * Active session keys of Free accounts above which a new one is refused (409 free_key_ceiling,
   * the explorer then asks for a pasted key); apart from the Free-key ceiling, so sessions never
   * block a user's own keys. Default 50,000.
   */
  maxActiveFreeSessionKeys?: number;
  /** Told of each refused creation, by reason (the admin API's metrics). */
  onRefused?: (reason: KeyCreationRefusal) => void;
  /**
   * Sends a key.revoked event as a notice (core NATS, KEY_REVOCATION_NOTICES) just before it is
   * published to the key stream: gateways refuse the key without waiting for the stream to store it.
   */
  announceRevocation?: (event: KeyEvent) => void;
}

/** What every command reads: the dependencies with their defaults, and the per-account queues. */
export interface CommandContext {
  readonly js: JetStreamClient;
  readonly log: KeyLog;
  readonly model: KeysModel;
  readonly clock: () => Date;
  readonly random: (n: number) => Buffer;
  readonly maxAttempts: number;
  readonly maxActiveFreeKeys: number;
  readonly maxActiveFreeSessionKeys: number;
  readonly onRefused: (reason: KeyCreationRefusal) => void;
  readonly announceRevocation: (event: KeyEvent) => void;
  /** The tail of each account's chain of key creations and closures (oneAtATime). */
  readonly keyQueues: Map<string, Promise<unknown>>;
}

export function commandContext(deps: KeyCommandDeps): CommandContext {
  return {
    js: deps.js,
    log: deps.log,
    model: deps.log.model,
    clock: deps.clock ?? (() => new Date()),
    random: deps.random ?? randomBytes,
    maxAttempts: deps.maxAttempts ?? 3,
    maxActiveFreeKeys: deps.maxActiveFreeKeys ?? DEFAULT_MAX_ACTIVE_FREE_KEYS,
    maxActiveFreeSessionKeys: deps.maxActiveFreeSessionKeys ?? DEFAULT_MAX_ACTIVE_FREE_SESSION_KEYS,
    onRefused: (reason) => deps.onRefused?.(reason),
    announceRevocation: (event) => deps.announceRevocation?.(event),
    keyQueues: new Map(),
  };
}

/** A new random id with its prefix (`acc_…`, `key_…`). */
export function newId(ctx: CommandContext, prefix: string): string {
  return `${prefix}_${ctx.random(10).toString('hex')}`;
}

/** The envelope fields every event of the admin API carries. */
export function envelope(occurredAt: string) {
  return { version: 1 as const, occurred_at: occurredAt, source: 'admin-api' };
}

export function view(a: AccountState): AccountView {
  return {
    account_id: a.account_id,
    name: a.name,
    plan: a.plan,
    created_at: a.created_at,
    ...(a.closed_at !== undefined ? { closed_at: a.closed_at } : {}),
  };
}

/** The account, or 404 naming `account_id`. */
export function accountOf(ctx: CommandContext, accountId: string): AccountState {
  const a = ctx.model.accounts.get(accountId);
  if (a === undefined) throw new NotFoundError(`No account ${accountId}.`, 'account_id');
  return a;
}

/** The refusal of any change to a closed account: 403, like the plan's cap (docs/ingest.md). */
export function closedError(a: AccountState, what: string): ForbiddenError {
  return new ForbiddenError(`Account ${a.account_id} was closed at ${a.closed_at ?? '?'}: ${what}.`);
}

/** A refused key creation: counted by reason, then thrown by the caller. */
export function refused(ctx: CommandContext, reason: KeyCreationRefusal, err: ApiError): ApiError {
  ctx.onRefused(reason);
  return err;
}

/**
 * Key creations and the closure of one account run one after another in this process, so two
 * concurrent creations cannot both pass the active-key cap, and no creation interleaves with a
 * closure (the tail of each account's chain; dropped once idle).
 */
export function oneAtATime<T>(ctx: CommandContext, accountId: string, run: () => Promise<T>): Promise<T> {
  const previous = ctx.keyQueues.get(accountId) ?? Promise.resolve();
  const next = previous.then(run, run);
  const tail = next.catch(() => undefined);
  ctx.keyQueues.set(accountId, tail);
  void tail.then(() => {
    if (ctx.keyQueues.get(accountId) === tail) ctx.keyQueues.delete(accountId);
  });
  return next;
}
