import { describe, expect, it } from 'vitest';
import { createBatchGapCheck, type GapDetector, type StreamGap } from './gap-detector.ts';

// A stream that lost sequences 4 to 6: each jump over them is a gap of what it skipped.
const LOST = new Set([4, 5, 6]);
const detector: GapDetector = {
  check: (prev, seq) => {
    let lost = 0;
    for (let s = prev + 1; s < seq; s++) if (LOST.has(s)) lost++;
    return Promise.resolve(prev <= 0 ? 0 : lost);
  },
};

describe('the batch gap check', () => {
  it('checks each sequence against the one before, reports each gap once, and returns the highest', async () => {
    const check = createBatchGapCheck(detector, 2);
    const gaps: StreamGap[] = [];
    const signal = new AbortController().signal;
    expect(await check.check(2, [3, 7, 8], signal, (g) => gaps.push(g))).toBe(8);
    expect(gaps).toEqual([{ after: 3, seq: 7, lost: 3 }]);
    // The same batch retried: nothing reported again.
    expect(await check.check(2, [3, 7, 8], signal, (g) => gaps.push(g))).toBe(8);
    expect(gaps).toHaveLength(1);
  });

  it('stops between two checks once the attempt is aborted', async () => {
    const check = createBatchGapCheck(detector, 0);
    const ctl = new AbortController();
    ctl.abort(new Error('stalled'));
    await expect(check.check(1, [2, 3], ctl.signal, () => {})).rejects.toThrow('stalled');
  });
});
