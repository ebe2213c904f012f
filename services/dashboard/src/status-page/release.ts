import type { DatasetSummary, ReleaseRecord } from '@cds/contracts';
import { html, type SafeHtml } from '../security/html.ts';
import { dayText, lagText, moment, monthText, plural } from './format.ts';

/** How many months of lag figures a dataset shows (the answer has 12). */
export const LAG_MONTHS = 3;

const STATUS_BADGE: Record<ReleaseRecord['status'], string> = {
  scheduled: 'muted',
  published: 'ok',
  late: 'warn',
  missing: 'bad',
  cancelled: 'muted',
};

const statusBadge = (r: ReleaseRecord) => html`<span class="badge ${STATUS_BADGE[r.status]}">${r.status}</span>`;

function moved(r: ReleaseRecord): SafeHtml {
  if (r.shifted === undefined) return html``;
  return html`<span class="release-note">Moved from ${moment(r.shifted.from)}: ${r.shifted.reason}</span>`;
}

/** The last release: what it was, when it was due and when this service first served it. */
export function lastRelease(r: ReleaseRecord | null): SafeHtml {
  if (r === null) return html`<span class="muted">None in the last months</span>`;
  const due = r.scheduled_at === null ? html`data of ${dayText(r.data_date)}` : html`due ${moment(r.scheduled_at)}`;
  const served =
    r.first_served_at === null
      ? html`not served yet`
      : html`served ${moment(r.first_served_at)}${r.lag_seconds === null ? '' : html` (lag ${lagText(r.lag_seconds)})`}`;
  return html`<span class="release-report">${r.report}</span> ${statusBadge(r)}
    <span class="release-when"
      >${due} · ${served}${r.backfilled === true ? ' · loaded afterwards (lag not counted)' : ''}</span
    >
    ${r.cancelled_reason === undefined ? '' : html`<span class="release-note">Cancelled: ${r.cancelled_reason}</span>`}
    ${moved(r)}`;
}

/** The next release on the agency's calendar. */
export function nextRelease(r: ReleaseRecord | null, hasCalendar: boolean): SafeHtml {
  if (r === null) {
    return hasCalendar
      ? html`<span class="muted">None on the calendar yet</span>`
      : html`<span class="muted">No computed calendar: releases are listed as they are served</span>`;
  }
  const when = r.scheduled_at === null ? html`${dayText(r.local_date)}` : moment(r.scheduled_at);
  return html`<span class="release-report">${r.report}</span>
    ${r.status === 'cancelled' ? statusBadge(r) : ''}
    <span class="release-when">${when} · data of ${dayText(r.data_date)}</span>
    ${r.cancelled_reason === undefined ? '' : html`<span class="release-note">Cancelled: ${r.cancelled_reason}</span>`}
    ${moved(r)}`;
}

/** The lag from scheduled release to first served, p50 and p95, of the last LAG_MONTHS months. */
export function lags(freshness: DatasetSummary['freshness']): SafeHtml {
  const months = freshness.slice(0, LAG_MONTHS);
  if (months.length === 0) return html`<span class="muted">No releases measured yet</span>`;
  return html`<ul class="lags">
    ${months.map(
      (m) =>
        html`<li>
          <span class="lag-month">${monthText(m.month)}</span>
          ${
            m.releases === 0
              ? html`<span class="muted">no release served live</span>`
              : html`p50 <strong>${lagText(m.p50_lag_seconds)}</strong> · p95
                  <strong>${lagText(m.p95_lag_seconds)}</strong>
                  <span class="muted">(${plural(m.releases, 'release')})</span>`
          }
        </li>`,
    )}
  </ul>`;
}
