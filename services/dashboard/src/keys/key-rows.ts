import { KeyId } from '@cds/contracts';
import type { AdminClient, AdminKey } from '../admin/admin-client.ts';
import { PageError } from '../http/page-error.ts';
import type { SignedInUser } from '../http/web.ts';
import type { UsageReader } from '../usage/index.ts';

const DAY_MS = 86_400_000;

/** A key as the pages list it: the admin API's fields, with what the dashboard joins in. */
export interface KeyRow extends AdminKey {
  last4?: string | undefined;
  lastUsedDay?: number | undefined;
}

/** True for a string shaped like a key id. */
export const isKeyId = (value: string): boolean => KeyId.safeParse(value).success;

/** The page for a key id this account does not hold (or that is no key id at all). */
export const noSuchKey = (): PageError => new PageError(404, 'No such key', 'This account has no such key.');

/** An account's own keys as the pages list them: last 4 characters and last day of use joined in. */
export interface KeyRows {
  /** Active keys first, newest first; `today` is the current UTC day number. */
  list(user: SignedInUser): Promise<{ rows: KeyRow[]; today: number }>;
  /** One of the user's keys; another account's key id is answered like an unknown one (404). */
  own(user: SignedInUser, keyId: string): Promise<KeyRow>;
}

export function createKeyRows(deps: {
  admin: AdminClient;
  usage: UsageReader;
  clock: () => number;
  /** Called when the usage read fails or its hash does not match the contract: the list is shown without last-use days. */
  onUsageError: (err: unknown) => void;
}): KeyRows {
  const list = async (user: SignedInUser) => {
    const [keys, usage] = await Promise.all([
      deps.admin.listKeys(user.account_id),
      deps.usage.read(user.account_id, 1).then(
        (usage) => {
          if (usage.unreadable.includes('usage')) {
            deps.onUsageError(new Error("the account's usage hash does not match its contract"));
          }
          return usage;
        },
        (err: unknown) => {
          deps.onUsageError(err);
          return undefined;
        },
      ),
    ]);
    // The explorer's session keys are the dashboard's, not the user's: not listed, not revocable
    // here (they end with their session), and outside the plan's cap the page speaks of.
    const rows = keys
      .filter((k) => k.session_expires_at === undefined)
      .map((k) => ({ ...k, last4: user.key_hints[k.key_id], lastUsedDay: usage?.lastUsedDay.get(k.key_id) }))
      .sort((a, b) =>
        a.status === b.status ? b.created_at.localeCompare(a.created_at) : a.status === 'active' ? -1 : 1,
      );
    return { rows, today: usage?.today ?? Math.floor(deps.clock() / DAY_MS) };
  };
  return {
    list,
    async own(user, keyId) {
      const key = (await list(user)).rows.find((k) => k.key_id === keyId);
      if (key === undefined) throw noSuchKey();
      return key;
    },
  };
}
