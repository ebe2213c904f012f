import { describe, expect, it } from 'vitest';
import { RevocationNotices } from './revocation-notices.ts';

describe('RevocationNotices', () => {
  const at = (start = 0) => {
    const clock = { now: start };
    return { clock, notices: new RevocationNotices({ nowMs: () => clock.now, ttlMs: 1_000 }) };
  };

  it('refuses a noticed key, and no other, until the stream settles it', () => {
    const { notices } = at();
    expect(notices.refuses('key_a')).toBe(false);
    notices.heard('key_a');
    expect(notices.refuses('key_a')).toBe(true);
    expect(notices.refuses('key_b')).toBe(false);
    notices.settled('key_a');
    expect(notices.refuses('key_a')).toBe(false);
    expect(notices.size).toBe(0);
  });

  it('lets a notice the stream never confirms lapse after its TTL (a revocation that was not stored)', () => {
    const { clock, notices } = at(5_000);
    notices.heard('key_a');
    clock.now += 999;
    expect(notices.refuses('key_a')).toBe(true);
    clock.now += 1;
    expect(notices.refuses('key_a')).toBe(false);
    expect(notices.size).toBe(0);
  });

  it('drops lapsed notices as new ones arrive, so it holds at most a TTL of them', () => {
    const { clock, notices } = at();
    for (let i = 0; i < 100; i += 1) notices.heard(`key_${i}`);
    expect(notices.size).toBe(100);
    clock.now += 1_000;
    notices.heard('key_new');
    expect(notices.size).toBe(1);
    expect(notices.refuses('key_new')).toBe(true);
  });
});
