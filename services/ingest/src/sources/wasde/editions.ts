import { estimatedEditionRelease, editionReleaseAt } from '@cds/schedule';
import { monthNumber } from '../common/values.ts';
import type { PublicationStamp } from '../types.ts';
import { squash } from './cells.ts';

/**
 * Editions: a WASDE file is the edition of its `Report_Month` (`June 2026` → 2026-06), published
 * at the edition's release (12:00 New York on its date in USDA's calendar, libs/schedule's
 * supply-demand.ts, or the 12th when the calendar does not know it; estimated either way, since
 * the file states no time: `--published-at`, or the sync's ESMIS listing, states it). A column headed by another month (the
 * projected year's `May` beside `Jun` in June) is that earlier edition's figure, published at that
 * edition's release. A `v2` file (`wasde0526v2.xml`) is a corrected re-post: a revision published
 * at the re-post time (`--published-at`, else the release + 1 day, estimated).
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** The edition of a `Report_Month` (`June 2026` → 2026-06), or undefined. */
export function editionOfReportMonth(reportMonth: string): string | undefined {
  const m = /^([A-Za-z.]+)\s+(\d{4})$/.exec(squash(reportMonth));
  const month = m ? monthNumber(m[1]!) : undefined;
  if (m === null || month === undefined) return undefined;
  return `${m[2]}-${pad(month)}`;
}

/**
 * The edition a column stands for: the file's own for an empty `forecast_month` or its own month,
 * else the latest edition of the month it names (May in a June file: the May edition; December in
 * a January file: the December before). Undefined for a month name it cannot read.
 */
export function columnEdition(fileEdition: string, forecastMonth: string | undefined): string | undefined {
  const label = squash(forecastMonth ?? '');
  if (label === '') return fileEdition;
  const month = monthNumber(label);
  if (month === undefined) return undefined;
  const year = Number(fileEdition.slice(0, 4));
  const own = Number(fileEdition.slice(5, 7));
  if (month === own) return fileEdition;
  return `${month < own ? year : year - 1}-${pad(month)}`;
}

/**
 * The edition's release: the calendar's, else 12:00 New York on the 12th (or the next business
 * day). Estimated either way: a file states no release time, so the time is not the source's.
 */
export function releaseStamp(edition: string): PublicationStamp {
  const at =
    editionReleaseAt(edition) ?? estimatedEditionRelease(Number(edition.slice(0, 4)), Number(edition.slice(5, 7))).at;
  return { at: at.toISOString(), estimated: true };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The publication of a file's own edition: `--published-at` when given (the operator states it);
 * else the calendar's release, estimated (a re-post: that release + 1 day, estimated).
 */
export function fileStamp(edition: string, opts: { publishedAt?: string; repost: boolean }): PublicationStamp {
  if (opts.publishedAt !== undefined) return { at: new Date(opts.publishedAt).toISOString(), estimated: false };
  const release = releaseStamp(edition);
  if (!opts.repost) return release;
  return { at: new Date(Date.parse(release.at) + DAY_MS).toISOString(), estimated: true };
}

/** The file name's shape: `wasde0626.xml` (edition 2026-06), `wasde0526v2.xml` (a re-post); other names tell nothing. */
export function fileNameFacts(file: string): { edition?: string; repost: boolean } {
  const base = file.split(/[\\/]/).at(-1) ?? file;
  const m = /^wasde(\d{2})(\d{2})(v\d+)?(?:[._-]|$)/i.exec(base);
  if (m === null) return { repost: /v\d+\.xml$/i.test(base) };
  const month = Number(m[1]);
  const edition = month >= 1 && month <= 12 ? `20${m[2]}-${m[1]}` : undefined;
  return { ...(edition !== undefined ? { edition } : {}), repost: m[3] !== undefined && m[3].toLowerCase() !== 'v1' };
}
