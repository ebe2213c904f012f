import { html, type SafeHtml } from '../security/html.ts';

/** The agencies' calendars are kept in New York time: the page writes times there (its script rewrites them to the reader's). */
export const PAGE_ZONE = 'America/New_York';

const WHEN = new Intl.DateTimeFormat('en-US', {
  timeZone: PAGE_ZONE,
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});
const DAY = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  year: 'numeric',
});
const MONTH = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', year: 'numeric' });

/**
 * A moment as a `<time>`: its text in New York time, which assets/status-page.js rewrites to the
 * reader's own time zone (`data-local`); without the script the New York time stays, and says so.
 */
export function moment(iso: string): SafeHtml {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return html`${iso}`;
  return html`<time datetime="${at.toISOString()}" data-local>${WHEN.format(at)}</time>`;
}

/** A calendar date (YYYY-MM-DD) as the page writes it: `Fri, Dec 5, 2026`. */
export function dayText(date: string): string {
  const at = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? date : DAY.format(at);
}

/** A month (YYYY-MM) as the page writes it: `Nov 2026`. */
export function monthText(month: string): string {
  const at = new Date(`${month}-01T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? month : MONTH.format(at);
}

/** A lag in seconds as a reader takes it in: `45 s`, `12 min`, `3.5 h`, `2.1 days`; a negative one is early. */
export function lagText(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '—';
  const sign = seconds < 0 ? '−' : '';
  const s = Math.abs(seconds);
  if (s < 60) return `${sign}${Math.round(s)} s`;
  if (s < 3_600) return `${sign}${Math.round(s / 60)} min`;
  if (s < 86_400) return `${sign}${trim(s / 3_600)} h`;
  return `${sign}${trim(s / 86_400)} days`;
}

const trim = (n: number): string => (n < 10 ? n.toFixed(1).replace(/\.0$/, '') : String(Math.round(n)));

/** `1 release`, `3 releases`. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
