import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { consumeStream, followOptions, schemaDecoder } from '@cds/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import { KEYS_STREAM, KeyEvent } from '@cds/contracts';
import type { Logger } from '@cds/telemetry';
import type { KeyTable } from './key-table.ts';

export interface KeyStreamFollower {
  /** Resolves once every event present at start has been applied (the gateway is ready then). */
  readonly caughtUp: Promise<void>;
  isCaughtUp(): boolean;
  /** Stream sequence of the last applied event. */
  position(): number;
  stop(): Promise<void>;
}

/**
 * Replays the key stream from its first message into the key table (an ordered consume of
 * libs/messaging) and keeps following it live, so a revocation reaches this replica as soon as NATS
 * delivers it. An event failing its schema is logged and skipped (the table never applies what it
 * cannot parse).
 */
export async function followKeyStream(opts: {
  nc: NatsConnection;
  table: KeyTable;
  logger: Logger;
  onEvent?: (event: KeyEvent) => void;
}): Promise<KeyStreamFollower> {
  const js = jetstream(opts.nc);
  const jsm = await jetstreamManager(opts.nc);
  // Caught up = applied everything up to the stream's last sequence as it was when we started.
  // An empty stream (never written, or purged: last_seq stays) has nothing to wait for.
  const { state } = await jsm.streams.info(KEYS_STREAM);
  const target = state.messages === 0 ? 0 : state.last_seq;
  let caught = target === 0;
  let resolveCaughtUp: () => void = () => {};
  const caughtUp = new Promise<void>((resolve) => {
    resolveCaughtUp = resolve;
    if (caught) resolve();
  });

  // An ordered follow with the follower watchdog keeps the table live through reconnects and NATS
  // restarts (a stalled follower would silently stop applying revocations).
  const follower = await consumeStream<KeyEvent>(
    { nc: opts.nc, js, jsm },
    {
      ...followOptions(opts.logger, KEYS_STREAM),
      decode: schemaDecoder(KeyEvent),
      handler: (batch) => {
        for (const m of batch) {
          if (m.value !== undefined) {
            opts.table.apply(m.value);
            opts.onEvent?.(m.value);
          }
          if (!caught && (m.seq >= target || m.pending === 0)) {
            caught = true;
            resolveCaughtUp();
            opts.logger.info({ position: m.seq, activeKeys: opts.table.activeKeys }, 'key table caught up');
          }
        }
      },
    },
  );

  return {
    caughtUp,
    isCaughtUp: () => caught,
    position: () => follower.position(),
    stop: () => follower.stop(),
  };
}
