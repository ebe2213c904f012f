import { describe, expect, it } from 'vitest';
import { cotReportStamp } from './cot-stamp.ts';

describe('cotReportStamp', () => {
  it('dates a COT report on the CFTC calendar (estimated), and nothing for a date that is not one', () => {
    expect(cotReportStamp('2025-03-04')).toEqual({
      published_at: '2025-03-07T20:30:00.000Z',
      published_at_estimated: true,
    });
    expect(cotReportStamp('2025-02-30')).toEqual({});
    expect(cotReportStamp('2025-3-4')).toEqual({});
  });
});
