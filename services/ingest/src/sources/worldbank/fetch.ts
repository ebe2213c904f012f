import type { HttpClient } from '../common/http.ts';
import { PINK_SHEET_LIMITS } from './parse.ts';

/** The publisher's Commodity Markets page, which links the current month's workbook. */
export const WORLDBANK_PAGE_URL = 'https://www.worldbank.org/en/research/commodity-markets';
/** The workbook's file name: its address (thedocs.worldbank.org/en/doc/<hash>/related/...) changes monthly. */
export const PINK_SHEET_FILE = 'CMO-Historical-Data-Monthly.xlsx';
/** Hosts a workbook link may point at: the publisher's document host, or the page's own host. */
const DOCUMENT_HOST = 'thedocs.worldbank.org';
/** The page is HTML of a few hundred KB; more is not that page. */
const MAX_PAGE_BYTES = 5 * 1024 * 1024;

/** The page has no workbook link: the publisher changed its page. Not retried. */
export class PinkSheetLinkError extends Error {
  override readonly name = 'PinkSheetLinkError';
}

const HREF = /href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi;

const decodeEntities = (s: string) =>
  s
    .replace(/&amp;/gi, '&')
    .replace(/&#x2f;/gi, '/')
    .replace(/&#47;/g, '/');

/**
 * The workbook link of the Commodity Markets page: the first `href` whose path ends in
 * `CMO-Historical-Data-Monthly.xlsx`, resolved against the page, on thedocs.worldbank.org or the
 * page's host, over https (or on the page's own origin). Undefined when there is none.
 */
export function findPinkSheetLink(html: string, pageUrl: URL): URL | undefined {
  for (const m of html.matchAll(HREF)) {
    const raw = decodeEntities((m[1] ?? m[2] ?? m[3] ?? '').trim());
    let url: URL;
    try {
      url = new URL(raw, pageUrl);
    } catch {
      continue;
    }
    if (!url.pathname.toLowerCase().endsWith(`/${PINK_SHEET_FILE.toLowerCase()}`)) continue;
    // https only: plain http only on the page's own origin (a local stand-in the page itself is on)
    if (url.protocol !== 'https:' && url.origin !== pageUrl.origin) continue;
    if (url.hostname !== DOCUMENT_HOST && url.hostname !== pageUrl.hostname) continue;
    return url;
  }
  return undefined;
}

/**
 * Downloads the current Pink Sheet workbook: GETs the Commodity Markets page, finds the workbook
 * link on it (PinkSheetLinkError when there is none), and GETs the workbook, bounded to
 * PINK_SHEET_LIMITS.maxBytes. Retries, timeouts and the deadline are the client's.
 */
export async function fetchPinkSheet(
  client: HttpClient,
  pageUrl: URL = new URL(WORLDBANK_PAGE_URL),
): Promise<{ url: URL; bytes: Uint8Array }> {
  const page = new TextDecoder('utf-8').decode(await client.getBytes(pageUrl, { maxBytes: MAX_PAGE_BYTES }));
  const url = findPinkSheetLink(page, pageUrl);
  if (url === undefined)
    throw new PinkSheetLinkError(
      `worldbank: no ${PINK_SHEET_FILE} link on ${pageUrl.href}; the publisher changed its page`,
    );
  return { url, bytes: await client.getBytes(url, { maxBytes: PINK_SHEET_LIMITS.maxBytes }) };
}
