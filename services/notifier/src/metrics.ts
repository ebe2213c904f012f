import { createMetrics, declareMetrics, type LabeledCounter, type Metrics } from '@cds/telemetry';

/** The notifier's metrics (libs/telemetry), exported at /metrics. */
export interface NotifierMetrics {
  /** Changes read from CDS_CHANGES, by result (`enqueued`, `no_endpoint`, `poison`). */
  changes: LabeledCounter;
  /** Deliveries enqueued (one per matching endpoint and change). */
  enqueued: LabeledCounter;
  /** Delivery attempts by outcome (`delivered`, `http_error`, `timeout`, `network_error`, `refused_address`, `too_large`). */
  attempts: LabeledCounter;
  /** Deliveries that reached a final status, by outcome (`delivered`, `failed`, `abandoned`). */
  deliveries: LabeledCounter;
  /** Endpoints disabled for failing (WEBHOOK_DISABLE_AFTER_MS). */
  endpointsDisabled: LabeledCounter;
  /** Sets the age of the oldest due delivery (null: none due). */
  setQueueAge(oldestDueAtMs: number | null, nowMs: number): void;
  /** Deliveries being sent by this process now. */
  setInFlight(n: number): void;
  /** Messages left for the CDS_CHANGES consumer after the last handled one (0: caught up). */
  setPending(n: number): void;
  render(): Promise<string>;
  shutdown(): Promise<void>;
}

export function createNotifierMetrics(metrics: Metrics = createMetrics('notifier')): NotifierMetrics {
  const m = declareMetrics(metrics);
  const queueAge = m.gauge('cds_notifier_queue_age_seconds', {
    description: 'Age of the oldest delivery that is due and not yet sent (0: none waiting).',
  });
  const inFlight = m.gauge('cds_notifier_in_flight', { description: 'Deliveries this process is sending now.' });
  const pending = m.gauge('cds_notifier_pending_messages', {
    description: 'Change notifications the CDS_CHANGES consumer has yet to handle (lag).',
  });
  return {
    changes: m.counter('cds_notifier_changes', {
      description: 'Changes read from CDS_CHANGES, by result.',
      labels: ['result'],
    }),
    enqueued: m.counter('cds_notifier_deliveries_enqueued', {
      description: 'Deliveries enqueued (one per matching endpoint and change).',
      labels: [],
    }),
    attempts: m.counter('cds_notifier_attempts', {
      description: 'Delivery attempts, by outcome.',
      labels: ['outcome'],
    }),
    deliveries: m.counter('cds_notifier_deliveries', {
      description: 'Deliveries that reached a final status, by outcome (delivered, failed, abandoned).',
      labels: ['outcome'],
    }),
    endpointsDisabled: m.counter('cds_notifier_endpoints_disabled', {
      description: 'Endpoints disabled after failing for WEBHOOK_DISABLE_AFTER_MS.',
      labels: [],
    }),
    setQueueAge: (oldest, now) => queueAge.set([], oldest === null ? 0 : Math.max(0, (now - oldest) / 1000)),
    setInFlight: (n) => inFlight.set([], n),
    setPending: (n) => pending.set([], n),
    render: () => metrics.render(),
    shutdown: () => metrics.shutdown(),
  };
}
