import { createHash } from 'node:crypto';
import { generateApiKey, PLANS, type AdminCreatedKey, type KeyCreated, type KeyRevoked } from '@cds/contracts';
import { ApiError, ForbiddenError, InvalidParameterError, NotFoundError, ServiceUnavailableError } from '@cds/http';
import {
  activeKeyCount,
  keyMetadata,
  keysOf,
  type AccountState,
  type KeyMetadata,
  type KeyState,
} from '../keys/model.ts';
import { accountOf, closedError, envelope, newId, oneAtATime, refused, type CommandContext } from './context.ts';
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
      // `cds_` + random base62 + checksum (docs/decisions.md "Keys"), from the random source.
      const key = generateApiKey(ctx.random);
      const keyId = newId(ctx, 'key');
      const event: KeyCreated = {
        id: `key.created:${keyId}`,
        type: 'key.created',
        ...envelope(ctx.clock().toISOString()),
        data: {
          key_id: keyId,
          account_id: owner.account_id,
          key_hash: hashKey(key),
          plan: owner.plan,
          ...(input.label !== undefined ? { label: input.label } : {}),
        },
      };
      await publishKeyEvent(ctx, event, 0);
      // Another admin replica may have closed the account after the check above (this queue
      // orders this process's commands only). Its closure is applied by now if it came first
      // on the stream, and then its revocation pass may have missed this key: revoke it here.
      // (A closure stored after this key finds the key in its own pass.)
      const after = accountOf(ctx, accountId);
      if (after.closed_at !== undefined) {
        await revokeIfActive(ctx, keyId);
        throw closedError(after, 'it takes no new keys');
      }
      const stored = ctx.model.keys.get(keyId);
      if (stored === undefined) throw new ServiceUnavailableError('The key was stored but is not visible yet.');
      return { ...keyMetadata(stored), key };
    }),
  );
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
