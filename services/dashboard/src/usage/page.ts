import { PLANS, type Plan } from '@cds/contracts';
import { notice } from '../pages/forms.ts';
import { fmt } from '../pages/format.ts';
import { PREFIX } from '../pages/layout.ts';
import { html, type SafeHtml } from '../security/html.ts';
import type { Usage } from './usage-reader.ts';

function meter(label: string, used: number, limit: number): SafeHtml {
  const pct = Math.min(100, limit > 0 ? (used / limit) * 100 : 0);
  return html`<div class="meter-block">
    <div class="meter-label"><span>${label}</span><span>${fmt(used)} / ${fmt(limit)}</span></div>
    <meter
      min="0"
      max="${limit}"
      value="${used}"
      aria-label="${label}: ${fmt(used)} of ${fmt(limit)} requests"
      low="${Math.round(limit * 0.7)}"
      high="${Math.round(limit * 0.9)}"
      optimum="0"
    >
      ${pct.toFixed(0)}%
    </meter>
  </div>`;
}

/** A server-rendered SVG bar chart of requests per day (no script, no CDN). */
export function dailyChart(daily: Usage['daily']): SafeHtml {
  const w = 720;
  const h = 220;
  const pad = { l: 48, r: 8, t: 12, b: 28 };
  const max = Math.max(1, ...daily.map((d) => d.count));
  // Counts are whole numbers: the middle grid line must be one too (a ceiling of 5 would label 2.5 as "3").
  const ceiling = niceCeil(max);
  const niceMax = Number.isInteger(ceiling / 2) ? ceiling : ceiling * 2;
  const bw = (w - pad.l - pad.r) / Math.max(1, daily.length);
  const y = (v: number) => pad.t + (h - pad.t - pad.b) * (1 - v / niceMax);
  const ticks = [0, niceMax / 2, niceMax];
  return html`<svg
    class="chart"
    viewBox="0 0 ${w} ${h}"
    role="img"
    aria-labelledby="chart-title chart-desc"
    data-points="${JSON.stringify(daily.map((d) => [d.date, d.count]))}"
  >
    <title id="chart-title">Requests per day, last ${daily.length} days</title>
    <desc id="chart-desc">Total ${fmt(daily.reduce((a, d) => a + d.count, 0))} requests; peak ${fmt(max)}.</desc>
    ${ticks.map(
      (t) =>
        html`<g class="tick">
          <line x1="${pad.l}" x2="${w - pad.r}" y1="${y(t)}" y2="${y(t)}" />
          <text x="${pad.l - 6}" y="${y(t) + 4}" text-anchor="end">${fmt(Math.round(t))}</text>
        </g>`,
    )}
    ${daily.map((d, i) => {
      const top = y(d.count);
      return html`<rect
        class="bar"
        x="${(pad.l + i * bw + 1).toFixed(1)}"
        y="${top.toFixed(1)}"
        width="${Math.max(1, bw - 2).toFixed(1)}"
        height="${(h - pad.b - top).toFixed(1)}"
        ><title>${d.date}: ${fmt(d.count)} requests</title></rect
      >`;
    })}
    ${daily
      .filter((_, i) => i % 7 === daily.length % 7 || i === daily.length - 1)
      .map((d) => {
        const i = daily.indexOf(d);
        return html`<text class="xlabel" x="${(pad.l + i * bw + bw / 2).toFixed(1)}" y="${h - 8}" text-anchor="middle"
          >${d.date.slice(5)}</text
        >`;
      })}
  </svg>`;
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export function usagePage(s: { plan: Plan; usage: Usage }): SafeHtml {
  const r = PLANS[s.plan];
  const total = s.usage.daily.reduce((a, d) => a + d.count, 0);
  return html`<div class="page-head"><h1>Usage</h1></div>
    ${
      s.usage.unreadable.length > 0
        ? notice(
            'error',
            "Some of the gateway's counters for your account could not be read just now: the figures below may be too low. Try again in a minute.",
          )
        : ''
    }
    <section class="card">
      <h2>Right now</h2>
      <p class="muted">Admitted requests in the gateway's windows (UTC), against your ${s.plan} plan's limits.</p>
      ${meter('This minute', s.usage.minute, r.perMinute)} ${meter('Today', s.usage.day, r.perDay)}
    </section>
    <section class="card">
      <h2>Last 30 days <span class="count">${fmt(total)} requests</span></h2>
      ${
        total === 0
          ? html`<div class="empty">
              <p><strong>No requests yet.</strong></p>
              <p>
                Create a key on the <a href="${PREFIX}/keys">API keys</a> page and make your first call; it shows up
                here.
              </p>
            </div>`
          : ''
      }
      ${dailyChart(s.usage.daily)}
    </section>`;
}
