import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { followStream } from '@cds/messaging';
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
 * Replays the key stream from its first message into the key table with an ordered consumer and
 * keeps following it live, so a revocation reaches this replica as soon as NATS delivers it. An
 * event failing its schema is logged and skipped (the table never applies what it cannot parse).
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

  // followStream keeps the table live through reconnects and NATS restarts (a stalled follower
  // would silently stop applying revocations).
  const follower = await followStream({
    js,
    jsm,
    stream: KEYS_STREAM,
    logger: opts.logger,
    onMessage: (m) => {
      let parsed: unknown;
      try {
        parsed = m.json();
      } catch {
        parsed = undefined;
      }
      const event = KeyEvent.safeParse(parsed);
      if (event.success) {
        opts.table.apply(event.data);
        opts.onEvent?.(event.data);
      } else {
        opts.logger.error({ seq: m.seq, subject: m.subject }, 'key event failed its schema; skipped');
      }
      if (!caught && (m.seq >= target || m.info.pending === 0)) {
        caught = true;
        resolveCaughtUp();
        opts.logger.info({ position: m.seq, activeKeys: opts.table.activeKeys }, 'key table caught up');
      }
    },
  });

  return {
    caughtUp,
    isCaughtUp: () => caught,
    position: () => follower.position(),
    stop: () => follower.stop(),
  };
}
