import { describe, expect, it } from 'vitest';
import { clientBucket } from './client-bucket.ts';

// Security review #9: an IPv6 client rotating through its /64 must stay in one throttle bucket.
describe('the bucket of a client address', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(clientBucket('203.0.113.9')).toBe('203.0.113.9');
  });

  it('reads an IPv4-mapped IPv6 address, in either notation, as its IPv4 address', () => {
    expect(clientBucket('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientBucket('::FFFF:203.0.113.9')).toBe('203.0.113.9');
    expect(clientBucket('::ffff:cb00:7109')).toBe('203.0.113.9');
    expect(clientBucket('0:0:0:0:0:ffff:cb00:7109')).toBe('203.0.113.9');
  });

  it('puts every address of one /64 in one bucket, whatever its notation', () => {
    const bucket = '2001:db8:85a3:8d3::/64';
    for (const ip of [
      '2001:db8:85a3:8d3:1319:8a2e:370:7348',
      '2001:0DB8:85A3:08D3:1319:8A2E:0370:7344',
      '2001:db8:85a3:8d3::1',
      '2001:db8:85a3:8d3::',
      '2001:db8:85a3:8d3:ffff:ffff:ffff:ffff',
      '2001:db8:85a3:8d3::ffff:203.0.113.9',
      '2001:db8:85a3:8d3::1%eth0',
      '[2001:db8:85a3:8d3::2]',
    ]) {
      expect(clientBucket(ip), ip).toBe(bucket);
    }
  });

  it('expands the compressed zeros inside the first four hextets, and separates neighbouring /64s', () => {
    expect(clientBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientBucket('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(clientBucket('2001::1:0:0:1')).toBe('2001:0:0:0::/64');
    expect(clientBucket('2001:db8:0:0:1::')).toBe('2001:db8:0:0::/64');
    expect(clientBucket('::1')).toBe('0:0:0:0::/64');
    expect(clientBucket('::')).toBe('0:0:0:0::/64');
    expect(clientBucket('fe80::1%en0')).toBe('fe80:0:0:0::/64');
  });

  it('returns what is no address unchanged', () => {
    expect(clientBucket('')).toBe('');
    expect(clientBucket('not an address')).toBe('not an address');
  });
});
