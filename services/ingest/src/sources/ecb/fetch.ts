import type { HttpClient } from '../common/http.ts';
import { RATE_FILE_MAX_BYTES } from './parse.ts';

/** Where the ECB serves its reference-rate files (ECB_API_URL points the sync elsewhere: tests, mirrors). */
export const ECB_RATES_URL = 'https://www.ecb.europa.eu/stats/eurofxref/';
/**
 * The last 90 days as XML (about 60 KB): what a daily sync asks, as it covers the overlap and weeks
 * of missed runs in one small file. The whole history (`eurofxref-hist.zip`, about 0.6 MB) only when
 * the sync must reach further back (a first sync, `--since` beyond 90 days).
 */
export const RECENT_FILE = 'eurofxref-hist-90d.xml';
export const HISTORY_FILE = 'eurofxref-hist.zip';
/** The recent file holds about 64 TARGET days: a sync asking no further back than this takes it. */
export const RECENT_FILE_DAYS = 85;

/** The address of a file under the base URL (which ends in `/` or gets one). */
export function rateFileUrl(file: string, base: string = ECB_RATES_URL): URL {
  return new URL(file, base.endsWith('/') ? base : `${base}/`);
}

/** GETs one reference-rate file, bounded; retries, timeouts and the deadline are the client's. */
export async function fetchRateFile(client: HttpClient, file: string, base?: string): Promise<Uint8Array> {
  return client.getBytes(rateFileUrl(file, base), { maxBytes: RATE_FILE_MAX_BYTES });
}
