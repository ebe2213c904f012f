import { describe, expect, it } from 'vitest';
import { createProjectorMetrics } from './metrics.ts';

const value = (text: string, name: string, projection: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{projection="${projection}"`));
  if (line === undefined) throw new Error(`${name} for ${projection} not rendered:\n${text}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('createProjectorMetrics', () => {
  it('renders counters per projection and the lag as the age of the oldest unapplied event', async () => {
    let now = 1_000_000;
    const metrics = createProjectorMetrics(() => now);
    const series = metrics.of('series');
    expect(value(await metrics.render(), 'cds_projector_lag_seconds', 'series')).toBe(0);

    series.behindSinceMs = now - 2_500;
    series.events.applied += 3;
    series.parked += 1;
    let text = await metrics.render();
    expect(text).toContain('# TYPE cds_projector_lag_seconds gauge');
    expect(value(text, 'cds_projector_lag_seconds', 'series')).toBe(2.5);
    expect(text).toMatch(/^cds_projector_events_total\{projection="series",outcome="applied"[^}]*\} 3$/m);
    expect(value(text, 'cds_projector_parked_total', 'series')).toBe(1);

    series.changeRecords.stored.set('price', 2);
    series.changeRecords.duplicate.set('price', 1);
    series.changeFailures += 1;
    text = await metrics.render();
    expect(text).toMatch(
      /^cds_projector_change_records_total\{projection="series",topic="price",outcome="stored"[^}]*\} 2$/m,
    );
    expect(text).toMatch(
      /^cds_projector_change_records_total\{projection="series",topic="price",outcome="duplicate"[^}]*\} 1$/m,
    );
    expect(value(text, 'cds_projector_change_record_failures_total', 'series')).toBe(1);

    const cot = metrics.of('cot');
    cot.cotCheckFailures.set('legacy_combined|combined_oi_at_least_futures_only', 2);
    cot.cotCheckStoreFailures += 1;
    text = await metrics.render();
    expect(text).toMatch(
      /^cds_projector_cot_check_failures_total\{dataset="legacy_combined",check="combined_oi_at_least_futures_only"[^}]*\} 2$/m,
    );
    expect(value(text, 'cds_projector_cot_check_store_failures_total', 'cot')).toBe(1);
    cot.ledgerStoreFailures += 2;
    expect(value(await metrics.render(), 'cds_projector_ledger_store_failures_total', 'cot')).toBe(2);

    metrics.of('supply_demand').supplyDemandCheckFailures.set('supply_equals_use_plus_ending_stocks', 3);
    expect(await metrics.render()).toMatch(
      /^cds_projector_supply_demand_check_failures_total\{check="supply_equals_use_plus_ending_stocks"[^}]*\} 3$/m,
    );

    series.phaseMs.write += 1_500;
    expect(await metrics.render()).toMatch(
      /^cds_projector_phase_seconds_total\{projection="series",phase="write"[^}]*\} 1\.5$/m,
    );

    now += 1_000;
    expect(value(await metrics.render(), 'cds_projector_lag_seconds', 'series')).toBe(3.5);
    series.behindSinceMs = undefined;
    text = await metrics.render();
    expect(value(text, 'cds_projector_lag_seconds', 'series')).toBe(0);
  });
});
