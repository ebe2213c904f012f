import {
  jetstream,
  jetstreamManager,
  type ConsumerInfo,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectNats, type NatsConnectOptions } from './connection.ts';
import { consumeStream, type ConsumeOptions, type RunningConsumer } from './consume.ts';
import { ensureConsumer, type ConsumerSpec } from './consumer.ts';
import { encodeJson, publishToStream, type PublishOptions, type PublishResult } from './publish.ts';
import { ensureStream, type EnsureStreamResult, type StreamSpec } from './streams.ts';

/** One NATS connection with the JetStream operations the services use. */
export interface Messaging {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  ensureStream(spec: StreamSpec): Promise<EnsureStreamResult>;
  ensureConsumer(spec: ConsumerSpec): Promise<ConsumerInfo>;
  /** `payload` as JSON through `publishToStream`. */
  publish(subject: string, payload: unknown, opts: PublishOptions): Promise<PublishResult>;
  /** Consumes a stream (`consumeStream`): a durable work queue with acks, or an ordered follow. */
  consume<T>(opts: ConsumeOptions<T>): Promise<RunningConsumer>;
  /**
   * Drains subscriptions and pending publishes, then closes the connection. The drain waits on the
   * server, so it is bounded (`DRAIN_TIMEOUT_MS`): past that the connection is closed as it is, and
   * a half-dead connection (for example just after a NATS restart) cannot hang a shutdown.
   */
  close(): Promise<void>;
}

/** Longest wait for `close()` to drain before it closes the connection regardless. */
const DRAIN_TIMEOUT_MS = 5_000;

/** Wraps an open connection; the caller keeps ownership of `nc` unless it calls `close()`. */
async function createMessaging(nc: NatsConnection): Promise<Messaging> {
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  return {
    nc,
    js,
    jsm,
    ensureStream: (spec) => ensureStream(jsm, spec),
    ensureConsumer: (spec) => ensureConsumer(jsm, spec),
    publish: (subject, payload, opts) => publishToStream(js, subject, encodeJson(payload), opts),
    consume: (opts) => consumeStream({ nc, js, jsm }, opts),
    close: async () => {
      if (nc.isClosed()) return;
      const drained = nc.drain().then(
        () => true,
        () => false,
      );
      const timer = new AbortController();
      const inTime = await Promise.race([
        drained,
        sleep(DRAIN_TIMEOUT_MS, false, { signal: timer.signal }).catch(() => false),
      ]);
      timer.abort();
      if (!inTime && !nc.isClosed()) await nc.close().catch(() => undefined);
    },
  };
}

/** Connects (see `connectNats`) and returns the Messaging kit over the new connection. */
export async function connectMessaging(opts: NatsConnectOptions): Promise<Messaging> {
  const nc = await connectNats(opts);
  try {
    return await createMessaging(nc);
  } catch (err) {
    await nc.close();
    throw err;
  }
}
