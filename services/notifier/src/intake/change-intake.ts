import { CHANGES_STREAM, ChangeRecord, PLANS, toNotification, topicAllowed, type Plan } from '@cds/contracts';
import { schemaDecoder, streamSpec, type Messaging, type RunningConsumer } from '@cds/messaging';
import type { WebhookQueue } from '@cds/webhooks';
import type { Logger } from 'pino';
import type { NotifierMetrics } from '../metrics.ts';

/** The durable consumer of the notifier on CDS_CHANGES. */
export const NOTIFIER_DURABLE = 'notifier';

export interface ChangeIntakeDeps {
  messaging: Messaging;
  queue: Pick<WebhookQueue, 'matchingEndpoints' | 'enqueue'>;
  logger: Logger;
  metrics: NotifierMetrics;
  /** Prefixes each notification's `url` (PUBLIC_API_ORIGIN). */
  publicOrigin: string;
  /**
   * The plan of an endpoint's account (the key stream): an endpoint hears only of topics its plan
   * may read. An account the stream does not know gets the free plan's topics.
   */
  planOf: (accountId: string) => Plan | undefined;
  /** Replicas of CDS_CHANGES if the notifier creates it. */
  replicas: number;
  /** Told after a change enqueued deliveries (the delivery loop claims them at once). */
  onEnqueued: () => void;
  ackWaitMs?: number;
}

/**
 * Reads every ChangeRecord of CDS_CHANGES through the durable consumer `notifier` and enqueues one
 * delivery per matching endpoint (its filters, and the topics its account's plan may read) before
 * the message is acked: a notifier that dies before the
 * enqueue gets the change again, and enqueuing it again changes nothing (idempotent ids). Order
 * does not matter here (each delivery is independent), so the consumer lets many messages be in
 * flight. A record failing its schema is logged and termed (never retried forever).
 */
export async function startChangeIntake(deps: ChangeIntakeDeps): Promise<RunningConsumer> {
  const { messaging, logger, metrics } = deps;
  const ackWaitMs = deps.ackWaitMs ?? 30_000;
  await messaging.ensureStream(streamSpec('changes', { replicas: deps.replicas }));
  await messaging.ensureConsumer({
    stream: CHANGES_STREAM,
    durable: NOTIFIER_DURABLE,
    ackWaitMs,
    maxAckPending: 1_000,
    // A first start delivers what lands from now on, not the stream's last 7 days.
    deliverPolicy: 'new',
  });
  return messaging.consume<ChangeRecord>({
    stream: CHANGES_STREAM,
    mode: { kind: 'durable', durable: NOTIFIER_DURABLE },
    decode: schemaDecoder(ChangeRecord),
    ackWaitMs,
    maxBatch: 64,
    retry: { initialDelayMs: 200, maxDelayMs: 5_000 },
    handler: async (batch, attempt) => {
      let woke = false;
      for (const msg of batch) {
        if (msg.value === undefined) continue;
        const change = msg.value;
        const endpoints = (
          await deps.queue.matchingEndpoints({ commodity: change.commodity, topic: change.topic })
        ).filter((e) => topicAllowed(PLANS[deps.planOf(e.account_id) ?? 'free'], change.topic));
        attempt.progress();
        if (endpoints.length === 0) {
          metrics.changes.add(['no_endpoint']);
          continue;
        }
        const added = await deps.queue.enqueue(endpoints, toNotification(change, deps.publicOrigin));
        attempt.progress();
        msg.working();
        metrics.changes.add(['enqueued']);
        metrics.enqueued.add([], added);
        if (added > 0) woke = true;
        logger.debug({ event: change.id, endpoints: endpoints.length, added }, 'change enqueued');
      }
      metrics.setPending(batch.at(-1)?.pending ?? 0);
      if (woke) deps.onEnqueued();
    },
    onPoison: (err, msg) => {
      metrics.changes.add(['poison']);
      logger.error(
        { seq: msg.seq, subject: msg.subject, reason: err.message },
        'change record failed its schema; skipped',
      );
    },
    onError: (err, batch, n) =>
      logger.warn({ err, firstSeq: batch[0]?.seq, attempt: n }, 'enqueuing changes failed; retrying in place'),
    watchdog: {
      stallMs: 60_000,
      onStall: (stuck) => logger.warn({ stuck }, 'change intake stalled; recovering'),
      onRecoveryFailed: (stuck) => logger.error({ stuck }, 'change intake still stalled after recovery'),
      onRecovered: (_s, ms) => logger.warn({ stalledForMs: ms }, 'change intake moving again'),
    },
  });
}
