import type { KeysModel } from './model.ts';

export interface SessionKeyExpiry {
  /** Revokes every active session key whose end has passed; resolves with how many. */
  sweep(): Promise<number>;
  stop(): void;
}

/** How often the sweep runs by default: an expired session key is refused within about this long. */
export const SESSION_KEY_SWEEP_MS = 5_000;

/**
 * Revokes dashboard session keys at their end (`session_expires_at`) through the one revocation
 * path there is (`revoke`, a `key.revoked` on the keys stream that every gateway applies), so an
 * expired key stops working everywhere even when no dashboard asked (a session that idled out, a
 * browser closed without logging out). Runs every `everyMs` once the model has replayed the stream;
 * every admin replica runs it, and a revocation another replica made first is no error (`revoke`
 * is revokeIfActive). A failed revocation is logged and tried again at the next sweep.
 */
export function startSessionKeyExpiry(deps: {
  model: KeysModel;
  revoke: (keyId: string) => Promise<void>;
  logger: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  ready: () => boolean;
  everyMs?: number;
  now?: () => number;
}): SessionKeyExpiry {
  const now = deps.now ?? Date.now;
  let running: Promise<number> | undefined;

  const sweepOnce = async (): Promise<number> => {
    if (!deps.ready()) return 0;
    const at = now();
    const due: string[] = [];
    for (const ids of deps.model.sessionKeysByAccount.values()) {
      for (const id of ids) {
        const end = deps.model.keys.get(id)?.session_expires_at;
        if (end !== undefined && Date.parse(end) <= at) due.push(id);
      }
    }
    let revoked = 0;
    for (const id of due) {
      try {
        await deps.revoke(id);
        revoked++;
      } catch (err) {
        deps.logger.error({ err, key_id: id }, 'expired session key not revoked; the next sweep retries');
      }
    }
    return revoked;
  };
  const sweep = (): Promise<number> => {
    running ??= sweepOnce().finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(
    () =>
      void sweep().then(
        (n) => {
          if (n > 0) deps.logger.info({ revoked: n }, 'expired dashboard session keys revoked');
        },
        (err: unknown) => deps.logger.error({ err }, 'session key expiry sweep failed; the next one retries'),
      ),
    deps.everyMs ?? SESSION_KEY_SWEEP_MS,
  );
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
