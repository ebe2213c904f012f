import { CONDITION_DAYS, type DatasetSummary } from '@cds/contracts';
import { html, type SafeHtml } from '../security/html.ts';
import { dayText } from './format.ts';

type Day = DatasetSummary['days'][number];
type Condition = Day['condition'];

/** Each condition as the legend and the cells name it, best first. */
export const CONDITIONS: readonly { condition: Condition; label: string; meaning: string }[] = [
  { condition: 'available', label: 'Available', meaning: 'every release due was served on time, no check failed' },
  { condition: 'degraded', label: 'Degraded', meaning: 'a consistency check failed, or the agency answered errors' },
  { condition: 'late', label: 'Late', meaning: 'a release was served after its time plus the grace, or is still due' },
  { condition: 'missing', label: 'Missing', meaning: 'a release was not served within 7 days of its time' },
];
const LABEL = new Map(CONDITIONS.map((c) => [c.condition, c.label]));
export const conditionLabel = (c: Condition): string => LABEL.get(c) ?? c;

/** What a day's cell says: its date, its condition and why (the text of its title and aria-label). */
export function dayLabel(day: Day): string {
  const why = day.reasons.map((r) => r.message.trim()).filter((m) => m !== '');
  return `${dayText(day.date)}: ${conditionLabel(day.condition).toLowerCase()}${why.length > 0 ? ` (${why.join('; ')})` : ''}`;
}

/**
 * The strip of the last CONDITION_DAYS days, oldest left, today right: one cell a day, coloured by its
 * condition. Days the answer lacks are cells without data, so every strip has the same width. Only
 * today's cell is in the tab order; the arrow keys move along the strip (assets/status-page.js).
 */
export function conditionStrip(datasetTitle: string, newestFirst: readonly Day[]): SafeHtml {
  const days = newestFirst.slice(0, CONDITION_DAYS).reverse();
  const missing = CONDITION_DAYS - days.length;
  const blanks = Array.from(
    { length: missing },
    (_, i) => html`<li class="day c-none" tabindex="-1" title="No data" aria-label="Day ${i + 1}: no data"></li>`,
  );
  const cells = days.map((day, i) => {
    const label = dayLabel(day);
    const today = i === days.length - 1;
    return html`<li
      class="day c-${day.condition}"
      tabindex="${today ? '0' : '-1'}"
      title="${label}"
      aria-label="${label}"
      data-date="${day.date}"
    ></li>`;
  });
  return html`<ol class="strip" aria-label="${datasetTitle}: the last ${CONDITION_DAYS} days, oldest first">
      ${blanks}${cells}
    </ol>
    <div class="strip-axis" aria-hidden="true"><span>${CONDITION_DAYS} days ago</span><span>Today</span></div>
    <p class="day-detail" data-day-detail aria-live="polite" hidden></p>`;
}

/** The legend of the strips' colours, with what each condition means. */
export function legend(withNoData: boolean): SafeHtml {
  const items = [
    ...CONDITIONS.map(
      (c) =>
        html`<li>
          <span class="swatch c-${c.condition}" aria-hidden="true"></span><strong>${c.label}</strong>: ${c.meaning}
        </li>`,
    ),
    ...(withNoData
      ? [html`<li><span class="swatch c-none" aria-hidden="true"></span><strong>No data</strong>: not yet tracked</li>`]
      : []),
  ];
  return html`<section class="legend" aria-labelledby="legend-title">
    <h2 id="legend-title" class="legend-title">Legend</h2>
    <ul class="legend-items">
      ${items}
    </ul>
  </section>`;
}

/** The days of a strip that were not available, newest first, as text (for readers without hover). */
export function notAvailableDays(newestFirst: readonly Day[]): SafeHtml {
  const bad = newestFirst.slice(0, CONDITION_DAYS).filter((d) => d.condition !== 'available');
  if (bad.length === 0) return html``;
  return html`<details class="bad-days">
    <summary>${bad.length} of the last ${CONDITION_DAYS} days not available</summary>
    <ul>
      ${bad.map((d) => html`<li><span class="swatch c-${d.condition}" aria-hidden="true"></span>${dayLabel(d)}</li>`)}
    </ul>
  </details>`;
}
