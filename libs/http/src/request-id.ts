import { randomBytes } from 'node:crypto';

/** Hex characters of a request id after `req_`. */
const ID_HEX = 20;
/** Ids made from one draw of random bytes. */
const IDS_PER_DRAW = 512;

/**
 * Request ids: `req_` + 20 random hex characters, unique enough for support and cheap to make: one
 * draw of random bytes, turned into hex at once, gives the next 512 ids (a slice each), instead
 * of a system call or a hex conversion per request (both run on every request).
 */
export function createRequestIdGenerator(): () => string {
  let hex = '';
  let offset = 0;
  return () => {
    if (offset === hex.length) {
      hex = randomBytes((IDS_PER_DRAW * ID_HEX) / 2).toString('hex');
      offset = 0;
    }
    const id = `req_${hex.slice(offset, offset + ID_HEX)}`;
    offset += ID_HEX;
    return id;
  };
}
