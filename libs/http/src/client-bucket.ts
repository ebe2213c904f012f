import { isIP } from 'node:net';

/** The 8 hextets of a valid IPv6 address (compressed, or with an IPv4 tail), zone removed. */
function hextetsOf(ipv6: string): number[] {
  const groups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = ipv6.split('::');
  if (tail === undefined) return groups(head);
  const front = groups(head);
  const back = groups(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * What a per-client limit counts (security review #9): an IPv4 address as it is, an IPv4-mapped
 * IPv6 address as its IPv4 address, any other IPv6 address as its /64 (`2001:db8:0:1::/64`, each
 * hextet in lower case without leading zeros): one subscriber usually holds a whole /64 and would
 * otherwise get a fresh bucket with every address in it. Brackets and a zone are ignored; anything
 * that is no address is returned unchanged (its own bucket). Used by the dashboard's throttles and
 * the gateway's per-address limits; cheap for IPv4 (no colon, returned at once).
 */
export function clientBucket(ip: string): string {
  if (!ip.includes(':')) return ip;
  let address = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  address = address.split('%')[0] ?? '';
  if (isIP(address) !== 6) return ip;
  const h = hextetsOf(address);
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) {
    const [hi = 0, lo = 0] = h.slice(6);
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
  }
  return `${h
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}
