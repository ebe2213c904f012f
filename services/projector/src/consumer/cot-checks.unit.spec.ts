import { describe, expect, it } from 'vitest';
import { cotProjection } from '../projections/cot/index.ts';
import { cotRecorded, foldEvents } from '../testing/events.ts';
import { cotCheckFindings } from './cot-checks.ts';

const now = new Date('2025-03-01T12:00:00Z');
const combined = { scope: 'futures_and_options' } as const;

describe('cotCheckFindings', () => {
  it('counts and stores the failing reports the batch changed, within COT_CHECKS_DAYS; nothing for a passing one', () => {
    const docs = foldEvents(cotProjection, [
      [
        cotRecorded('CORN', [
          ['2025-01-07', 100],
          ['2024-02-27', 100],
          ['2024-03-05', 100],
        ]),
        1,
      ],
      [cotRecorded('CORN', [['2025-01-07', 99]], combined), 2],
      // 2024-02-27 is 368 days before now: counted, not stored; 2024-03-05 is within 366 days
      [
        cotRecorded(
          'CORN',
          [
            ['2024-02-27', 99],
            ['2024-03-05', 99],
          ],
          combined,
        ),
        3,
      ],
      [cotRecorded('CORN', [['2025-01-07', 100]], { format: 'disaggregated' }), 4],
    ]);
    const written = [...docs.values()];
    const { failures, ops } = cotCheckFindings(written, new Set([2, 3, 4]), now);
    expect(failures.sort()).toEqual([
      'legacy_combined|combined_oi_at_least_futures_only',
      'legacy_combined|combined_oi_at_least_futures_only',
      'legacy_combined|combined_oi_at_least_futures_only',
    ]);
    expect([...ops.keys()].sort()).toEqual(['legacy_combined.2024-03-05.CORN', 'legacy_combined.2025-01-07.CORN']);
    expect(ops.get('legacy_combined.2025-01-07.CORN')!.value).toEqual({
      dataset: 'legacy_combined',
      report_date: '2025-01-07',
      commodity: 'CORN',
      failed_checks: ['combined_oi_at_least_futures_only'],
      checked_at: '2025-03-01T12:00:00.000Z',
    });
    // reports the batch did not change are left alone
    expect(cotCheckFindings(written, new Set([4]), now)).toEqual({ failures: [], ops: new Map() });
  });

  it('deletes the key when a later version of a failing report passes, and only then', () => {
    const failing = foldEvents(cotProjection, [
      [cotRecorded('CORN', [['2025-01-07', 100]]), 1],
      [cotRecorded('CORN', [['2025-01-07', 99]], combined), 2],
    ]);
    const corrected = foldEvents(
      cotProjection,
      [[cotRecorded('CORN', [['2025-01-07', 100]], { ...combined, occurredAt: '2025-01-11T00:00:00Z' }), 3]],
      failing,
    );
    const { failures, ops } = cotCheckFindings([corrected.get('CORN:legacy_combined:2025')!], new Set([3]), now);
    expect(failures).toEqual([]);
    expect([...ops.values()]).toEqual([{ key: 'legacy_combined.2025-01-07.CORN' }]);
    // a report that never failed: no delete
    const fine = foldEvents(cotProjection, [[cotRecorded('CORN', [['2025-01-07', 100]], combined), 1]]);
    expect(cotCheckFindings([...fine.values()], new Set([1]), now).ops.size).toBe(0);
  });
});
