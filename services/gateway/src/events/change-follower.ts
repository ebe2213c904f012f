import { CHANGES_STREAM, ChangeRecord } from '@cds/contracts';
import { consumeStream, followOptions, schemaDecoder } from '@cds/messaging';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@cds/telemetry';
import type { EventHub } from './hub.ts';

export interface ChangeFollower {
  /** Resolves once every change present at start is in the ring (streams are served from then on). */
  readonly caughtUp: Promise<void>;
  isCaughtUp(): boolean;
  /** The stream's last sequence as NATS says now, within 2 s; undefined when it does not answer. */
  streamLastSeq(): Promise<number | undefined>;
  stop(): Promise<void>;
}

/**
 * The one follower of CDS_CHANGES per gateway process (an ordered consume of libs/messaging, as the
 * key table follows CDS_KEYS): it replays the stream from its first message (the 7-day retention
 * window) into the hub's ring, then hands every new change to the hub as NATS delivers it. A record
 * failing its schema is logged and skipped.
 */
export async function followChanges(opts: {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  hub: EventHub;
  logger: Logger;
}): Promise<ChangeFollower> {
  const { state } = await opts.jsm.streams.info(CHANGES_STREAM);
  // Messages before first_seq are gone (retention): a Last-Event-ID before it cannot be resumed.
  opts.hub.ring.startAt(state.messages === 0 ? state.last_seq + 1 : state.first_seq);
  const target = state.messages === 0 ? 0 : state.last_seq;
  let caught = target === 0;
  let resolveCaughtUp: () => void = () => {};
  const caughtUp = new Promise<void>((resolve) => {
    resolveCaughtUp = resolve;
    if (caught) resolve();
  });
  const follower = await consumeStream<ChangeRecord>(
    { nc: opts.nc, js: opts.js, jsm: opts.jsm },
    {
      ...followOptions(opts.logger, CHANGES_STREAM),
      decode: schemaDecoder(ChangeRecord),
      handler: (batch) => {
        for (const m of batch) {
          if (m.value !== undefined) opts.hub.publish(m.seq, m.value);
          if (!caught && (m.seq >= target || m.pending === 0)) {
            caught = true;
            resolveCaughtUp();
            opts.logger.info({ position: m.seq, kept: opts.hub.ring.size }, 'change notifications caught up');
          }
        }
      },
    },
  );
  const streamLastSeq = async (): Promise<number | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 2_000)));
    try {
      return await Promise.race([
        opts.jsm.streams.info(CHANGES_STREAM).then(
          (info) => info.state.last_seq,
          () => undefined,
        ),
        deadline,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  return { caughtUp, isCaughtUp: () => caught, streamLastSeq, stop: () => follower.stop() };
}
