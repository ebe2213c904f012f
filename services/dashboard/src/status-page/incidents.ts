import { datasetById, type Incident } from '@cds/contracts';
import { html, type SafeHtml } from '../security/html.ts';
import { moment } from './format.ts';

const STATE_BADGE: Record<Incident['state'], string> = {
  investigating: 'bad',
  identified: 'warn',
  monitoring: 'warn',
  resolved: 'ok',
};
const stateText = (state: Incident['state']) => `${state[0]?.toUpperCase() ?? ''}${state.slice(1)}`;

export const isOpen = (i: Incident): boolean => i.state !== 'resolved';

/** Open incidents first, then resolved ones; each group newest first. */
export function incidentOrder(incidents: readonly Incident[]): Incident[] {
  const newestFirst = (a: Incident, b: Incident) => b.started_at.localeCompare(a.started_at);
  return [...incidents.filter(isOpen).sort(newestFirst), ...incidents.filter((i) => !isOpen(i)).sort(newestFirst)];
}

/** The datasets an incident affects, by title; none listed: the whole service. */
export function affected(i: Incident): string {
  if (i.datasets.length === 0) return 'the whole service';
  return i.datasets.map((id) => datasetById(id)?.title ?? id).join(', ');
}

function incident(i: Incident): SafeHtml {
  return html`<article class="incident ${isOpen(i) ? 'open' : 'resolved'}" aria-labelledby="${i.id}-title">
    <div class="card-head">
      <h3 id="${i.id}-title">${i.title}</h3>
      <span class="badge ${STATE_BADGE[i.state]}">${stateText(i.state)}</span>
    </div>
    <p class="muted incident-meta">
      Affects ${affected(i)} · started
      ${moment(i.started_at)}${i.resolved_at === undefined ? '' : html` · resolved ${moment(i.resolved_at)}`}
    </p>
    <ol class="updates" aria-label="Updates, newest first">
      ${[...i.updates].reverse().map(
        (u) =>
          html`<li>
            <span class="update-head"><strong>${stateText(u.state)}</strong> · ${moment(u.at)}</span>
            <span class="update-text">${u.message}</span>
          </li>`,
      )}
    </ol>
  </article>`;
}

/** The incidents section: open ones first, each with its updates. */
export function incidentsSection(incidents: readonly Incident[]): SafeHtml {
  const ordered = incidentOrder(incidents);
  return html`<section class="card incidents" id="incidents" aria-labelledby="incidents-title">
    <h2 id="incidents-title">Incidents</h2>
    ${
      ordered.length === 0
        ? html`<p class="muted">No incidents in the last 90 days.</p>`
        : ordered.map((i) => incident(i))
    }
  </section>`;
}
