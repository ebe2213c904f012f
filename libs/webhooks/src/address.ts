import { isIPv4, isIPv6 } from 'node:net';

/** Why an address may not receive a webhook; `public` is the only one it may. */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'this-network'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'invalid';

/** IPv4 ranges that are not the public internet (RFC 6890 and friends), first match wins. */
const V4_RANGES: readonly [base: string, bits: number, cls: AddressClass][] = [
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function v4ToInt(address: string): number {
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

const V4_TABLE = V4_RANGES.map(([base, bits, cls]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { net: (v4ToInt(base) & mask) >>> 0, mask, cls };
});

function classifyV4Int(n: number): AddressClass {
  for (const r of V4_TABLE) if ((n & r.mask) >>> 0 === r.net) return r.cls;
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part and `::` expanded); zone ids dropped. */
function v6Groups(address: string): number[] | undefined {
  const bare = address.split('%')[0]!;
  let head = bare;
  const tail: number[] = [];
  const lastColon = bare.lastIndexOf(':');
  const last = bare.slice(lastColon + 1);
  if (last.includes('.')) {
    if (!isIPv4(last)) return undefined;
    const n = v4ToInt(last);
    tail.push(n >>> 16, n & 0xffff);
    head = bare.slice(0, lastColon + 1);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  let groups: number[];
  const gap = head.indexOf('::');
  if (gap >= 0) {
    const left = parse(head.slice(0, gap));
    const right = parse(head.slice(gap + 2));
    const fill = 8 - tail.length - left.length - right.length;
    if (fill < 0) return undefined;
    groups = [...left, ...Array<number>(fill).fill(0), ...right, ...tail];
  } else {
    groups = [...parse(head), ...tail];
  }
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

function classifyV6(groups: number[]): AddressClass {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const embeddedV4 = (hi: number, lo: number) => classifyV4Int(((hi << 16) >>> 0) + lo);
  const zeroTo = (k: number) => groups.slice(0, k).every((g) => g === 0);
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible (::a.b.c.d): the IPv4 rules.
  if (zeroTo(5) && g5 === 0xffff) return embeddedV4(g6, g7);
  if (zeroTo(6)) return embeddedV4(g6, g7) === 'public' ? 'reserved' : embeddedV4(g6, g7);
  // SIIT-translated ::ffff:0:a.b.c.d
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return embeddedV4(g6, g7);
  // NAT64 64:ff9b::/96 and 64:ff9b:1::/48 reach the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return embeddedV4(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'reserved';
  // 6to4 2002::/16 carries an IPv4 address in bits 16-47.
  if (g0 === 0x2002) {
    const inner = embeddedV4(g1, g2);
    return inner === 'public' ? 'public' : inner;
  }
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved'; // discard-only 100::/64
  if (g0 === 0x2001 && g1 === 0xdb8) return 'documentation';
  if (g0 === 0x2001 && g1 === 0) return 'reserved'; // Teredo 2001::/32 tunnels to anywhere
  if (g0 === 0x2001 && g1 < 0x200) return 'reserved'; // IETF protocol assignments 2001::/23
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'reserved'; // site-local, deprecated
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  // Only global unicast 2000::/3 is public.
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}

/**
 * The class of an IP address (IPv4 dotted quad, or IPv6 in any textual form, with or without
 * brackets): only `public` addresses may receive a webhook. IPv4-mapped, NAT64 and 6to4 IPv6
 * addresses are judged by the IPv4 address inside them. Anything that is not an IP address is `invalid`.
 */
export function classifyAddress(address: string): AddressClass {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return classifyV4Int(v4ToInt(bare));
  if (isIPv6(bare)) {
    const groups = v6Groups(bare);
    return groups === undefined ? 'invalid' : classifyV6(groups);
  }
  return 'invalid';
}
