import { easternInstant, localParts } from '@cds/schedule';
import { z } from 'zod';
import { monthNumber } from '../common/values.ts';
import type { PublicationStamp } from '../types.ts';
import { fileNameFacts } from './editions.ts';

/**
 * USDA's ESMIS catalog (esmis.nal.usda.gov, formerly usda.library.cornell.edu) lists every WASDE
 * release as JSON, newest first, 25 a page: `GET /api/v1/release/findByIdentifier/wasde?page=N`
 * (pages from 0) answers `{pager: {total_pages, …}, results: [{id, files[], release_datetime,
 * description, …}]}`. Editions since July 2010 carry `wasdeMMYY.xml` (a corrected re-post
 * `wasdeMMYYv2.xml`) beside the pdf, txt and xls; older ones only text or scanned pdf files.
 */

/** The ESMIS host: its API answers there and its release files are served from there. */
export const ESMIS_BASE_URL = 'https://esmis.nal.usda.gov';
/** The listing path of the WASDE releases. */
export const ESMIS_LISTING_PATH = '/api/v1/release/findByIdentifier/wasde';
/** Hosts a listed file may name: ESMIS, and its former home. Fetched on the listing's own origin. */
const FILE_HOSTS: ReadonlySet<string> = new Set(['esmis.nal.usda.gov', 'usda.library.cornell.edu']);

/** The first edition published as XML (July 2010): where a first sync starts. */
export const FIRST_XML_DAY = '2010-07-01';

const EsmisEntry = z.looseObject({
  id: z.union([z.string(), z.number()]).transform(String),
  files: z.array(z.string().max(2000)).max(50),
  release_datetime: z.string().max(40),
  description: z.string().max(100_000).nullish(),
});

const EsmisPage = z.looseObject({
  pager: z.looseObject({ total_pages: z.int().min(0), current_page: z.int().min(0).optional() }),
  results: z.array(EsmisEntry).max(1000),
});

/** The listing is not ESMIS's answer as documented (not JSON, fields missing): not retried. */
export class EsmisListingError extends Error {
  override readonly name = 'EsmisListingError';
}

/** One release of the listing: its id, when it was released, its files and its note. */
export interface EsmisRelease {
  id: string;
  /** The release instant: the listed wall time read in New York (ESMIS labels it +0000). */
  releasedAt: Date;
  files: readonly string[];
  description: string;
}

/** One page of the listing. */
export interface EsmisPageData {
  totalPages: number;
  releases: EsmisRelease[];
}

const WALL_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

/**
 * The instant of a listed `release_datetime`. ESMIS writes noon New York as `…T12:00:00+0000`:
 * its offset is wrong, so the wall time is read in America/New_York and the offset ignored.
 */
export function esmisReleaseInstant(text: string): Date | undefined {
  const m = WALL_TIME.exec(text.trim());
  if (m === null || Number(m[2]) > 23 || Number(m[3]) > 59) return undefined;
  const day = m[1]!;
  if (Number.isNaN(Date.parse(`${day}T00:00:00Z`)) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day)
    return undefined;
  return easternInstant(day, `${m[2]}:${m[3]}`);
}

/** One page of the listing from its text: EsmisListingError when it is not the documented shape. */
export function readEsmisPage(text: string, where: string): EsmisPageData {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new EsmisListingError(`wasde: ESMIS answered ${where} with something that is not JSON`);
  }
  const parsed = EsmisPage.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') || '(root)';
    throw new EsmisListingError(
      `wasde: ESMIS's listing ${where} is not in its documented shape: ${path}: ${issue?.message}`,
    );
  }
  const releases = parsed.data.results.map((e) => {
    const releasedAt = esmisReleaseInstant(e.release_datetime);
    if (releasedAt === undefined)
      throw new EsmisListingError(`wasde: ESMIS release ${e.id} ${where} has no date: "${e.release_datetime}"`);
    return { id: e.id, releasedAt, files: e.files, description: e.description ?? '' };
  });
  return { totalPages: parsed.data.pager.total_pages, releases };
}

/**
 * The day a re-post's note gives (`<p>NOTE: On May 13, 2026, the May … report was reposted to
 * correct …</p>` → 2026-05-13), or undefined when the note says no such thing.
 */
export function repostDayOf(description: string): string | undefined {
  const text = description
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ');
  if (!/re-?posted/i.test(text)) return undefined;
  const m = /\bOn\s+([A-Za-z]+)\.?\s+(\d{1,2}),\s*(\d{4})/i.exec(text);
  if (m === null) return undefined;
  const month = monthNumber(m[1]!);
  if (month === undefined) return undefined;
  const day = `${m[3]}-${String(month).padStart(2, '0')}-${m[2]!.padStart(2, '0')}`;
  const t = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day ? day : undefined;
}

/** A release's XML edition, as the sync fetches it. */
export interface WasdeXmlRelease {
  esmisId: string;
  /** The file's name (`wasde0626.xml`, `wasde0526v2.xml`): its provenance. */
  file: string;
  /** Where it is fetched: the listed file's path on the listing's origin. */
  url: URL;
  edition: string;
  repost: boolean;
  /** When this file was published (a re-post: see publicationOf). */
  published: PublicationStamp;
  /** The release's day in New York, YYYY-MM-DD (what `--since` and the cursor compare). */
  day: string;
}

/** Why a listed release gives no XML edition: none (an old text/pdf edition), or a file name or host not WASDE's. */
export type Skipped = { release: string; reason: 'no_xml' | 'unknown_file' };

/** A re-post first seen this long after its release is history a sync catches up on, not news. */
const CATCH_UP_MS = 31 * 24 * 3_600_000;
const DAY_MS = 24 * 3_600_000;

/**
 * When a file was published. An original: the listed release. A re-post (`v2`): ESMIS keeps the
 * original's release_datetime, so the note's day ("On May 13, 2026 … reposted") at 12:00 New York
 * is used, estimated; without one, a listed time later than the edition's month is the re-post's;
 * otherwise the time the sync first sees it (`now`), estimated, or, when that is over a month after
 * the release (a first sync catching up), the release + 1 day, estimated, as the parser dates a
 * re-posted file.
 */
export function publicationOf(r: EsmisRelease, edition: string, repost: boolean, now: Date): PublicationStamp {
  const listed = { at: r.releasedAt.toISOString(), estimated: false };
  if (!repost) return listed;
  const noted = repostDayOf(r.description);
  if (noted !== undefined) return { at: easternInstant(noted, '12:00').toISOString(), estimated: true };
  const listedMonth = localParts(r.releasedAt).date.slice(0, 7);
  if (listedMonth > edition) return listed;
  const released = r.releasedAt.getTime();
  if (now.getTime() - released > CATCH_UP_MS) return { at: new Date(released + DAY_MS).toISOString(), estimated: true };
  return { at: now.toISOString(), estimated: true };
}

/**
 * The XML editions of a listed release: its `wasdeMMYY.xml` and any re-post `wasdeMMYYvN.xml` it
 * lists beside (oldest version first; ESMIS usually replaces the files of a re-posted release, so
 * most list one), each fetched at its path on `origin` (ESMIS serves its files where it answers). A
 * release with no `.xml` file, or whose XML files are not named so or name another host, is skipped
 * with the reason.
 */
export function xmlReleasesOf(r: EsmisRelease, origin: URL, now: Date): WasdeXmlRelease[] | Skipped {
  const xml = r.files.filter((f) => /\.xml$/i.test(f.split('?')[0] ?? ''));
  if (xml.length === 0) return { release: r.id, reason: 'no_xml' };
  const picked = xml.flatMap((f) => {
    let url: URL;
    try {
      url = new URL(f);
    } catch {
      return [];
    }
    if (!FILE_HOSTS.has(url.hostname) && url.host !== origin.host) return [];
    const file = url.pathname.split('/').at(-1) ?? '';
    const facts = fileNameFacts(file);
    if (facts.edition === undefined) return [];
    const version = Number(/v(\d+)\.xml$/i.exec(file)?.[1] ?? 1);
    const release: WasdeXmlRelease = {
      esmisId: r.id,
      file,
      url: new URL(url.pathname, origin),
      edition: facts.edition,
      repost: facts.repost,
      published: publicationOf(r, facts.edition, facts.repost, now),
      day: localParts(r.releasedAt).date,
    };
    return [{ version, release }];
  });
  if (picked.length === 0) return { release: r.id, reason: 'unknown_file' };
  return picked.sort((a, b) => a.version - b.version).map((p) => p.release);
}
