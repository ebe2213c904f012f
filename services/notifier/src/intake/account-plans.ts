import { KEYS_STREAM, KeyEvent, type Plan } from '@cds/contracts';
import { followOptions, schemaDecoder, type Messaging } from '@cds/messaging';
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
  const { state } = await messaging.jsm.streams.info(KEYS_STREAM);
  const target = state.messages === 0 ? 0 : state.last_seq;
  let caught = target === 0;
  let resolveCaughtUp: () => void = () => undefined;
  const caughtUp = new Promise<void>((resolve) => {
    resolveCaughtUp = resolve;
    if (caught) resolve();
  });
  const follower = await messaging.consume<KeyEvent>({
    ...followOptions(logger, KEYS_STREAM),
    decode: schemaDecoder(KeyEvent),
    handler: (batch) => {
      for (const m of batch) {
        const event = m.value;
        if (event?.type === 'account.created' || event?.type === 'account.plan_changed') {
          plans.set(event.data.account_id, event.data.plan);
        }
        if (!caught && (m.seq >= target || m.pending === 0)) {
          caught = true;
          resolveCaughtUp();
          logger.info({ position: m.seq, accounts: plans.size }, 'account plans caught up');
        }
      }
    },
  });
  return {
    planOf: (accountId) => plans.get(accountId),
    isCaughtUp: () => caught,
    caughtUp,
    stop: () => follower.stop(),
  };
}
