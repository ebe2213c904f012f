import { randomBytes } from 'node:crypto';

/**
 * Request ids: `req_` + 20 random hex characters, unique enough for support and cheap to make
 * (one 8 KiB random pool refilled as it drains, instead of a syscall per request).
 */
export function createRequestIdGenerator(): () => string {
  let pool = randomBytes(8192);
  let offset = 0;
  return () => {
    if (offset + 10 > pool.length) {
      pool = randomBytes(8192);
      offset = 0;
    }
    const id = pool.toString('hex', offset, offset + 10);
    offset += 10;
    return `req_${id}`;
  };
}
