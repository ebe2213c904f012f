// Verifies the signature of a Commodity Data Service webhook delivery (docs/notifications.md).
// Node 18 or newer, no dependencies. Copy verifyCdsSignature into your receiver.
import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

/** Refuse deliveries whose timestamp is more than 5 minutes from this clock (replays). */
export const TOLERANCE_SECONDS = 300;

/**
 * Checks the `CDS-Signature` header (`t=<unix seconds>,v1=<hex HMAC-SHA256>`) of a delivery.
 *
 * @param {Buffer | string} rawBody the request body exactly as received, before any JSON parsing
 * @param {string | undefined} header the value of the CDS-Signature header
 * @param {string} secret the endpoint's signing secret, `whsec_...` (the whole string is the key)
 * @param {number} [nowSeconds] this clock, in seconds
 * @returns {{ ok: true } | { ok: false, reason: 'malformed' | 'stale' | 'mismatch' }}
 */
export function verifyCdsSignature(rawBody, header, secret, nowSeconds = Date.now() / 1000) {
  if (typeof header !== 'string') return { ok: false, reason: 'malformed' };
  let timestamp;
  const signatures = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined || signatures.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(nowSeconds - timestamp) > TOLERANCE_SECONDS) return { ok: false, reason: 'stale' };
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  // timingSafeEqual: the comparison takes as long whichever byte differs.
  const matches = signatures.some((signature) => timingSafeEqual(signature, expected));
  return matches ? { ok: true } : { ok: false, reason: 'mismatch' };
}

// Command line (used by the project's tests):
//   CDS_WEBHOOK_SECRET=whsec_... node verify-webhook.mjs '<CDS-Signature>' < body.json
// prints `ok` or the reason and exits 0 or 1.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const result = verifyCdsSignature(Buffer.concat(chunks), process.argv[2], process.env.CDS_WEBHOOK_SECRET ?? '');
  process.stdout.write(`${result.ok ? 'ok' : result.reason}\n`);
  process.exitCode = result.ok ? 0 : 1;
}
