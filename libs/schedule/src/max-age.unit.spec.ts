import { describe, expect, it } from 'vitest';
import { nextRelease } from './freshness.ts';
import {
  MAX_AGE_CAP_SECONDS,
  maxAgeSeconds,
  maxAgeSecondsOf,
  SYNC_WINDOW_MAX_AGE_SECONDS,
  syncedSourceOf,
  UNSCHEDULED_MAX_AGE_SECONDS,
} from './max-age.ts';

const at = (iso: string) => new Date(iso);

describe('maxAgeSeconds', () => {
  // COT of Friday 2026-11-20: 15:30 EST = 20:30Z.
  it('cftc one minute before the Friday release → 60 s', () => {
    expect(maxAgeSeconds('cftc', at('2026-11-20T20:29:00Z'))).toBe(60);
  });

  it('half a second before the release → 0 (rounded down, never past it)', () => {
    expect(maxAgeSeconds('cftc', at('2026-11-20T20:29:59.500Z'))).toBe(0);
  });

  it('far from any release → the one-hour cap', () => {
    expect(maxAgeSeconds('cftc', at('2026-11-18T12:00:00Z'))).toBe(MAX_AGE_CAP_SECONDS);
    expect(MAX_AGE_CAP_SECONDS).toBe(3600);
  });

  it('from the release time until its grace (2 h) has passed: the short sync-window max-age', () => {
    expect(maxAgeSeconds('cftc', at('2026-11-20T20:30:00Z'))).toBe(SYNC_WINDOW_MAX_AGE_SECONDS);
    expect(maxAgeSeconds('cftc', at('2026-11-20T22:29:59Z'))).toBe(SYNC_WINDOW_MAX_AGE_SECONDS);
    expect(maxAgeSeconds('cftc', at('2026-11-20T22:30:00Z'))).toBe(MAX_AGE_CAP_SECONDS);
  });

  it('a holiday-shifted release (Thanksgiving 2026: COT Friday Nov 27 → Monday Nov 30) is the one that counts', () => {
    expect(maxAgeSeconds('cftc', at('2026-11-27T20:00:00Z'))).toBe(MAX_AGE_CAP_SECONDS);
    expect(maxAgeSeconds('cftc', at('2026-11-30T20:00:00Z'))).toBe(1800);
  });

  it('eia: the Wednesday WPSR at 10:30 ET, standard and daylight time', () => {
    expect(maxAgeSeconds('eia', at('2026-11-25T15:00:00Z'))).toBe(1800); // 10:30 EST = 15:30Z
    expect(maxAgeSeconds('eia', at('2026-03-11T14:00:00Z'))).toBe(1800); // 10:30 EDT = 14:30Z
  });

  it('nass: the quarter-end report (Wed 2026-09-30 12:00 EDT = 16:00Z)', () => {
    expect(maxAgeSeconds('nass', at('2026-09-30T15:59:00Z'))).toBe(60);
    expect(maxAgeSeconds('nass', at('2026-08-01T00:00:00Z'))).toBe(MAX_AGE_CAP_SECONDS);
  });

  it('a provenance string counts as its source', () => {
    const now = at('2026-11-20T20:29:00Z');
    expect(maxAgeSeconds('cftc:legacy:067651', now)).toBe(maxAgeSeconds('cftc', now));
    expect(maxAgeSeconds('eia:RWTC', at('2026-11-25T15:00:00Z'))).toBe(1800);
    expect(maxAgeSeconds('nass:CORN, GRAIN - STOCKS, MEASURED IN BU', at('2026-09-30T15:59:00Z'))).toBe(60);
  });

  it.each([['demo'], ['ohlcv'], [undefined], [''], ['CFTC'], ['cftcx:legacy'], ['unknown:thing']])(
    'a source without a schedule (%s) → the short default',
    (source) => {
      expect(maxAgeSeconds(source, at('2026-11-18T12:00:00Z'))).toBe(UNSCHEDULED_MAX_AGE_SECONDS);
    },
  );

  it('over a year of instants: a whole number from 0 to the cap, never past the next release', () => {
    const start = at('2026-01-01T00:00:00Z').getTime();
    const end = at('2027-01-01T00:00:00Z').getTime();
    for (const source of ['cftc', 'eia', 'nass'] as const) {
      for (let t = start; t < end; t += 1009 * 60_000 + 1_234) {
        const now = new Date(t);
        const age = maxAgeSeconds(source, now);
        expect(Number.isInteger(age) && age >= 0 && age <= MAX_AGE_CAP_SECONDS).toBe(true);
        expect(t + age * 1000).toBeLessThanOrEqual(nextRelease(source, now).at.getTime());
      }
    }
  });
});

describe('maxAgeSecondsOf', () => {
  it('the smallest of the sources', () => {
    const now = at('2026-11-20T20:29:00Z');
    expect(maxAgeSecondsOf(['eia:RWTC', 'cftc:legacy:002602', 'nass'], now)).toBe(60);
    expect(maxAgeSecondsOf(['eia:RWTC', undefined], at('2026-11-25T15:29:30Z'))).toBe(30);
  });

  it('no sources → the short default', () => {
    expect(maxAgeSecondsOf([], at('2026-11-18T12:00:00Z'))).toBe(UNSCHEDULED_MAX_AGE_SECONDS);
  });
});

describe('syncedSourceOf', () => {
  it('reads the source name before the first colon', () => {
    expect(syncedSourceOf('cftc:disaggregated:088691')).toBe('cftc');
    expect(syncedSourceOf('eia')).toBe('eia');
    expect(syncedSourceOf('demo')).toBeUndefined();
    expect(syncedSourceOf(undefined)).toBeUndefined();
  });
});
