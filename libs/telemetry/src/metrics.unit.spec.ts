import { describe, expect, it } from 'vitest';
import { createLabeledCounter, createMetrics, declareMetrics } from './metrics.ts';

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

describe('declareMetrics', () => {
  it('declares counters, histograms, set gauges and observed values on the one meter', async () => {
    const metrics = createMetrics('svc');
    const m = declareMetrics(metrics);
    const requests = m.counter('cds_requests', { description: 'requests', labels: ['route'] });
    const latency = m.histogram('cds_latency_ms', { description: 'latency', unit: 'ms' });
    const inFlight = m.gauge('cds_in_flight', { description: 'in flight' });
    const depth = m.gauge('cds_depth', { description: 'depth', labels: ['queue'] });
    let entries = 7;
    m.observe('cds_entries', 'gauge', 'entries', (report) => report(entries));
    m.observe('cds_lookups', 'counter', 'lookups', (report) => {
      report(3, { result: 'hit' });
      report(1, { result: 'miss' });
    });

    let text = await metrics.render();
    // An unlabeled set gauge is reported (0) before it is first set; a labeled one once set.
    expect(text).toMatch(/^cds_in_flight\{[^}]*\} 0$/m);
    expect(text).not.toContain('cds_depth');
    expect(text).toMatch(/^cds_entries\{[^}]*\} 7$/m);
    expect(text).toContain('# TYPE cds_lookups_total counter');
    expect(text).toMatch(/^cds_lookups_total\{result="hit"[^}]*\} 3$/m);

    requests.add(['list']);
    latency.record(12, { route: 'list' });
    inFlight.set([], 4);
    depth.set(['mail'], 2);
    depth.set(['mail'], 5);
    entries = 9;
    text = await metrics.render();
    expect(text).toMatch(/^cds_requests_total\{route="list"[^}]*\} 1$/m);
    expect(text).toMatch(/^cds_latency_ms_count\{route="list"[^}]*\} 1$/m);
    expect(text).toMatch(/^cds_in_flight\{[^}]*\} 4$/m);
    expect(text).toMatch(/^cds_depth\{queue="mail"[^}]*\} 5$/m);
    expect(text).toMatch(/^cds_entries\{[^}]*\} 9$/m);
    await metrics.shutdown();
  });
});
