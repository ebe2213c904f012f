import { addDays, weekday } from './holidays.ts';
import {
  cotRelease,
  lmHg201Release,
  mondayOf,
  pinkSheetRelease,
  quarterEndReportReleases,
  wpsrRelease,
  type Release,
} from './releases.ts';
import { editionReleasesOfYear } from './supply-demand.ts';
import { fxReferenceReleasesOfYear } from './fx-reference.ts';

/** Every release of every rule whose usual day falls in `year`, sorted by time. */
export function releasesOfYear(year: number): Release[] {
  const out: Release[] = [];
  for (let monday = mondayOf(`${year}-01-01`); monday <= `${year}-12-31`; monday = addDays(monday, 7)) {
    if (addDays(monday, 4).startsWith(`${year}-`)) out.push(cotRelease(monday));
    if (addDays(monday, 2).startsWith(`${year}-`)) out.push(wpsrRelease(monday));
  }
  out.push(...quarterEndReportReleases(year));
  for (let month = 1; month <= 12; month++) out.push(pinkSheetRelease(year, month));
  out.push(...editionReleasesOfYear(year));
  out.push(...fxReferenceReleasesOfYear(year));
  for (let d = `${year}-01-01`; d.startsWith(`${year}-`); d = addDays(d, 1))
    if (weekday(d) >= 1 && weekday(d) <= 5) out.push(lmHg201Release(d));
  return out.sort((a, b) => a.at.getTime() - b.at.getTime());
}
