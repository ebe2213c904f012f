import { KEYS_STREAM, KeyEvent, type Plan } from '@cds/contracts';
import { followStream, schemaDecoder, type Messaging } from '@cds/messaging';
import type { Logger } from 'pino';

/** The plan of each account, from the key stream. */
export interface AccountPlans {
  /** The account's current plan; undefined for an account the stream does not know. */
  planOf(accountId: string): Plan | undefined;
  /** Every account event present at start has been applied. */
  isCaughtUp(): boolean;
  readonly caughtUp: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Follows CDS_KEYS from its first message (an ordered consume, as the gateway's key table does) and
 * keeps each account's plan, so a webhook is told only about topics its account's plan may read
 * (`topicAllowed`), and a downgrade applies from the next change on. The stream belongs to the
 * admin API: this throws while it does not exist yet (main.ts retries).
 */
export async function followAccountPlans(deps: { messaging: Messaging; logger: Logger }): Promise<AccountPlans> {
  const { messaging, logger } = deps;
  const plans = new Map<string, Plan>();
  const follower = await followStream<KeyEvent>(messaging, {
    stream: KEYS_STREAM,
    decode: schemaDecoder(KeyEvent),
    logger,
    apply: (event) => {
      // account.closed carries the plan too: once it replaces the account's earlier events on
      // their subject (one message per subject), it is all a replay finds of the account.
      if (
        event.type === 'account.created' ||
        event.type === 'account.plan_changed' ||
        event.type === 'account.closed'
      ) {
        plans.set(event.data.account_id, event.data.plan);
      }
    },
    onCaughtUp: (position) => logger.info({ position, accounts: plans.size }, 'account plans caught up'),
  });
  return {
    planOf: (accountId) => plans.get(accountId),
    isCaughtUp: () => follower.isCaughtUp(),
    caughtUp: follower.caughtUp,
    stop: () => follower.stop(),
  };
}
