import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { MessagingSetupError } from './errors.ts';
import { isJetStreamApiError } from './streams.ts';

export interface ConsumerSpec {
  stream: string;
  /** Durable name: the server keeps this consumer's position across restarts. */
  durable: string;
  /** One subject filter (nats-server 2.9 has no `filter_subjects` list). */
  filterSubject?: string;
  /** Time the server waits for an ack before redelivering. Default 30 s. */
  ackWaitMs?: number;
  /**
   * Cap on delivered-but-unacked messages. Default 1: strict delivery order even across a crash
   * (the server redelivers an unacked message only after the ack wait, so with a higher cap newer
   * messages overtake the ones that were in flight), at one message per round trip. The services'
   * consumers (projector, notifier) set 1 000 so `consumeStream` can pull ahead and handle
   * micro-batches; that is safe because their handlers do not depend on order (the projections
   * fold order-independently, each delivery is independent).
   */
  maxAckPending?: number;
  /** Where a new consumer starts. Default `all` (replay the whole stream). */
  deliverPolicy?: 'all' | 'new';
}

/**
 * Creates the durable pull consumer, or updates its ack wait, filter and pending cap when they
 * differ. Its start position cannot change after creation; delete the consumer to replay.
 */
export async function ensureConsumer(jsm: JetStreamManager, spec: ConsumerSpec): Promise<ConsumerInfo> {
  const ackWait = nanos(spec.ackWaitMs ?? 30_000);
  const maxAckPending = spec.maxAckPending ?? 1;
  let existing: ConsumerInfo | undefined;
  try {
    existing = await jsm.consumers.info(spec.stream, spec.durable);
  } catch (err) {
    if (!isJetStreamApiError(err, JetStreamApiCodes.ConsumerNotFound)) {
      throw new MessagingSetupError(`could not read consumer ${spec.stream}/${spec.durable}: ${String(err)}`, {
        cause: err,
      });
    }
  }
  try {
    if (existing === undefined) {
      const config: Partial<ConsumerConfig> = {
        durable_name: spec.durable,
        ack_policy: AckPolicy.Explicit,
        ack_wait: ackWait,
        max_ack_pending: maxAckPending,
        deliver_policy: spec.deliverPolicy === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
        ...(spec.filterSubject !== undefined ? { filter_subject: spec.filterSubject } : {}),
      };
      return await jsm.consumers.add(spec.stream, config);
    }
    const current = existing.config;
    if (
      current.ack_wait === ackWait &&
      current.max_ack_pending === maxAckPending &&
      (current.filter_subject ?? undefined) === spec.filterSubject
    ) {
      return existing;
    }
    return await jsm.consumers.update(spec.stream, spec.durable, {
      ack_wait: ackWait,
      max_ack_pending: maxAckPending,
      ...(spec.filterSubject !== undefined ? { filter_subject: spec.filterSubject } : {}),
    });
  } catch (err) {
    throw new MessagingSetupError(`could not create consumer ${spec.stream}/${spec.durable}: ${String(err)}`, {
      cause: err,
    });
  }
}
