import {
  DeliverPolicy,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';

export interface StreamFollower {
  /** Stream sequence of the last message handed to `onMessage` (0 before the first). */
  position(): number;
  /** How many times the watchdog had to recreate the consumer. */
  restarts(): number;
  stop(): Promise<void>;
}

export interface FollowOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  /** Called for every message, strictly in stream order, never twice for one sequence. */
  onMessage: (m: JsMsg) => void;
  logger: { warn(obj: object, msg: string): void };
  /** Start after this sequence (0: from the first message). */
  after?: number;
  /** How long the stream may be ahead without a message arriving before the consumer is recreated. */
  stallMs?: number;
  /** How often the watchdog compares the stream's last sequence with the position. */
  checkEveryMs?: number;
}

/**
 * Follows a stream from a sequence on, in order, through reconnects and server restarts. An
 * ordered consumer normally recreates itself after a reconnect; a watchdog makes sure of it: when
 * the stream holds messages past the last one delivered and none has arrived for `stallMs`, the
 * consumer is closed and recreated from the next sequence. The key tables of the gateway and the
 * admin API depend on this (a stalled follower would stop applying revocations).
 */
export async function followStream(opts: FollowOptions): Promise<StreamFollower> {
  const stallMs = opts.stallMs ?? 3_000;
  let position = opts.after ?? 0;
  let lastProgress = Date.now();
  let restarts = 0;
  let stopped = false;
  let current: { messages: ConsumerMessages; loop: Promise<void> } | undefined;

  const start = async () => {
    const consumer = await opts.js.consumers.get(
      opts.stream,
      position === 0
        ? { deliver_policy: DeliverPolicy.All }
        : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: position + 1 },
    );
    const messages = await consumer.consume();
    const loop = (async () => {
      for await (const m of messages) {
        // A recreated consumer starts after `position`; anything at or below it was handled.
        if (m.seq <= position) continue;
        position = m.seq;
        lastProgress = Date.now();
        opts.onMessage(m);
      }
    })().catch((err: unknown) => opts.logger.warn({ err, stream: opts.stream }, 'stream follower stopped; restarting'));
    current = { messages, loop };
  };

  let checking = false;
  const watchdog = setInterval(() => {
    if (checking || stopped) return;
    checking = true;
    void (async () => {
      try {
        const { state } = await opts.jsm.streams.info(opts.stream);
        const behind = state.messages > 0 && state.last_seq > position;
        if (!behind) {
          lastProgress = Date.now();
          return;
        }
        if (Date.now() - lastProgress < stallMs) return;
        opts.logger.warn(
          { stream: opts.stream, position, last_seq: state.last_seq },
          'stream follower stalled behind the stream; recreating its consumer',
        );
        restarts += 1;
        lastProgress = Date.now();
        const old = current;
        current = undefined;
        await old?.messages.close().catch(() => undefined);
        await old?.loop;
        if (!stopped) await start();
      } catch {
        // The server is unreachable: the next check tries again.
      } finally {
        checking = false;
      }
    })();
  }, opts.checkEveryMs ?? 1_000);
  watchdog.unref();

  await start();
  return {
    position: () => position,
    restarts: () => restarts,
    stop: async () => {
      stopped = true;
      clearInterval(watchdog);
      await current?.messages.close().catch(() => undefined);
      await current?.loop;
    },
  };
}
