import { describe, expect, it } from 'vitest';
import { classifyAddress, type AddressClass } from './address.ts';

const TABLE: [string, AddressClass][] = [
  // IPv4
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['0.0.0.0', 'this-network'],
  ['0.1.2.3', 'this-network'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['100.63.255.255', 'public'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.128.0.0', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['169.254.169.254', 'link-local'],
  ['172.15.255.255', 'public'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'public'],
  ['192.168.1.1', 'private'],
  ['192.0.2.1', 'documentation'],
  ['198.18.0.1', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:8.8.8.8', 'public'],
  ['::127.0.0.1', 'loopback'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:0808:0808::1', 'public'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['2001::1', 'reserved'],
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4001:80b::200e', 'public'],
  ['4000::1', 'reserved'],
  // not addresses
  ['localhost', 'invalid'],
  ['1.2.3', 'invalid'],
  ['::ffff:999.0.0.1', 'invalid'],
  ['', 'invalid'],
];

describe('address classification', () => {
  it.each(TABLE)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});
