import { CONDITION_DAYS, type DatasetSummary, type DatasetsResponse, type Incident } from '@cds/contracts';
import { fmt } from '../pages/format.ts';
import { html, type SafeHtml } from '../security/html.ts';
import { moment, plural } from './format.ts';
import { incidentsSection, isOpen } from './incidents.ts';
import { lags, lastRelease, nextRelease } from './release.ts';
import { CONDITIONS, conditionLabel, conditionStrip, legend, notAvailableDays } from './strip.ts';
import type { DatasetsRead } from './reader.ts';

/** Where the page points for the same data: the public API's JSON, its Atom feed and a dataset's releases. */
export interface StatusLinks {
  json: string;
  feed: string;
  releases: (datasetId: string) => string;
}

function datasetCard(d: DatasetSummary, open: readonly Incident[], links: StatusLinks): SafeHtml {
  const mine = open.filter((i) => i.datasets.includes(d.id));
  return html`<article class="card dataset" id="dataset-${d.id}" aria-labelledby="dataset-${d.id}-title">
    <div class="card-head">
      <h3 id="dataset-${d.id}-title">${d.title}</h3>
      <span class="badge cond c-${d.condition}" title="Today's condition (New York date)"
        >${conditionLabel(d.condition)} today</span
      >
    </div>
    <p class="muted dataset-meta">
      <code>${d.id}</code> ·
      ${d.calendar_rule === null ? 'no computed calendar' : html`calendar <code>${d.calendar_rule}</code>`} ·
      <a href="${links.releases(d.id)}">releases (JSON)</a>
    </p>
    ${mine.map((i) => html`<p class="notice error small">Open incident: <a href="#incidents">${i.title}</a></p>`)}
    ${conditionStrip(d.title, d.days)}
    <dl class="facts release-facts">
      <dt>Last release</dt>
      <dd>${lastRelease(d.last_release)}</dd>
      <dt>Next release</dt>
      <dd>${nextRelease(d.next_release, d.calendar_rule !== null)}</dd>
      <dt>Lag to served</dt>
      <dd>${lags(d.freshness)}</dd>
    </dl>
    ${notAvailableDays(d.days)}
  </article>`;
}

/** Today's conditions in one line: `14 available, 1 late, 1 degraded`. */
function todayLine(data: readonly DatasetSummary[]): string {
  const counts = CONDITIONS.map((c) => ({ ...c, n: data.filter((d) => d.condition === c.condition).length }));
  return counts
    .filter((c) => c.n > 0)
    .map((c) => `${fmt(c.n)} ${c.label.toLowerCase()}`)
    .join(', ');
}

function summary(body: DatasetsResponse): SafeHtml {
  const open = body.incidents.filter(isOpen);
  const allWell = body.data.every((d) => d.condition === 'available') && open.length === 0;
  return html`<div
    class="notice ${allWell ? 'success' : open.length > 0 ? 'error' : 'info'} status-summary"
    role="status"
  >
    <strong>${allWell ? 'All datasets available today.' : `Today: ${todayLine(body.data)}.`}</strong>
    ${open.length > 0 ? html` <a href="#incidents">${plural(open.length, 'open incident')}</a>.` : ''}
    <span class="muted">${plural(body.data.length, 'dataset')} · as of ${moment(body.meta.generated_at)}</span>
  </div>`;
}

function links(l: StatusLinks): SafeHtml {
  return html`<p class="status-links">
    The same as data: <a href="${l.json}" type="application/json">JSON</a> ·
    <a href="${l.feed}" type="application/atom+xml">Atom feed</a> of incidents and of the days a dataset was not
    available.
  </p>`;
}

function intro(l: StatusLinks): SafeHtml {
  return html`<div class="page-head"><h1>Service status</h1></div>
    <p class="lead">
      Each dataset's condition on each of the last ${CONDITION_DAYS} days (New York dates), checked against the
      agencies' official release calendars, with its last and next release and how long after its scheduled time this
      service served it. Times are in your browser's time zone (New York time when scripts are off).
    </p>
    ${links(l)}`;
}

/** The status page: every dataset's strip and releases, then the incidents; or why they cannot be shown. */
export function statusPage(read: DatasetsRead, l: StatusLinks): SafeHtml {
  if (!read.ok) {
    return html`${intro(l)}
      <div class="notice error" role="alert">
        <strong>The service's status cannot be shown right now:</strong> ${read.reason}. This page shows no data until
        it answers; try again in a minute.
      </div>`;
  }
  const body = read.body;
  const open = body.incidents.filter(isOpen);
  const short = body.data.some((d) => d.days.length < CONDITION_DAYS);
  return html`${intro(l)} ${summary(body)} ${legend(short)}
    <section class="datasets" aria-label="Datasets">
      ${
        body.data.length === 0
          ? html`<p class="card muted">No datasets are tracked yet.</p>`
          : body.data.map((d) => datasetCard(d, open, l))
      }
    </section>
    ${incidentsSection(body.incidents)}`;
}
