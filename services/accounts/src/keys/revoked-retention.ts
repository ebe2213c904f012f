import { KEYS_STREAM, keySubject } from '@cds/contracts';
import { compactStream, KEYS_PER_SUBJECT, REVOKED_KEY_RETENTION_MS } from '@cds/messaging';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { KeysModel } from './model.ts';

export interface RevokedKeyRetention {
  /**
   * Purges the subjects of keys revoked longer than the retention ago; resolves with how many. The
   * first sweep also trims the history the stream held before it was compacted by subject.
   */
  sweep(): Promise<number>;
  stop(): void;
}

/**
 * The last step of the keys stream's compaction (libs/messaging definitions): a revocation
 * replaces its key's creation on the key's subject, and this purges the revocation itself once it
 * is older than `retentionMs`, so the stream holds accounts, active keys and recent revocations,
 * never a whole history. A purge removes the subject's messages without an event, so this replica's
 * model forgets the key as well (another admin replica forgets it at its next start; until then it
 * lists the key as revoked, which it is). Runs every `everyMs` (default 1 h); a failed sweep
 * is logged and tried again at the next. The first runs once the model has replayed the stream.
 */
export function startRevokedKeyRetention(deps: {
  jsm: JetStreamManager;
  model: KeysModel;
  logger: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  stream?: string;
  retentionMs?: number;
  everyMs?: number;
  now?: () => number;
  /** Whether the model has replayed the stream (nothing is swept before). */
  ready: () => boolean;
}): RevokedKeyRetention {
  const stream = deps.stream ?? KEYS_STREAM;
  const retentionMs = deps.retentionMs ?? REVOKED_KEY_RETENTION_MS;
  const now = deps.now ?? Date.now;
  let running: Promise<number> | undefined;
  let compacted = false;

  const sweepOnce = async (): Promise<number> => {
    if (!deps.ready()) return 0;
    if (!compacted) {
      // A stream from before the per-subject limit keeps its history until trimmed (nats-server
      // 2.9 applies the limit to new messages only): one message per account and key from here on.
      const trimmed = await compactStream(deps.jsm, stream, KEYS_PER_SUBJECT);
      if (trimmed > 0) deps.logger.info({ trimmed }, 'keys stream subjects trimmed to their latest event');
      compacted = true;
    }
    const cutoff = now() - retentionMs;
    let purged = 0;
    for (const key of [...deps.model.keys.values()]) {
      if (key.revoked_at === undefined || Date.parse(key.revoked_at) > cutoff) continue;
      await deps.jsm.streams.purge(stream, { filter: keySubject(key.key_id) });
      deps.model.keys.delete(key.key_id);
      purged++;
    }
    return purged;
  };
  const sweep = (): Promise<number> => {
    running ??= sweepOnce().finally(() => (running = undefined));
    return running;
  };
  const tick = () =>
    void sweep().then(
      (n) => {
        if (n > 0) deps.logger.info({ purged: n }, 'revoked keys past their retention purged from the keys stream');
      },
      (err: unknown) => deps.logger.error({ err }, 'revoked-key retention sweep failed; next one retries'),
    );
  const timer = setInterval(tick, deps.everyMs ?? 3_600_000);
  timer.unref();
  // The first sweep as soon as the model has replayed the stream.
  const first = setInterval(() => {
    if (!deps.ready()) return;
    clearInterval(first);
    tick();
  }, 1_000);
  first.unref();
  return {
    sweep,
    stop: () => {
      clearInterval(timer);
      clearInterval(first);
    },
  };
}
