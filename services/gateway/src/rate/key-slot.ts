/** Hash slots of a Redis Cluster. */
export const CLUSTER_SLOTS = 16_384;

// CRC16-XMODEM (polynomial 0x1021, initial value 0, no reflection), the checksum Redis Cluster
// hashes keys with, one table lookup per byte.
const TABLE = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let crc = i << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  TABLE[i] = crc;
}

export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ b) & 0xff]!;
  return crc;
}

const encoder = new TextEncoder();

/**
 * The slot Redis Cluster stores `key` in: CRC16 of its hash tag (the text between the first `{`
 * and the next `}`, when that text is not empty), else of the whole key, modulo 16 384.
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(encoder.encode(key.slice(open + 1, close))) % CLUSTER_SLOTS;
  }
  return crc16(encoder.encode(key)) % CLUSTER_SLOTS;
}
