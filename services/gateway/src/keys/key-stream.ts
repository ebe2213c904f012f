import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { followStream, schemaDecoder } from '@cds/messaging';
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

/** The key follower's watchdog `stallMs` (see followKeyStream). */
const KEY_FOLLOWER_STALL_MS = 1_500;

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
  // An ordered follow with the follower watchdog keeps the table live through reconnects and NATS
  // restarts (a stalled follower would silently stop applying revocations).
  const follower = await followStream<KeyEvent>(
    { nc: opts.nc, js, jsm },
    {
      stream: KEYS_STREAM,
      // When the server holding its consumer dies (a NATS cluster losing a node), the follower
      // hears nothing until the watchdog recreates the consumer: 1.5 s without progress while the
      // stream is ahead (checked every 375 ms) bounds the revocation time then to about 2.5 s.
      stallMs: KEY_FOLLOWER_STALL_MS,
      decode: schemaDecoder(KeyEvent),
      logger: opts.logger,
      apply: (event) => {
        opts.table.apply(event);
        opts.onEvent?.(event);
      },
      onCaughtUp: (position) =>
        opts.logger.info({ position, activeKeys: opts.table.activeKeys }, 'key table caught up'),
    },
  );
  return {
    caughtUp: follower.caughtUp,
    isCaughtUp: () => follower.isCaughtUp(),
    position: () => follower.position(),
    stop: () => follower.stop(),
  };
}
