import { localParts } from '@cds/schedule';
import type { HttpClient } from '../common/http.ts';
import {
  ESMIS_LISTING_PATH,
  EsmisListingError,
  readEsmisPage,
  xmlReleasesOf,
  type Skipped,
  type WasdeXmlRelease,
} from './esmis.ts';

/** A listing page is 25 releases of a few KB each; more is not that page. */
const MAX_PAGE_BYTES = 4 * 1024 * 1024;
/** ESMIS lists about 700 WASDE releases (28 pages); a pager past this is not believed. */
export const MAX_LISTING_PAGES = 200;

/** The address of a listing page on the ESMIS origin `base`. */
export function listingPageUrl(base: URL, page: number): URL {
  const url = new URL(ESMIS_LISTING_PATH, base);
  url.searchParams.set('page', String(page));
  return url;
}

/** What the listing gives from a day on: the XML editions to fetch (oldest first) and what was skipped. */
export interface WasdeListing {
  editions: WasdeXmlRelease[];
  skipped: Skipped[];
  pages: number;
}

/**
 * Reads ESMIS's WASDE listing, newest first, page after page (pager.total_pages), until a page
 * holds nothing released on or after `fromDay` (New York day): the XML edition of each release
 * from that day, oldest first (an original before its re-post), each file of an ESMIS release once. Old editions without XML are skipped and
 * counted. Retries, timeouts and the deadline are the client's; a page that is not the documented
 * JSON is an EsmisListingError.
 */
export async function listWasdeEditions(
  client: HttpClient,
  base: URL,
  fromDay: string,
  now: Date,
): Promise<WasdeListing> {
  const editions = new Map<string, WasdeXmlRelease>();
  const skipped: Skipped[] = [];
  let totalPages = 1;
  let page = 0;
  for (; page < totalPages; page++) {
    const url = listingPageUrl(base, page);
    const text = new TextDecoder('utf-8').decode(await client.getBytes(url, { maxBytes: MAX_PAGE_BYTES }));
    const data = readEsmisPage(text, `page ${page}`);
    if (data.totalPages > MAX_LISTING_PAGES)
      throw new EsmisListingError(`wasde: ESMIS says ${data.totalPages} listing pages, more than ${MAX_LISTING_PAGES}`);
    totalPages = data.totalPages;
    let recent = 0;
    for (const r of data.releases) {
      if (localParts(r.releasedAt).date < fromDay) continue;
      recent++;
      const picked = xmlReleasesOf(r, base, now);
      if ('reason' in picked) skipped.push(picked);
      else
        for (const x of picked) if (!editions.has(`${x.esmisId}/${x.file}`)) editions.set(`${x.esmisId}/${x.file}`, x);
    }
    // newest first: a page with nothing recent ends the walk (its releases and the next ones are older)
    if (recent === 0) {
      page++;
      break;
    }
  }
  const sorted = [...editions.values()].sort((a, b) =>
    a.edition === b.edition ? a.published.at.localeCompare(b.published.at) : a.edition.localeCompare(b.edition),
  );
  return { editions: sorted, skipped, pages: page };
}
