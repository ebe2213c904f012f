import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, ApiKey, generateApiKey, isWellFormedApiKey } from '../src/index.ts';

describe('API keys', () => {
  it('issues cds_ + 30 base62 + a 6-character checksum; the checksum and both shapes are checked', () => {
    const key = generateApiKey(randomBytes);
    expect(key).toMatch(/^cds_[0-9A-Za-z]{36}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(ApiKey.safeParse(key).success).toBe(true);
    // One character changed anywhere after the prefix breaks the checksum (CRC32 finds every single change).
    for (let i = 4; i < key.length; i++) {
      const other = key[i] === 'a' ? 'b' : 'a';
      expect(isWellFormedApiKey(key.slice(0, i) + other + key.slice(i + 1)), `at ${i}`).toBe(false);
    }
    // Keys issued before the prefix: 40 lowercase hex, no checksum.
    expect(isWellFormedApiKey('0123456789abcdef0123456789abcdef01234567')).toBe(true);
    for (const bad of ['0123456789ABCDEF0123456789abcdef01234567', `${'a'.repeat(39)}`, `cds_${'A'.repeat(35)}`, '']) {
      expect(isWellFormedApiKey(bad), bad).toBe(false);
    }
    expect(isWellFormedApiKey(`${key} `)).toBe(false);
    expect(isWellFormedApiKey(`CDS_${key.slice(4)}`)).toBe(false);
  });

  it('matches a known vector, so the format does not drift (CRC32 in base62, most significant first)', () => {
    // 30 random characters all '0' (byte 0): the checksum is that of 'cds_' + 30 × '0'.
    const key = generateApiKey((n) => new Uint8Array(n));
    expect(key.slice(0, 34)).toBe(`cds_${'0'.repeat(30)}`);
    expect(key).toBe('cds_000000000000000000000000000000' + key.slice(34));
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('draws characters without modulo bias: bytes from 248 up are drawn again', () => {
    let calls = 0;
    // First call: 30 bytes of 255 (all refused), then bytes of 61 ('z').
    const key = generateApiKey((n) => new Uint8Array(n).fill(calls++ === 0 ? 255 : 61));
    expect(calls).toBe(2);
    expect(key.slice(4, 34)).toBe('z'.repeat(30));
    // Over many keys every character appears, none far from its share.
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++)
      for (const c of generateApiKey(randomBytes).slice(4, 34)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const share = (2_000 * 30) / 62;
    for (const n of counts.values()) expect(Math.abs(n - share) / share).toBeLessThan(0.25);
  });

  it('checks in time linear in the input and refuses a long one at its length', () => {
    // The pattern is anchored, without nested or overlapping quantifiers.
    expect(API_KEY_PATTERN.source).toBe('^(?:cds_[0-9A-Za-z]{36}|[0-9a-f]{40})$');
    expect(isWellFormedApiKey(`cds_${'a'.repeat(100_000)}`)).toBe(false);
  });
});
