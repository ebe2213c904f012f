import { createLabeledCounter, createMetrics, type LabeledCounter } from '@cds/telemetry';

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
}

export function createNotifierMetrics(): NotifierMetrics {
  const metrics = createMetrics('notifier');
  const { meter } = metrics;
  let queueAgeSeconds = 0;
  let inFlight = 0;
  let pending = 0;
  meter
    .createObservableGauge('cds_notifier_queue_age_seconds', {
      description: 'Age of the oldest delivery that is due and not yet sent (0: none waiting).',
    })
    .addCallback((r) => r.observe(queueAgeSeconds));
  meter
    .createObservableGauge('cds_notifier_in_flight', { description: 'Deliveries this process is sending now.' })
    .addCallback((r) => r.observe(inFlight));
  meter
    .createObservableGauge('cds_notifier_pending_messages', {
      description: 'Change notifications the CDS_CHANGES consumer has yet to handle (lag).',
    })
    .addCallback((r) => r.observe(pending));
  return {
    changes: createLabeledCounter(meter, 'cds_notifier_changes', {
      description: 'Changes read from CDS_CHANGES, by result.',
      labels: ['result'],
    }),
    enqueued: createLabeledCounter(meter, 'cds_notifier_deliveries_enqueued', {
      description: 'Deliveries enqueued (one per matching endpoint and change).',
      labels: [],
    }),
    attempts: createLabeledCounter(meter, 'cds_notifier_attempts', {
      description: 'Delivery attempts, by outcome.',
      labels: ['outcome'],
    }),
    deliveries: createLabeledCounter(meter, 'cds_notifier_deliveries', {
      description: 'Deliveries that reached a final status, by outcome (delivered, failed, abandoned).',
      labels: ['outcome'],
    }),
    endpointsDisabled: createLabeledCounter(meter, 'cds_notifier_endpoints_disabled', {
      description: 'Endpoints disabled after failing for WEBHOOK_DISABLE_AFTER_MS.',
      labels: [],
    }),
    setQueueAge: (oldest, now) => (queueAgeSeconds = oldest === null ? 0 : Math.max(0, (now - oldest) / 1000)),
    setInFlight: (n) => (inFlight = n),
    setPending: (n) => (pending = n),
    render: () => metrics.render(),
  };
}
