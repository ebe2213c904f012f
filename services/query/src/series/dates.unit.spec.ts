import { describe, expect, it } from 'vitest';
import { createUtcToday } from './dates.ts';

describe('createUtcToday', () => {
  it('follows the clock across UTC midnight and backwards', () => {
    let now = new Date('2025-12-31T23:59:59.999Z');
    const today = createUtcToday(() => now);
    expect(today()).toBe('2025-12-31');
    now = new Date('2026-01-01T00:00:00.000Z');
    expect(today()).toBe('2026-01-01');
    now = new Date('2026-01-01T23:00:00+05:00'); // 18:00 UTC
    expect(today()).toBe('2026-01-01');
    now = new Date('2025-06-01T12:00:00Z');
    expect(today()).toBe('2025-06-01');
  });
});
