import { KEYS_STREAM, KeyEvent } from '@cds/contracts';
import { JetStreamApiCodes, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { consumeStream, followOptions, isJetStreamApiError, schemaDecoder } from '@cds/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyKeyEvent, createKeysModel, type KeysModel } from './model.ts';

export interface KeyLogLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface KeyLog {
  readonly model: KeysModel;
  /** True once every event stored before `start()` has been applied. */
  readonly ready: boolean;
  /** Resolves once the events up to stream sequence `seq` are applied (or rejects after the timeout). */
  waitFor(seq: number, timeoutMs?: number): Promise<void>;
  /** Waits until the model has applied everything the stream holds right now. */
  catchUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The accounts-and-keys model, event-sourced from the keys stream: an ordered consume of
 * libs/messaging replays the stream from the start and then follows it live (its watchdog
 * recreates the consumer after reconnects and NATS restarts).
 * An event that fails its schema is logged and skipped, never applied.
 */
export async function startKeyLog(deps: {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: KeyLogLogger;
  stream?: string;
}): Promise<KeyLog> {
  const stream = deps.stream ?? KEYS_STREAM;
  const model = createKeysModel();
  const lastStored = async (): Promise<number> => {
    try {
      return (await deps.jsm.streams.info(stream)).state.last_seq;
    } catch (err) {
      if (isJetStreamApiError(err, JetStreamApiCodes.StreamNotFound)) return 0;
      throw err;
    }
  };
  const initial = await lastStored();
  const waiters = new Set<{ seq: number; resolve: () => void }>();
  // An ordered follow with the follower watchdog keeps the model live through reconnects and NATS
  // restarts: a stalled log would leave every command answering "stored but not visible yet".
  const follower = await consumeStream<KeyEvent>(
    { nc: deps.nc, js: deps.js, jsm: deps.jsm },
    {
      ...followOptions(deps.logger, stream),
      decode: schemaDecoder(KeyEvent),
      handler: (batch) => {
        for (const m of batch) {
          if (m.value !== undefined) applyKeyEvent(model, m.value, m.seq);
          else model.lastSeq = Math.max(model.lastSeq, m.seq);
        }
        for (const w of waiters) {
          if (model.lastSeq >= w.seq) {
            waiters.delete(w);
            w.resolve();
          }
        }
      },
    },
  );

  const waitFor = async (seq: number, timeoutMs = 10_000): Promise<void> => {
    if (model.lastSeq >= seq) return;
    const waiter = { seq, resolve: () => undefined as void };
    const reached = new Promise<void>((resolve) => {
      waiter.resolve = resolve;
      waiters.add(waiter);
    });
    const timeout = sleep(timeoutMs, 'timeout' as const, { ref: false });
    const outcome = await Promise.race([reached, timeout]);
    if (outcome === 'timeout') {
      waiters.delete(waiter);
      throw new Error(`key stream not caught up to ${seq} within ${timeoutMs} ms (at ${model.lastSeq})`);
    }
  };

  let ready = initial === 0;
  if (!ready)
    void waitFor(initial, 24 * 3600_000).then(
      () => (ready = true),
      () => undefined,
    );

  return {
    model,
    get ready() {
      return ready;
    },
    waitFor,
    catchUp: async (timeoutMs) => waitFor(await lastStored(), timeoutMs),
    stop: async () => {
      await follower.stop();
      for (const w of waiters) w.resolve();
      waiters.clear();
    },
  };
}
