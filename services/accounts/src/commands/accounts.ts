import type { AccountClosed, AccountCreated, AccountPlanChanged, AdminClosedAccount, Plan } from '@cds/contracts';
import { ServiceUnavailableError } from '@cds/http';
import { activeKeysOf, keysOf, type KeyMetadata } from '../keys/model.ts';
import {
  accountOf,
  closedError,
  envelope,
  newId,
  oneAtATime,
  view,
  type AccountView,
  type CommandContext,
} from './context.ts';
import { revokeIfActive } from './keys.ts';
import { execute, publishKeyEvent } from './publish.ts';

/** A closed account and its keys (all revoked), as closing answers it. */
export type ClosedAccount = AdminClosedAccount;

export function createAccount(
  ctx: CommandContext,
  input: { name: string; plan: Plan; account_id?: string | undefined },
): Promise<{ account: AccountView; created: boolean }> {
  const accountId = input.account_id ?? newId(ctx, 'acc');
  return execute(ctx, async () => {
    const existing = ctx.model.accounts.get(accountId);
    if (existing !== undefined) return { account: view(existing), created: false };
    // The id is new to every attempt: a racing creation of the same account must meet the
    // subject-sequence check (the loser catches up, then finds the account above), never the
    // stream's duplicate window, whose ack would pass the loser off as the creator.
    const event: AccountCreated = {
      id: `account.created:${accountId}:${ctx.random(8).toString('hex')}`,
      type: 'account.created',
      ...envelope(ctx.clock().toISOString()),
      data: { account_id: accountId, name: input.name, plan: input.plan },
    };
    await publishKeyEvent(ctx, event, 0);
    return { account: view(accountOf(ctx, accountId)), created: true };
  });
}

export function getAccount(ctx: CommandContext, accountId: string): AccountView & { keys: KeyMetadata[] } {
  return { ...view(accountOf(ctx, accountId)), keys: keysOf(ctx.model, accountId) };
}

export function setPlan(
  ctx: CommandContext,
  accountId: string,
  plan: Plan,
): Promise<AccountView & { previous_plan: Plan }> {
  return execute(ctx, async () => {
    const current = accountOf(ctx, accountId);
    if (current.closed_at !== undefined) throw closedError(current, 'its plan cannot change');
    const previous = current.plan;
    if (plan === previous) return { ...view(current), previous_plan: previous };
    const event: AccountPlanChanged = {
      id: `account.plan_changed:${accountId}:${ctx.random(8).toString('hex')}`,
      type: 'account.plan_changed',
      ...envelope(ctx.clock().toISOString()),
      data: {
        account_id: accountId,
        plan,
        previous_plan: previous,
        name: current.name,
        created_at: current.created_at,
      },
    };
    await publishKeyEvent(ctx, event, current.seq);
    return { ...view(accountOf(ctx, accountId)), previous_plan: previous };
  });
}

/** Stores the account's closure unless it is closed already. */
function storeClosure(ctx: CommandContext, accountId: string): Promise<void> {
  return execute(ctx, async () => {
    const current = accountOf(ctx, accountId);
    if (current.closed_at !== undefined) return;
    const closedAt = ctx.clock().toISOString();
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
    await publishKeyEvent(ctx, event, current.seq);
  });
}

/** Closes the account (KeyCommands.closeAccount), then revokes every key of it still active. */
export function closeAccount(ctx: CommandContext, accountId: string): Promise<ClosedAccount> {
  return oneAtATime(ctx, accountId, async () => {
    await storeClosure(ctx, accountId);
    // Everything stored up to now is applied, so every key created before the closure is in
    // the model (a creation stored after it is revoked by its own command, see createKey).
    try {
      await ctx.log.catchUp();
    } catch (err) {
      throw new ServiceUnavailableError('The account is closed, but its keys are not all visible yet; retry.', err);
    }
    const revocations = await Promise.allSettled(
      activeKeysOf(ctx.model, accountId).map((k) => revokeIfActive(ctx, k.key_id)),
    );
    // A failure leaves the account closed and the rest revoked: calling close again finishes it.
    const failed = revocations.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) {
      throw failed.reason instanceof Error
        ? failed.reason
        : new ServiceUnavailableError('A revocation failed; close the account again.');
    }
    const closed = accountOf(ctx, accountId);
    return { ...view(closed), closed_at: closed.closed_at ?? '', keys: keysOf(ctx.model, accountId) };
  });
}
