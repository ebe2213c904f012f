import { consumeStream, followOptions, isJetStreamApiError, type PulledMessage } from '@cds/messaging';
import type { Logger } from '@cds/telemetry';
import { JetStreamApiCodes, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';

export interface BucketFollower {
  /** Whether the bucket is being followed (false while it does not exist yet). */
  following(): boolean;
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

/**
 * Follows a KV bucket another service writes (read only) into memory (the COT consistency
 * failures, the release ledger, the incidents): an ordered consume of libs/messaging (its watchdog
 * recreates the consumer after a stall) from the first message; until the bucket exists the
 * follower looks for it again every `retryMs` (5 s: one stream lookup), in the background. Each put whose value passes
 * `schema` (and `accept`, given the key) reaches `put`; a value failing them is logged and skipped;
 * a delete or purge reaches `remove`.
 */
export function followBucket<S extends z.ZodType>(opts: {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  bucket: string;
  /** What the bucket holds, for the log lines ("the release ledger"). */
  what: string;
  schema: S;
  accept?: (key: string, value: z.output<S>) => boolean;
  put: (key: string, value: z.output<S>) => void;
  remove: (key: string) => void;
  retryMs?: number;
}): BucketFollower {
  const { bucket, what, logger } = opts;
  const stream = `KV_${bucket}`;
  const prefix = `$KV.${bucket}.`;
  const retryMs = opts.retryMs ?? 5_000;
  const stopping = new AbortController();

  const apply = (m: PulledMessage): void => {
    if (!m.subject.startsWith(prefix)) return;
    const key = m.subject.slice(prefix.length);
    const operation = m.headers?.get('KV-Operation');
    if (operation === 'DEL' || operation === 'PURGE') {
      opts.remove(key);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(decoder.decode(m.data));
    } catch {
      parsed = undefined;
    }
    const value = opts.schema.safeParse(parsed);
    if (!value.success || (opts.accept !== undefined && !opts.accept(key, value.data))) {
      logger.error({ seq: m.seq, kv_key: key, bucket }, `${what}: a value failed its schema or its key; skipped`);
      return;
    }
    opts.put(key, value.data);
  };

  let consumer: { stop(): Promise<void> } | undefined;
  const started = (async () => {
    let missingLogged = false;
    for (let attempt = 1; !stopping.signal.aborted; attempt++) {
      try {
        await opts.jsm.streams.info(stream);
        // KV entries are not event envelopes (a delete has no payload): each is read by its
        // operation here, without the consumer's decode.
        const running = await consumeStream(
          { nc: opts.nc, js: opts.js, jsm: opts.jsm },
          { ...followOptions(logger, stream), handler: (batch) => batch.forEach(apply) },
        );
        if (stopping.signal.aborted) {
          await running.stop();
          return;
        }
        consumer = running;
        logger.info({ bucket }, `following ${what}`);
        return;
      } catch (err) {
        if (isJetStreamApiError(err, JetStreamApiCodes.StreamNotFound)) {
          if (!missingLogged) logger.info({ bucket }, `no bucket of ${what} yet; looking again later`);
          missingLogged = true;
        } else {
          logger.warn({ err, bucket, attempt }, `cannot follow ${what} yet; retrying`);
        }
      }
      await sleep(retryMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  })();

  return {
    following: () => consumer !== undefined,
    async stop() {
      stopping.abort();
      await started;
      await consumer?.stop();
    },
  };
}
