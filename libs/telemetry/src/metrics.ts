import type { Meter } from '@opentelemetry/api';
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
