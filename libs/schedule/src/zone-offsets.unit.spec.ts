import { describe, expect, it } from 'vitest';
import { intlOffset, zoneOffset } from './zone-offsets.ts';
import { localParts, zonedInstant } from './releases.ts';

const HOUR = 3_600_000;

describe('zoneOffset: the tabled offsets agree with Intl', () => {
  it.each(['America/New_York', 'Europe/Berlin'])('%s, every 47 h 13 min from 1970 to 2100', (zone) => {
    const step = 47 * HOUR + 13 * 60_000;
    let differ = 0;
    let seen = 0;
    for (let ms = Date.UTC(1970, 0, 1); ms < Date.UTC(2100, 0, 1); ms += step) {
      seen++;
      if (zoneOffset(ms, zone) !== intlOffset(ms, zone)) differ++;
    }
    expect(seen).toBeGreaterThan(24_000);
    expect(differ).toBe(0);
  });

  it('changes at the minute the tz database says (New York 2025: 07:00Z in March, 06:00Z in November)', () => {
    const ny = 'America/New_York';
    expect(zoneOffset(Date.UTC(2025, 2, 9, 6, 59, 59), ny)).toBe(-5 * HOUR);
    expect(zoneOffset(Date.UTC(2025, 2, 9, 7, 0), ny)).toBe(-4 * HOUR);
    expect(zoneOffset(Date.UTC(2025, 10, 2, 5, 59), ny)).toBe(-4 * HOUR);
    expect(zoneOffset(Date.UTC(2025, 10, 2, 6, 0), ny)).toBe(-5 * HOUR);
    // Berlin changes at 01:00Z on the last Sundays of March and October
    expect(zoneOffset(Date.UTC(2025, 2, 30, 0, 59), 'Europe/Berlin')).toBe(HOUR);
    expect(zoneOffset(Date.UTC(2025, 2, 30, 1, 0), 'Europe/Berlin')).toBe(2 * HOUR);
  });

  it('refuses an invalid instant or zone as Intl does (RangeError)', () => {
    expect(() => zoneOffset(Number.NaN, 'America/New_York')).toThrow(RangeError);
    expect(() => localParts(new Date('nope'))).toThrow(RangeError);
    expect(() => zoneOffset(0, 'Mars/Olympus_Mons')).toThrow(RangeError);
  });

  it('reads instants outside the tabled years through Intl', () => {
    const ms = Date.UTC(1850, 5, 1, 12);
    expect(zoneOffset(ms, 'America/New_York')).toBe(intlOffset(ms, 'America/New_York'));
  });

  it("localParts and zonedInstant round-trip every 3 hours of 2025, and every minute around New York's changes", () => {
    const instants: number[] = [];
    for (let ms = Date.UTC(2025, 0, 1); ms < Date.UTC(2026, 0, 1); ms += 3 * HOUR) instants.push(ms);
    for (const change of [Date.UTC(2025, 2, 9, 7), Date.UTC(2025, 10, 2, 6)])
      for (let ms = change - HOUR; ms < change + HOUR; ms += 60_000) instants.push(ms);
    for (const zone of ['America/New_York', 'Europe/Berlin']) {
      for (const ms of instants) {
        const p = localParts(new Date(ms), zone);
        expect(p.time).toBe(new Date(ms + intlOffset(ms, zone)).toISOString().slice(11, 16));
        const back = zonedInstant(p.date, p.time, zone).getTime();
        // The hour repeated when summer time ends reads as one of its two instants.
        if (Math.abs(back - ms) !== HOUR) expect(back).toBe(ms);
      }
    }
  });
});
