import { describe, expect, it } from 'vitest';
import { createLabeledCounter, createMetrics } from './metrics.ts';

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

describe('createLabeledCounter', () => {
  it('exports each label combination as a Prometheus counter that moves', async () => {
    const metrics = createMetrics('svc');
    const hits = createLabeledCounter(metrics.meter, 'cds_hits', { description: 'hits', labels: ['route', 'status'] });
    hits.add(['list', '200']);
    hits.add(['list', '200']);
    hits.add(['cot', '403'], 5);
    const text = await metrics.render();
    expect(text).toContain('# TYPE cds_hits_total counter');
    expect(text).toMatch(/cds_hits_total\{[^}]*route="list"[^}]*status="200"[^}]*\} 2/);
    expect(text).toMatch(/cds_hits_total\{[^}]*route="cot"[^}]*status="403"[^}]*\} 5/);
    hits.add(['list', '200']);
    expect(await metrics.render()).toMatch(/cds_hits_total\{[^}]*route="list"[^}]*status="200"[^}]*\} 3/);
    await metrics.shutdown();
  });
});
