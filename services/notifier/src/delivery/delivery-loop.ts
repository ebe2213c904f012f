import type { Mailer } from '@cds/mail';
import {
  signDelivery,
  signingSecrets,
  type ClaimedDelivery,
  type OutboundClient,
  type WebhookQueue,
} from '@cds/webhooks';
import type { Logger } from 'pino';
import type { NotifierMetrics } from '../metrics.ts';
import { endpointDisabledMail } from './mails.ts';

export const USER_AGENT = 'CommodityDataService-Webhooks/1';

export interface DeliveryLoopDeps {
  queue: WebhookQueue;
  client: Pick<OutboundClient, 'post'>;
  mailer: Pick<Mailer, 'send'>;
  logger: Logger;
  metrics: NotifierMetrics;
  /** ms since the epoch (signatures, queue age). */
  clock: () => number;
  /** The dashboard's public URL with its prefix (links in mails). */
  dashboardUrl: string;
  /** Deliveries sent at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** How often due deliveries are looked for when nothing wakes the loop (WEBHOOK_POLL_MS). */
  pollMs: number;
}

export interface DeliveryLoop {
  /** Looks for due deliveries now (after an enqueue). */
  wake(): void;
  /** How many deliveries this process is sending now. */
  inFlight(): number;
  /** The last claim round failed (the database is unreachable): for /readyz. */
  healthy(): boolean;
  /** Stops claiming, lets the deliveries in flight finish (each is bounded by its timeout), releases any left. */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

/**
 * The headers of one attempt (docs/notifications.md); `CDS-Signature` carries one `v1` per secret
 * (the current one, and for 24 h after a rotation the one it replaced).
 */
export function deliveryHeaders(claim: ClaimedDelivery, secrets: readonly string[], body: string, nowMs: number) {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'cds-event-id': claim.delivery.event_id,
    'cds-event-type': claim.delivery.event_type,
    'cds-delivery-attempt': String(claim.delivery.attempts),
    'cds-signature': signDelivery(secrets, body, Math.floor(nowMs / 1000)),
  };
}

/**
 * One claimed delivery: abandoned when its endpoint is gone or disabled, else POSTed signed and the
 * attempt recorded; an endpoint the store disables for failing gets one mail to its contact address.
 */
export async function deliverOne(deps: DeliveryLoopDeps, claim: ClaimedDelivery): Promise<void> {
  const { queue, metrics } = deps;
  const { delivery, endpoint } = claim;
  const log = deps.logger.child({ delivery: delivery.id, endpoint: delivery.endpoint_id });
  if (endpoint === null || !endpoint.enabled) {
    // Deleted or disabled since it was enqueued: nothing to send to (its owner may re-send it).
    await queue.abandon(claim);
    metrics.deliveries.add(['abandoned']);
    log.info({ reason: endpoint === null ? 'endpoint deleted' : 'endpoint disabled' }, 'delivery abandoned');
    return;
  }
  const body = JSON.stringify(delivery.notification);
  const now = deps.clock();
  const headers = deliveryHeaders(claim, signingSecrets(endpoint, now), body, now);
  // A redirect answer is a failed attempt (the client never follows one).
  const attempt = await deps.client.post(endpoint.url, body, headers);
  metrics.attempts.add([attempt.outcome]);
  const recorded = await queue.recordAttempt(claim, attempt);
  if (recorded === 'lease_lost') {
    log.warn(
      { outcome: attempt.outcome },
      'lease lost before the attempt was recorded (another notifier took it over)',
    );
    return;
  }
  const status = recorded.delivery.status;
  if (status === 'delivered' || status === 'failed') metrics.deliveries.add([status]);
  log[attempt.outcome === 'delivered' ? 'debug' : 'info'](
    {
      outcome: attempt.outcome,
      status_code: attempt.status_code,
      error: attempt.error,
      attempt: recorded.delivery.attempts,
      next_attempt_at: recorded.delivery.next_attempt_at,
      status,
    },
    'delivery attempt',
  );
  if (recorded.endpointDisabled && recorded.endpoint !== null) {
    metrics.endpointsDisabled.add([]);
    log.warn({ url: recorded.endpoint.url }, 'endpoint disabled after failing; telling its owner');
    try {
      await deps.mailer.send(endpointDisabledMail(recorded.endpoint, deps.dashboardUrl));
    } catch (err) {
      log.error({ err }, 'could not send the "endpoint disabled" mail');
    }
  }
}

/** The loop's sleep between claim rounds, which a wake (an enqueue, a slot freed) ends at once. */
export class Waker {
  #woken = false;
  #wakeUp: (() => void) | undefined;

  wake(): void {
    this.#woken = true;
    this.#wakeUp?.();
  }

  /** A claim round begins: wakes from now on end the next sleep. */
  reset(): void {
    this.#woken = false;
  }

  /** Sleeps until woken or `ms`, not at all when woken since the reset or `stopped`; true when the time ran out. */
  sleep(ms: number, stopped: () => boolean): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (this.#woken || stopped()) return resolve(false);
      const done = (timedOut: boolean) => {
        clearTimeout(timer);
        this.#wakeUp = undefined;
        resolve(timedOut);
      };
      const timer = setTimeout(() => done(true), ms);
      this.#wakeUp = () => done(false);
    });
  }
}

/**
 * The queue's periodic chores: the queue-age gauge at every tick, old lease claims swept every
 * twelfth, finished deliveries past their retention about once an hour at the default poll.
 */
function startHousekeeping(
  deps: Pick<DeliveryLoopDeps, 'queue' | 'metrics' | 'logger' | 'clock' | 'pollMs'>,
): NodeJS.Timeout {
  const { queue, metrics, logger } = deps;
  let ticks = 0;
  const timer = setInterval(
    () => {
      queue.oldestDueAt().then(
        (at) => metrics.setQueueAge(at === null ? null : at.getTime(), deps.clock()),
        () => undefined,
      );
      // Old lease claims go in one sweep now and then rather than one write per delivery.
      if (++ticks % 12 === 0) {
        queue.sweepClaims().catch((err: unknown) => logger.warn({ err }, 'sweeping old lease claims failed'));
      }
      // Finished deliveries past their retention: about once an hour at the default poll.
      if (ticks % 720 === 1) {
        queue.sweepDeliveries().catch((err: unknown) => logger.warn({ err }, 'sweeping old deliveries failed'));
      }
    },
    Math.max(1_000, Math.min(deps.pollMs * 5, 15_000)),
  );
  timer.unref();
  return timer;
}

/**
 * The delivery loop: claims due deliveries (leases, so replicas share the work and a killed
 * process's deliveries come back when their lease ends; the store takes them fairly across accounts,
 * at most `accountConcurrency` of one account in flight), at most `concurrency` at once, POSTs each
 * signed, and records the attempt (backoff, give-up, endpoint health). An endpoint the store
 * disables for failing gets one mail to its contact address.
 */
export function startDeliveryLoop(deps: DeliveryLoopDeps): DeliveryLoop {
  const { queue, logger, metrics } = deps;
  const inflight = new Map<string, { claim: ClaimedDelivery; done: Promise<void> }>();
  let stopped = false;
  let lastRoundOk = true;
  const waker = new Waker();
  const wake = () => waker.wake();
  /**
   * Slots claimed together while deliveries are in flight: each claim round reads the due
   * deliveries (a scan on FerretDB), so refilling one slot at a time would cost a round per delivery.
   */
  const batchMin = Math.max(1, Math.floor(deps.concurrency / 4));

  const track = (claim: ClaimedDelivery) => {
    const done = deliverOne(deps, claim)
      .catch((err: unknown) =>
        // The lease runs out and the delivery is taken again: at least once.
        logger.error({ err, delivery: claim.delivery.id }, 'delivery failed unexpectedly; it will be retried'),
      )
      .finally(() => {
        inflight.delete(claim.delivery.id);
        metrics.setInFlight(inflight.size);
        wake();
      });
    inflight.set(claim.delivery.id, { claim, done });
    metrics.setInFlight(inflight.size);
  };

  const loop = (async () => {
    let timedOut = true;
    while (!stopped) {
      waker.reset();
      const free = deps.concurrency - inflight.size;
      let full = false;
      // Claim when a batch of slots is free, when nothing is in flight, or at each poll.
      if (free > 0 && (free >= batchMin || inflight.size === 0 || timedOut)) {
        try {
          const claims = await queue.claimDue(free);
          lastRoundOk = true;
          for (const claim of claims) {
            if (stopped) {
              await queue.release(claim).catch(() => undefined);
              continue;
            }
            track(claim);
          }
          full = claims.length === free;
        } catch (err) {
          lastRoundOk = false;
          logger.warn({ err }, 'claiming due deliveries failed; retrying');
        }
      }
      // A full round may have left more due: claim again as soon as a slot frees (track wakes).
      timedOut = !full || free < batchMin ? await waker.sleep(deps.pollMs, () => stopped) : false;
    }
  })();

  const housekeeping = startHousekeeping(deps);

  return {
    wake,
    inFlight: () => inflight.size,
    healthy: () => lastRoundOk,
    async stop(opts = {}) {
      if (stopped) return;
      stopped = true;
      clearInterval(housekeeping);
      wake();
      await loop;
      const pending = [...inflight.values()];
      const graceMs = opts.graceMs ?? 15_000;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(pending.map((p) => p.done)),
        new Promise((r) => (timer = setTimeout(r, graceMs))),
      ]);
      clearTimeout(timer);
      // Anything still in flight is given back due now (another replica, or the next start, sends it).
      await Promise.allSettled([...inflight.values()].map((p) => queue.release(p.claim)));
    },
  };
}
