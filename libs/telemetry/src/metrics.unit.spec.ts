import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';

describe('createMetrics', () => {
  it('renders counters and histograms in the Prometheus format, moving as they are recorded', async () => {
    const metrics = createMetrics('svc');
    const counter = metrics.meter.createCounter('cds_requests', { description: 'requests' });
    const latency = metrics.meter.createHistogram('cds_latency_ms');
    counter.add(2, { route: 'list' });
    latency.record(12);
    const first = await metrics.render();
    expect(first).toContain('# TYPE cds_requests_total counter');
    expect(first).toMatch(/cds_requests_total\{[^}]*route="list"[^}]*\} 2/);
    expect(first).toMatch(/cds_latency_ms_count\{[^}]*\} 1/);
    counter.add(3, { route: 'list' });
    expect(await metrics.render()).toMatch(/cds_requests_total\{[^}]*route="list"[^}]*\} 5/);
    await metrics.shutdown();
  });
});
