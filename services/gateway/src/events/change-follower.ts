import { CHANGES_STREAM, ChangeRecord } from '@cds/contracts';
import { followStream, schemaDecoder } from '@cds/messaging';
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
  const follower = await followStream<ChangeRecord>(
    { nc: opts.nc, js: opts.js, jsm: opts.jsm },
    {
      stream: CHANGES_STREAM,
      decode: schemaDecoder(ChangeRecord),
      logger: opts.logger,
      // Messages before first_seq are gone (retention): a Last-Event-ID before it cannot be resumed.
      onFirstSeq: (firstSeq) => opts.hub.ring.startAt(firstSeq),
      apply: (change, seq) => opts.hub.publish(seq, change),
      onCaughtUp: (position) =>
        opts.logger.info({ position, kept: opts.hub.ring.size }, 'change notifications caught up'),
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
  return {
    caughtUp: follower.caughtUp,
    isCaughtUp: () => follower.isCaughtUp(),
    streamLastSeq,
    stop: () => follower.stop(),
  };
}
