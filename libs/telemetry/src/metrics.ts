import type { Histogram, Meter } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

export interface Metrics {
  /** The meter services create their instruments from. */
  meter: Meter;
  /** The current values in the Prometheus text exposition format (for GET /metrics). */
  render(): Promise<string>;
  shutdown(): Promise<void>;
}

/**
 * A service's metrics: an OpenTelemetry MeterProvider read on demand in Prometheus format, so each
 * service serves /metrics on its own port (no extra exporter server). One per process, passed in deps.
 */
export function createMetrics(serviceName: string): Metrics {
  const reader = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({
    readers: [reader],
    resource: resourceFromAttributes({ 'service.name': serviceName }),
  });
  const serializer = new PrometheusSerializer();
  return {
    meter: provider.getMeter(serviceName),
    async render() {
      const { resourceMetrics } = await reader.collect();
      return serializer.serialize(resourceMetrics);
    },
    shutdown: () => provider.shutdown(),
  };
}

export interface LabeledCounter {
  /** Adds `n` (default 1) to the series with these label values (in the order of the label names). */
  add(values: readonly string[], n?: number): void;
}

/**
 * A counter for hot paths: plain integers per label combination, reported to OpenTelemetry only
 * when metrics are collected (an observable counter), so a request pays a Map lookup instead of
 * the SDK's attribute processing. Exported exactly like a counter (`<name>_total`).
 */
export function createLabeledCounter(
  meter: Meter,
  name: string,
  opts: { description: string; labels: readonly string[] },
): LabeledCounter {
  const series = new Map<string, { attributes: Record<string, string>; value: number }>();
  meter.createObservableCounter(name, { description: opts.description }).addCallback((result) => {
    for (const s of series.values()) result.observe(s.value, s.attributes);
  });
  return {
    add(values, n = 1) {
      const key = values.join('\u0000');
      let s = series.get(key);
      if (s === undefined) {
        const attributes: Record<string, string> = {};
        opts.labels.forEach((label, i) => (attributes[label] = values[i] ?? ''));
        series.set(key, (s = { attributes, value: 0 }));
      }
      s.value += n;
    },
  };
}

export interface LabeledGauge {
  /** Sets the series with these label values (in the order of the label names) to `n`. */
  set(values: readonly string[], n: number): void;
}

/** Reports one series of an observed instrument: its value and its labels. */
export type Report = (value: number, labels?: Record<string, string>) => void;

/** The instruments a service declares, all on its one meter. */
export interface Instruments {
  /** A counter (exported as `<name>_total`) the service adds to; cheap on hot paths (createLabeledCounter). */
  counter(name: string, opts: { description: string; labels: readonly string[] }): LabeledCounter;
  /** A histogram, e.g. of request durations. */
  histogram(name: string, opts: { description: string; unit?: string }): Histogram;
  /**
   * A gauge the service sets, reported when metrics are collected. Without labels it is one series,
   * 0 until first set; with labels a series appears when first set.
   */
  gauge(name: string, opts: { description: string; labels?: readonly string[] }): LabeledGauge;
  /**
   * A counter or gauge whose values live in state the service keeps anyway (cache stats, a table's
   * size, a worker's counts): `read` reports every series each time metrics are collected.
   */
  observe(name: string, kind: 'counter' | 'gauge', description: string, read: (report: Report) => void): void;
}

/**
 * The one way a service declares its metrics: its `metrics.ts` takes the process's Metrics and
 * declares every instrument through these, so names, labels and help texts sit in one file.
 */
export function declareMetrics(metrics: Metrics): Instruments {
  const { meter } = metrics;
  return {
    counter: (name, opts) => createLabeledCounter(meter, name, opts),
    histogram: (name, opts) =>
      meter.createHistogram(name, {
        description: opts.description,
        ...(opts.unit === undefined ? {} : { unit: opts.unit }),
      }),
    gauge(name, opts) {
      const labels = opts.labels ?? [];
      const series = new Map<string, { attributes: Record<string, string>; value: number }>();
      if (labels.length === 0) series.set('', { attributes: {}, value: 0 });
      meter.createObservableGauge(name, { description: opts.description }).addCallback((result) => {
        for (const s of series.values()) result.observe(s.value, s.attributes);
      });
      return {
        set(values, n) {
          const key = values.join('\u0000');
          const s = series.get(key);
          if (s !== undefined) {
            s.value = n;
            return;
          }
          const attributes: Record<string, string> = {};
          labels.forEach((label, i) => (attributes[label] = values[i] ?? ''));
          series.set(key, { attributes, value: n });
        },
      };
    },
    observe(name, kind, description, read) {
      const instrument =
        kind === 'counter'
          ? meter.createObservableCounter(name, { description })
          : meter.createObservableGauge(name, { description });
      instrument.addCallback((result) => read((value, labels) => result.observe(value, labels)));
    },
  };
}
