/* global document, Element, HTMLElement */
// The status page's script (services/dashboard/src/status-page/): times in the reader's own time
// zone, and the day strips read by keyboard, pointer or touch. The page works without it: times
// then stay in New York time, and each strip's days not available are listed as text.
'use strict';

const local = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});
for (const el of document.querySelectorAll('time[data-local]')) {
  const at = new Date(el.getAttribute('datetime') || '');
  if (Number.isNaN(at.getTime())) continue;
  el.setAttribute('title', el.textContent || '');
  el.textContent = local.format(at);
}

/** Shows a day's words under its strip (the cell's aria-label). */
function show(cell) {
  const strip = cell.closest('.strip');
  const detail = strip && strip.parentElement ? strip.parentElement.querySelector('[data-day-detail]') : null;
  if (!detail) return;
  detail.hidden = false;
  detail.textContent = cell.getAttribute('aria-label') || '';
}

const dayOf = (target) => (target instanceof Element ? target.closest('.strip .day') : null);

document.addEventListener('focusin', (event) => {
  const cell = dayOf(event.target);
  if (cell) show(cell);
});
document.addEventListener('mouseover', (event) => {
  const cell = dayOf(event.target);
  if (cell) show(cell);
});
document.addEventListener('click', (event) => {
  const cell = dayOf(event.target);
  if (cell instanceof HTMLElement) cell.focus();
});

// One tab stop per strip (today's cell); the arrow keys, Home and End move along it.
document.addEventListener('keydown', (event) => {
  const cell = dayOf(event.target);
  if (!cell) return;
  const cells = Array.from(cell.parentElement ? cell.parentElement.children : []);
  const at = cells.indexOf(cell);
  const to = {
    ArrowLeft: at - 1,
    ArrowRight: at + 1,
    Home: 0,
    End: cells.length - 1,
  }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  const next = cells[Math.max(0, Math.min(cells.length - 1, to))];
  if (!(next instanceof HTMLElement)) return;
  cell.setAttribute('tabindex', '-1');
  next.setAttribute('tabindex', '0');
  next.focus();
});
