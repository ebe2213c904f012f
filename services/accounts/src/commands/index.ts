import { createHash, randomBytes } from 'node:crypto';
import {
  generateApiKey,
  KeyEvent,
  subjectFor,
  type AccountClosed,
  type AccountCreated,
  type AccountPlanChanged,
  type AdminAccount,
  type AdminClosedAccount,
  type AdminCreatedKey,
  type KeyCreated,
  type KeyRevoked,
  type Plan,
  PLANS,
} from '@cds/contracts';
import { ApiError, ForbiddenError, InvalidParameterError, NotFoundError, ServiceUnavailableError } from '@cds/http';
import { encodeJson, injectTraceContext, isJetStreamApiError } from '@cds/messaging';
import { JetStreamApiCodes, type JetStreamClient } from '@nats-io/jetstream';
import { headers as createHeaders } from '@nats-io/transport-node';
import type { KeyLog } from './key-log.ts';
import {
  activeKeyCount,
  activeKeysOf,
  keyMetadata,
  keysOf,
  type AccountState,
  type KeyMetadata,
  type KeyState,
} from './model.ts';

/** An account as the admin API answers it (the contract its clients parse). */
export type AccountView = AdminAccount;

/** A created key: its metadata and the plain key, returned once, never stored or published. */
export type CreatedKey = AdminCreatedKey;

/** A closed account and its keys (all revoked), as closing answers it. */
export type ClosedAccount = AdminClosedAccount;

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
  listKeys(accountId: string): KeyMetadata[];
  revokeKey(keyId: string): Promise<KeyMetadata>;
  setPlan(accountId: string, plan: Plan): Promise<AccountView & { previous_plan: Plan }>;
  /**
   * Closes the account for good (`account.closed`), then revokes every key of it still active.
   * Idempotent: on a closed account it only revokes what is still active, so a revocation that
   * failed halfway is finished by calling it again. From the closure on, key creations and plan
   * changes of the account are refused (403), also after a restart (the state comes from the stream).
   */
  closeAccount(accountId: string): Promise<ClosedAccount>;
}

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
  /** Told of each refused creation, by reason (the admin API's metrics). */
  onRefused?: (reason: KeyCreationRefusal) => void;
}

/** Why a key creation was refused: the Free-key ceiling, the plan's cap per account, a closed account. */
export type KeyCreationRefusal = 'free_key_ceiling' | 'plan_cap' | 'account_closed';

/** The default of MAX_ACTIVE_FREE_KEYS (services/ingest/src/config.ts). */
export const DEFAULT_MAX_ACTIVE_FREE_KEYS = 500_000;

/** SHA-256 hex of a key: the only form in which a key is stored or published. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Thrown (inside) when a publish lost an optimistic-concurrency race; the command re-validates. */
class ConcurrentChange extends Error {}

function view(a: AccountState): AccountView {
  return {
    account_id: a.account_id,
    name: a.name,
    plan: a.plan,
    created_at: a.created_at,
    ...(a.closed_at !== undefined ? { closed_at: a.closed_at } : {}),
  };
}

/** The refusal of any change to a closed account: 403, like the plan's cap (docs/ingest.md). */
function closedError(a: AccountState, what: string): ForbiddenError {
  return new ForbiddenError(`Account ${a.account_id} was closed at ${a.closed_at ?? '?'}: ${what}.`);
}

/**
 * The account and key commands. Each validates against the model replayed from the keys stream,
 * then publishes its event with `expect.lastSubjectSequence` of the account's or key's subject, so
 * two admin replicas cannot both act on the same state: the loser catches up, re-validates (and
 * then usually fails validation, e.g. "already revoked") or retries. After a publish the command
 * waits until its own event is applied, so a following read sees it.
 */
export function createKeyCommands(deps: KeyCommandDeps): KeyCommands {
  const clock = deps.clock ?? (() => new Date());
  const random = deps.random ?? randomBytes;
  const maxAttempts = deps.maxAttempts ?? 3;
  const maxActiveFreeKeys = deps.maxActiveFreeKeys ?? DEFAULT_MAX_ACTIVE_FREE_KEYS;
  const refused = (reason: KeyCreationRefusal, err: ApiError): ApiError => {
    deps.onRefused?.(reason);
    return err;
  };
  const { model } = deps.log;
  const newId = (prefix: string) => `${prefix}_${random(10).toString('hex')}`;

  const account = (accountId: string): AccountState => {
    const a = model.accounts.get(accountId);
    if (a === undefined) throw new NotFoundError(`No account ${accountId}.`, 'account_id');
    return a;
  };

  const publish = async (event: KeyEvent, expectedSubjectSeq: number): Promise<void> => {
    const checked = KeyEvent.parse(event);
    let seq: number;
    try {
      const ack = await deps.js.publish(subjectFor(checked), encodeJson(checked), {
        msgID: checked.id,
        headers: injectTraceContext(createHeaders()),
        expect: { lastSubjectSequence: expectedSubjectSeq },
        timeout: 5_000,
      });
      seq = ack.seq;
    } catch (err) {
      if (isJetStreamApiError(err, JetStreamApiCodes.StreamWrongLastSequence) || isJetStreamApiError(err, 10164)) {
        throw new ConcurrentChange('subject changed', { cause: err });
      }
      throw new ServiceUnavailableError('The event log (NATS) is unavailable; retry shortly.', err);
    }
    try {
      await deps.log.waitFor(seq);
    } catch (err) {
      throw new ServiceUnavailableError('The change was stored but is not visible yet; retry the read shortly.', err);
    }
  };

  /** Runs build-and-publish, re-validating after catching up when another writer won a race. */
  const execute = async <T>(attempt: () => Promise<T>): Promise<T> => {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (!(err instanceof ConcurrentChange)) throw err;
        if (n >= maxAttempts) {
          throw new ServiceUnavailableError('The account or key is being changed concurrently; retry shortly.', err);
        }
        await deps.log.catchUp().catch(() => undefined);
      }
    }
  };

  const envelope = (occurredAt: string) => ({ version: 1 as const, occurred_at: occurredAt, source: 'admin-api' });

  // Key creations and the closure of one account run one after another in this process, so two
  // concurrent creations cannot both pass the active-key cap, and no creation interleaves with a
  // closure (the tail of each account's chain; dropped once idle).
  const keyQueues = new Map<string, Promise<unknown>>();
  const oneAtATime = <T>(accountId: string, run: () => Promise<T>): Promise<T> => {
    const previous = keyQueues.get(accountId) ?? Promise.resolve();
    const next = previous.then(run, run);
    const tail = next.catch(() => undefined);
    keyQueues.set(accountId, tail);
    void tail.then(() => {
      if (keyQueues.get(accountId) === tail) keyQueues.delete(accountId);
    });
    return next;
  };

  const revocationOf = (key: KeyState): KeyRevoked => ({
    id: `key.revoked:${key.key_id}`,
    type: 'key.revoked',
    ...envelope(clock().toISOString()),
    data: {
      key_id: key.key_id,
      account_id: key.account_id,
      key_hash: key.key_hash,
      ...(key.label !== undefined ? { label: key.label } : {}),
      created_at: key.created_at,
    },
  });

  /** Revokes a key unless it is revoked already (by a racing writer, too): no error for that. */
  const revokeIfActive = (keyId: string): Promise<void> =>
    execute(async () => {
      const key = model.keys.get(keyId);
      if (key === undefined || key.revoked_at !== undefined) return;
      await publish(revocationOf(key), key.seq);
    });

  return {
    createAccount: (input) => {
      const accountId = input.account_id ?? newId('acc');
      return execute(async () => {
        const existing = model.accounts.get(accountId);
        if (existing !== undefined) return { account: view(existing), created: false };
        // The id is new to every attempt: a racing creation of the same account must meet the
        // subject-sequence check (the loser catches up, then finds the account above), never the
        // stream's duplicate window, whose ack would pass the loser off as the creator.
        const event: AccountCreated = {
          id: `account.created:${accountId}:${random(8).toString('hex')}`,
          type: 'account.created',
          ...envelope(clock().toISOString()),
          data: { account_id: accountId, name: input.name, plan: input.plan },
        };
        await publish(event, 0);
        return { account: view(account(accountId)), created: true };
      });
    },

    getAccount: (accountId) => ({ ...view(account(accountId)), keys: keysOf(model, accountId) }),

    createKey: (accountId, input) =>
      oneAtATime(accountId, () =>
        execute(async () => {
          const owner = account(accountId);
          if (owner.closed_at !== undefined) {
            throw refused('account_closed', closedError(owner, 'it takes no new keys'));
          }
          const limit = PLANS[owner.plan].maxActiveKeys;
          if (activeKeyCount(model, accountId) >= limit) {
            throw refused(
              'plan_cap',
              new ForbiddenError(
                `Account ${accountId} already has ${limit} active keys, the most its plan (${owner.plan}) allows: revoke one first.`,
              ),
            );
          }
          // The ceiling on all Free keys (docs/reliability.md "Key table"): checked against this
          // replica's model, so replicas creating at the same moment may pass it by as many keys.
          if (owner.plan === 'free' && model.activeFreeKeys >= maxActiveFreeKeys) {
            throw refused(
              'free_key_ceiling',
              new ApiError(
                'free_key_ceiling',
                'New Free API keys are paused: the service holds as many active Free keys as it can accept right ' +
                  'now. Your existing keys keep working. Try again later, or choose a paid plan.',
              ),
            );
          }
          // `cds_` + random base62 + checksum (docs/decisions.md "Keys"), from the random source.
          const key = generateApiKey(random);
          const keyId = newId('key');
          const event: KeyCreated = {
            id: `key.created:${keyId}`,
            type: 'key.created',
            ...envelope(clock().toISOString()),
            data: {
              key_id: keyId,
              account_id: owner.account_id,
              key_hash: hashKey(key),
              plan: owner.plan,
              ...(input.label !== undefined ? { label: input.label } : {}),
            },
          };
          await publish(event, 0);
          // Another admin replica may have closed the account after the check above (this queue
          // orders this process's commands only). Its closure is applied by now if it came first
          // on the stream, and then its revocation pass may have missed this key: revoke it here.
          // (A closure stored after this key finds the key in its own pass.)
          const after = account(accountId);
          if (after.closed_at !== undefined) {
            await revokeIfActive(keyId);
            throw closedError(after, 'it takes no new keys');
          }
          const stored = model.keys.get(keyId);
          if (stored === undefined) throw new ServiceUnavailableError('The key was stored but is not visible yet.');
          return { ...keyMetadata(stored), key };
        }),
      ),

    listKeys: (accountId) => {
      account(accountId);
      return keysOf(model, accountId);
    },

    revokeKey: (keyId) =>
      execute(async () => {
        const key = model.keys.get(keyId);
        if (key === undefined) throw new NotFoundError(`No key ${keyId}.`, 'key_id');
        if (key.revoked_at !== undefined) {
          throw new InvalidParameterError('key_id', `Key ${keyId} is already revoked; revocation is irreversible.`);
        }
        await publish(revocationOf(key), key.seq);
        return keyMetadata(model.keys.get(keyId) ?? key);
      }),

    setPlan: (accountId, plan) =>
      execute(async () => {
        const current = account(accountId);
        if (current.closed_at !== undefined) throw closedError(current, 'its plan cannot change');
        const previous = current.plan;
        if (plan === previous) return { ...view(current), previous_plan: previous };
        const event: AccountPlanChanged = {
          id: `account.plan_changed:${accountId}:${random(8).toString('hex')}`,
          type: 'account.plan_changed',
          ...envelope(clock().toISOString()),
          data: {
            account_id: accountId,
            plan,
            previous_plan: previous,
            name: current.name,
            created_at: current.created_at,
          },
        };
        await publish(event, current.seq);
        return { ...view(account(accountId)), previous_plan: previous };
      }),

    closeAccount: (accountId) =>
      oneAtATime(accountId, async () => {
        await execute(async () => {
          const current = account(accountId);
          if (current.closed_at !== undefined) return;
          const closedAt = clock().toISOString();
          const event: AccountClosed = {
            // Deterministic: an account closes once; a racing replica's same closure is the same fact.
            id: `account.closed:${accountId}`,
            type: 'account.closed',
            ...envelope(closedAt),
            data: {
              account_id: accountId,
              name: current.name,
              plan: current.plan,
              created_at: current.created_at,
              closed_at: closedAt,
            },
          };
          // Against the account's subject sequence: a plan change or another closure racing it
          // makes this attempt re-validate.
          await publish(event, current.seq);
        });
        // Everything stored up to now is applied, so every key created before the closure is in
        // the model (a creation stored after it is revoked by its own command, see createKey).
        try {
          await deps.log.catchUp();
        } catch (err) {
          throw new ServiceUnavailableError('The account is closed, but its keys are not all visible yet; retry.', err);
        }
        const revocations = await Promise.allSettled(
          activeKeysOf(model, accountId).map((k) => revokeIfActive(k.key_id)),
        );
        // A failure leaves the account closed and the rest revoked: calling close again finishes it.
        const failed = revocations.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed !== undefined) {
          throw failed.reason instanceof Error
            ? failed.reason
            : new ServiceUnavailableError('A revocation failed; close the account again.');
        }
        const closed = account(accountId);
        return { ...view(closed), closed_at: closed.closed_at ?? '', keys: keysOf(model, accountId) };
      }),
  };
}
