import { ConsistencyDay, cotCheckKey, supplyDemandCheckKey, type CotCheckFailure } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { consistencyKeyOf, cotChecksCutoff, CotChecksTable, summarize } from './cot-checks.ts';

/** Tuesday 2026-11-24 12:00Z. */
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const DAY = 24 * 60 * 60 * 1000;

const failure = (over: Partial<CotCheckFailure> = {}): CotCheckFailure => ({
  dataset: 'legacy',
  report_date: '2026-11-17',
  commodity: 'CORN',
  failed_checks: ['old_plus_other_equals_all'],
  checked_at: '2026-11-20T21:00:00.000Z',
  ...over,
});
const keyOf = (f: CotCheckFailure) => cotCheckKey(f.dataset, f.report_date, f.commodity);

describe('summarize: /status consistency', () => {
  it('gives one item per dataset and report date, newest first, with per-check counts and sorted commodities', () => {
    const items = summarize(
      [
        failure({
          commodity: 'WHEAT',
          failed_checks: ['old_plus_other_equals_all', 'legacy_oi_equals_disaggregated_oi'],
        }),
        failure({ commodity: 'CORN' }),
        failure({ dataset: 'cit', commodity: 'SOYBEANS', failed_checks: ['legacy_oi_equals_disaggregated_oi'] }),
        failure({
          dataset: 'legacy_combined',
          report_date: '2026-11-10',
          failed_checks: ['combined_oi_at_least_futures_only'],
        }),
        failure({ report_date: '2025-01-07', commodity: 'GOLD' }),
      ],
      '2025-11-23',
    );
    expect(items).toEqual([
      {
        dataset: 'cot_legacy',
        date: '2026-11-17',
        failed_reports: 2,
        checks: { old_plus_other_equals_all: 2, legacy_oi_equals_disaggregated_oi: 1 },
        commodities: ['CORN', 'WHEAT'],
      },
      {
        dataset: 'cot_cit',
        date: '2026-11-17',
        failed_reports: 1,
        checks: { legacy_oi_equals_disaggregated_oi: 1 },
        commodities: ['SOYBEANS'],
      },
      {
        dataset: 'cot_legacy_combined',
        date: '2026-11-10',
        failed_reports: 1,
        checks: { combined_oi_at_least_futures_only: 1 },
        commodities: ['CORN'],
      },
    ]);
    expect(summarize([], '2025-11-23')).toEqual([]);
  });

  it('counts the balance sheets of an edition under supply_demand, after the COT datasets of that date', () => {
    const sheet = (commodity: string, region: string, marketingYear: string): CotCheckFailure =>
      failure({
        dataset: 'supply_demand',
        commodity,
        failed_checks: ['supply_equals_use_plus_ending_stocks'],
        sheet: { region, marketing_year: marketingYear },
      });
    const items = summarize(
      [
        sheet('CORN', 'united_states', '2026/27'),
        sheet('CORN', 'world', '2026/27'),
        sheet('SOYBEANS', 'united_states', '2025/26'),
        failure({ commodity: 'GOLD' }),
      ],
      '2025-11-23',
    );
    expect(items).toEqual([
      {
        dataset: 'cot_legacy',
        date: '2026-11-17',
        failed_reports: 1,
        checks: { old_plus_other_equals_all: 1 },
        commodities: ['GOLD'],
      },
      {
        dataset: 'supply_demand',
        date: '2026-11-17',
        failed_reports: 3,
        checks: { supply_equals_use_plus_ending_stocks: 3 },
        commodities: ['CORN', 'SOYBEANS'],
      },
    ]);
    for (const item of items) expect(ConsistencyDay.safeParse(item).success).toBe(true);
  });

  it('keys a balance sheet by its release date, commodity, region and marketing year; one without its sheet has no key', () => {
    const f = failure({
      dataset: 'supply_demand',
      report_date: '2026-06-11',
      failed_checks: ['supply_equals_use_plus_ending_stocks'],
      sheet: { region: 'world', marketing_year: '2026/27' },
    });
    expect(consistencyKeyOf(f)).toBe(supplyDemandCheckKey('2026-06-11', 'CORN', 'world', '2026/27'));
    expect(consistencyKeyOf(f)).toBe('supply_demand.2026-06-11.CORN.world.2026-27');
    expect(consistencyKeyOf({ ...f, sheet: undefined })).toBeUndefined();
    expect(consistencyKeyOf(failure())).toBe(cotCheckKey('legacy', '2026-11-17', 'CORN'));
  });

  it('reports the last COT_CHECKS_DAYS (366) days of the UTC date', () => {
    expect(cotChecksCutoff(NOW)).toBe('2025-11-23');
  });
});

describe('CotChecksTable', () => {
  it('keeps at most maxEntries, counts what it drops, and still updates and deletes the keys it holds', () => {
    const table = new CotChecksTable({ nowMs: () => NOW, maxEntries: 2 });
    const [a, b, c] = ['CORN', 'WHEAT', 'GOLD'].map((commodity) => failure({ commodity }));
    table.put(keyOf(a!), a!);
    table.put(keyOf(b!), b!);
    table.put(keyOf(c!), c!);
    expect(table.size).toBe(2);
    expect(table.dropped).toBe(1);
    // A key held is updated even when full.
    table.put(keyOf(a!), { ...a!, failed_checks: ['legacy_oi_equals_disaggregated_oi'] });
    expect(table.dropped).toBe(1);
    expect(table.consistency(NOW)[0]).toMatchObject({
      failed_reports: 2,
      checks: { old_plus_other_equals_all: 1, legacy_oi_equals_disaggregated_oi: 1 },
      commodities: ['CORN', 'WHEAT'],
    });
    // A delete makes room.
    table.delete(keyOf(b!));
    table.put(keyOf(c!), c!);
    expect(table.size).toBe(2);
    expect(table.consistency(NOW + 1000)[0]!.commodities).toEqual(['CORN', 'GOLD']);
  });

  it('neither keeps nor answers reports dated before the window, and makes room from the ones it left', () => {
    const clock = { now: NOW };
    const table = new CotChecksTable({ nowMs: () => clock.now, maxEntries: 2 });
    const old = failure({ report_date: '2025-11-23' });
    table.put(keyOf(old), old);
    // Before the window: not kept, and a value already held under that key goes.
    table.put(keyOf(old), { ...old, report_date: '2025-11-22' });
    expect(table.size).toBe(0);
    table.put(keyOf(old), old);
    const recent = failure({ commodity: 'WHEAT' });
    table.put(keyOf(recent), recent);
    expect(table.consistency(clock.now).map((d) => d.date)).toEqual(['2026-11-17', '2025-11-23']);

    // A day later the oldest report is past the window: no longer answered, and its place is taken.
    clock.now += DAY;
    expect(table.consistency(clock.now).map((d) => d.date)).toEqual(['2026-11-17']);
    const next = failure({ commodity: 'GOLD', report_date: '2026-11-24' });
    table.put(keyOf(next), next);
    expect(table.dropped).toBe(0);
    expect(table.size).toBe(2);
  });

  it('recomputes the answer at most once a second while the table changes', () => {
    const table = new CotChecksTable({ nowMs: () => NOW });
    const a = failure();
    table.put(keyOf(a), a);
    const first = table.consistency(NOW);
    const b = failure({ commodity: 'WHEAT' });
    table.put(keyOf(b), b);
    // The same second: the answer computed in it stands.
    expect(table.consistency(NOW + 500)).toBe(first);
    expect(table.consistency(NOW + 1000)[0]!.commodities).toEqual(['CORN', 'WHEAT']);
    // Unchanged: the same answer in later seconds, not a new walk.
    const second = table.consistency(NOW + 1000);
    expect(table.consistency(NOW + 5000)).toBe(second);
  });
});
