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
