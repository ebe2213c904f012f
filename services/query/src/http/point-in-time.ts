import type { TimeSeriesPoint } from '@cds/contracts';
import { InvalidParameterError } from '@cds/http';
import type { StoredRelease } from '@cds/read-models';

/**
 * The rules of `as_of` that need the clock or the data (the contract parses its forms):
 * docs/point-in-time.md. An answer is never today's data in place of one the service cannot give.
 */

/**
 * How long after an instant the releases published by then may still be arriving: the CFTC
 * catch-up runs until the Thursday after a Friday release, NASS's candidate days span five, and a
 * failed sync is retried by the next scheduled one. An `as_of` older than this is settled.
 */
export const AS_OF_SETTLE_MS = 7 * 86_400_000;

/**
 * The max-age of an answer as of a settled instant: no scheduled release can change it (only an
 * operator's backfill of old vintages could, which the server's cache sees at once).
 */
export const SETTLED_AS_OF_MAX_AGE_SECONDS = 7 * 86_400;

/** An `as_of` after the request is a 400 naming as_of (a date means the end of that day in UTC). */
export function refuseFutureAsOf(asOf: string | undefined, nowMs: number): void {
  if (asOf === undefined || Date.parse(asOf) <= nowMs) return;
  throw new InvalidParameterError(
    'as_of',
    `invalid 'as_of': ${asOf} is after now (${new Date(nowMs).toISOString()}); a date means the end of that day ` +
      'in UTC. Leave as_of out for the current data.',
  );
}

/**
 * An `as_of` before the first publication the service holds of a series (or COT format) is a 400
 * naming as_of: it cannot say what was known then. A descriptor without `first_published_at`
 * (data stored before versions were kept) has no point-in-time data at all.
 */
export function refuseAsOfBeforeData(
  asOf: string | undefined,
  firstPublishedAt: string | undefined,
  what: string,
): void {
  if (asOf === undefined) return;
  if (firstPublishedAt === undefined) {
    throw new InvalidParameterError('as_of', `invalid 'as_of': no point-in-time data yet for ${what}`);
  }
  if (asOf < firstPublishedAt) {
    throw new InvalidParameterError(
      'as_of',
      `invalid 'as_of': no point-in-time data before ${firstPublishedAt} for ${what}`,
    );
  }
}

/** The fixed max-age of an answer as of `asOf` at `nowMs`: long once settled, else the sources' (undefined). */
export function asOfMaxAge(asOf: string | undefined, nowMs: number): number | undefined {
  if (asOf === undefined || Date.parse(asOf) > nowMs - AS_OF_SETTLE_MS) return undefined;
  return SETTLED_AS_OF_MAX_AGE_SECONDS;
}

/** published_at, first_seen_at and published_at_estimated of a release (none without one). */
export function publicationOf(
  release: StoredRelease | undefined,
): Pick<TimeSeriesPoint, 'published_at' | 'first_seen_at' | 'published_at_estimated'> {
  if (release === undefined) return {};
  return {
    published_at: release.p,
    first_seen_at: release.f,
    ...(release.e === true ? { published_at_estimated: true } : {}),
  };
}
