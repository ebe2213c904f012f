import { createHash } from 'node:crypto';
import { generateApiKey, PLANS, type AdminCreatedKey, type KeyCreated, type KeyRevoked } from '@cds/contracts';
import { ApiError, ForbiddenError, InvalidParameterError, NotFoundError, ServiceUnavailableError } from '@cds/http';
import {
  activeKeyCount,
  keyMetadata,
  keysOf,
  sessionKeysOf,
  type AccountState,
  type KeyMetadata,
  type KeyState,
} from '../keys/model.ts';
import {
  accountOf,
  closedError,
  envelope,
  MAX_SESSION_KEYS_PER_ACCOUNT,
  newId,
  oneAtATime,
  refused,
  type CommandContext,
} from './context.ts';
import { execute, publishKeyEvent } from './publish.ts';

/** A created key: its metadata and the plain key, returned once, never stored or published. */
export type CreatedKey = AdminCreatedKey;

/** SHA-256 hex of a key: the only form in which a key is stored or published. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function revocationOf(ctx: CommandContext, key: KeyState): KeyRevoked {
  return {
    id: `key.revoked:${key.key_id}`,
    type: 'key.revoked',
    ...envelope(ctx.clock().toISOString()),
    data: {
      key_id: key.key_id,
      account_id: key.account_id,
      key_hash: key.key_hash,
      ...(key.label !== undefined ? { label: key.label } : {}),
      created_at: key.created_at,
      ...(key.session_expires_at !== undefined ? { session_expires_at: key.session_expires_at } : {}),
    },
  };
}

/** Revokes a key unless it is revoked already (by a racing writer, too): no error for that. */
export function revokeIfActive(ctx: CommandContext, keyId: string): Promise<void> {
  return execute(ctx, async () => {
    const key = ctx.model.keys.get(keyId);
    if (key === undefined || key.revoked_at !== undefined) return;
    await publishKeyEvent(ctx, revocationOf(ctx, key), key.seq);
  });
}

/** Throws the refusal when `owner` may not get a new key now: closed, at its plan's cap, or Free at the ceiling. */
function refuseKeyCreation(ctx: CommandContext, owner: AccountState): void {
  if (owner.closed_at !== undefined) {
    throw refused(ctx, 'account_closed', closedError(owner, 'it takes no new keys'));
  }
  const limit = PLANS[owner.plan].maxActiveKeys;
  if (activeKeyCount(ctx.model, owner.account_id) >= limit) {
    throw refused(
      ctx,
      'plan_cap',
      new ForbiddenError(
        `Account ${owner.account_id} already has ${limit} active keys, the most its plan (${owner.plan}) allows: revoke one first.`,
      ),
    );
  }
  // The ceiling on all Free keys (docs/reliability.md "Key table"): checked against this
  // replica's model, so replicas creating at the same moment may pass it by as many keys.
  if (owner.plan === 'free' && ctx.model.activeFreeKeys >= ctx.maxActiveFreeKeys) {
    throw refused(
      ctx,
      'free_key_ceiling',
      new ApiError(
        'free_key_ceiling',
        'New Free API keys are paused: the service holds as many active Free keys as it can accept right ' +
          'now. Your existing keys keep working. Try again later, or choose a paid plan.',
      ),
    );
  }
}

/** Creates a key for the account (one creation or closure of an account at a time in this process). */
export function createKey(
  ctx: CommandContext,
  accountId: string,
  input: { label?: string | undefined },
): Promise<CreatedKey> {
  return oneAtATime(ctx, accountId, () =>
    execute(ctx, async () => {
      const owner = accountOf(ctx, accountId);
      refuseKeyCreation(ctx, owner);
      return publishNewKey(ctx, owner, input.label === undefined ? {} : { label: input.label });
    }),
  );
}

/**
 * Creates a dashboard session key that lives `ttlSeconds` (docs/dashboard-security.md "Session
 * keys"). It takes none of the plan's active-key slots and none of the Free-key ceiling: an
 * account holds at most MAX_SESSION_KEYS_PER_ACCOUNT of them, a new one past that revoking the
 * oldest first, and Free accounts' session keys have a ceiling of their own. The expiry sweep
 * (keys/session-expiry.ts) revokes it at its end.
 */
export function createSessionKey(ctx: CommandContext, accountId: string, ttlSeconds: number): Promise<CreatedKey> {
  return oneAtATime(ctx, accountId, () =>
    execute(ctx, async () => {
      const owner = accountOf(ctx, accountId);
      if (owner.closed_at !== undefined) {
        throw refused(ctx, 'account_closed', closedError(owner, 'it takes no new keys'));
      }
      const live = sessionKeysOf(ctx.model, accountId);
      const replaced = live.slice(0, Math.max(0, live.length - MAX_SESSION_KEYS_PER_ACCOUNT + 1));
      // Checked before anything is revoked: a refusal takes no session's key away.
      if (owner.plan === 'free' && ctx.model.activeFreeSessionKeys - replaced.length >= ctx.maxActiveFreeSessionKeys) {
        throw refused(
          ctx,
          'session_key_ceiling',
          new ApiError(
            'free_key_ceiling',
            'Dashboard session keys for Free accounts are paused: the service holds as many as it accepts ' +
              'right now. Paste one of your own keys into the explorer; your keys keep working.',
          ),
        );
      }
      for (const old of replaced) await revokeIfActive(ctx, old.key_id);
      const expires = new Date(ctx.clock().getTime() + ttlSeconds * 1000).toISOString();
      return publishNewKey(ctx, owner, { label: 'Dashboard session', session_expires_at: expires });
    }),
  );
}

/** Publishes a new key of `owner` and answers it with its plain key (shown once, never stored). */
async function publishNewKey(
  ctx: CommandContext,
  owner: AccountState,
  extra: { label?: string; session_expires_at?: string },
): Promise<CreatedKey> {
  // `cds_` + random base62 + checksum (docs/decisions.md "Keys"), from the random source.
  const key = generateApiKey(ctx.random);
  const keyId = newId(ctx, 'key');
  const event: KeyCreated = {
    id: `key.created:${keyId}`,
    type: 'key.created',
    ...envelope(ctx.clock().toISOString()),
    data: { key_id: keyId, account_id: owner.account_id, key_hash: hashKey(key), plan: owner.plan, ...extra },
  };
  await publishKeyEvent(ctx, event, 0);
  // Another admin replica may have closed the account after the check above (this queue
  // orders this process's commands only). Its closure is applied by now if it came first
  // on the stream, and then its revocation pass may have missed this key: revoke it here.
  // (A closure stored after this key finds the key in its own pass.)
  const after = accountOf(ctx, owner.account_id);
  if (after.closed_at !== undefined) {
    await revokeIfActive(ctx, keyId);
    throw closedError(after, 'it takes no new keys');
  }
  const stored = ctx.model.keys.get(keyId);
  if (stored === undefined) throw new ServiceUnavailableError('The key was stored but is not visible yet.');
  return { ...keyMetadata(stored), key };
}

export function listKeys(ctx: CommandContext, accountId: string): KeyMetadata[] {
  accountOf(ctx, accountId);
  return keysOf(ctx.model, accountId);
}

export function revokeKey(ctx: CommandContext, keyId: string): Promise<KeyMetadata> {
  return execute(ctx, async () => {
    const key = ctx.model.keys.get(keyId);
    if (key === undefined) throw new NotFoundError(`No key ${keyId}.`, 'key_id');
    if (key.revoked_at !== undefined) {
      throw new InvalidParameterError('key_id', `Key ${keyId} is already revoked; revocation is irreversible.`);
    }
    await publishKeyEvent(ctx, revocationOf(ctx, key), key.seq);
    return keyMetadata(ctx.model.keys.get(keyId) ?? key);
  });
}
