import { PLAN_NAMES, PLANS, type Plan } from '@cds/contracts';
import type { AdminKey } from '../admin/admin-client.ts';
import { html, type SafeHtml } from '../security/html.ts';
import { dayToDate, type Usage } from '../usage/usage-reader.ts';
import { passwordHint } from './auth-pages.ts';
import { csrfField, field, notice } from './forms.ts';
import { PREFIX } from './layout.ts';

export interface KeyRow extends AdminKey {
  last4?: string | undefined;
  lastUsedDay?: number | undefined;
}

const fmt = (n: number) => n.toLocaleString('en-US');
const day = (iso: string | undefined) => (iso ? iso.slice(0, 10) : '—');
const keyName = (k: AdminKey) => k.label || 'Untitled key';

function statusBadge(k: AdminKey): SafeHtml {
  return k.status === 'active'
    ? html`<span class="badge ok">Active</span>`
    : html`<span class="badge muted" title="Revoked ${k.revoked_at ?? ''}">Revoked</span>`;
}

function keysTable(keys: KeyRow[], opts: { actions: boolean }): SafeHtml {
  return html`<div class="table-wrap">
    <table>
      <caption class="sr-only">
        Your API keys
      </caption>
      <thead>
        <tr>
          <th scope="col">Label</th>
          <th scope="col">Key id</th>
          <th scope="col">Ends with</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Status</th>
          ${opts.actions ? html`<th scope="col"><span class="sr-only">Actions</span></th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${keys.map(
          (k) =>
            html`<tr class="${k.status === 'revoked' ? 'dim' : ''}">
              <td>${keyName(k)}</td>
              <td><code>${k.key_id}</code></td>
              <td>${k.last4 ? html`<code>…${k.last4}</code>` : html`<span class="muted">—</span>`}</td>
              <td>${day(k.created_at)}</td>
              <td>
                ${k.lastUsedDay !== undefined ? dayToDate(k.lastUsedDay) : html`<span class="muted">never</span>`}
              </td>
              <td>${statusBadge(k)}</td>
              ${
                opts.actions
                  ? html`<td class="actions">
                      ${
                        k.status === 'active'
                          ? html`<a
                              class="button danger small"
                              href="${PREFIX}/keys/${k.key_id}/revoke"
                              aria-label="Revoke ${keyName(k)} (${k.key_id})"
                              >Revoke</a
                            >`
                          : ''
                      }
                    </td>`
                  : ''
              }
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export interface KeysPageState {
  csrf: string;
  keys: KeyRow[];
  apiBaseUrl: string;
  created?: { key: string; key_id: string; label?: string | undefined } | undefined;
  info?: string | undefined;
  error?: string | undefined;
  label?: string | undefined;
  labelError?: string | undefined;
}

function createdPanel(c: NonNullable<KeysPageState['created']>, apiBaseUrl: string): SafeHtml {
  return html`<section class="card created" aria-labelledby="created-title">
    <h2 id="created-title">Your new key${c.label ? html` “${c.label}”` : ''}</h2>
    <p><strong>Copy it now: it is shown only this once.</strong> We keep only its hash, so nobody can show it again.</p>
    <div class="secret">
      <label for="new-key" class="sr-only">New API key</label>
      <input id="new-key" type="text" readonly value="${c.key}" class="mono" data-select-on-focus />
      <button type="button" class="button primary" data-copy="new-key">Copy key</button>
    </div>
    <p class="hint">Key id <code>${c.key_id}</code>. Try it:</p>
    <pre class="code"><code>curl -H "Authorization: Bearer ${c.key}" \\
  "${apiBaseUrl}/commodities"</code></pre>
  </section>`;
}

export function keysPage(s: KeysPageState): SafeHtml {
  const active = s.keys.filter((k) => k.status === 'active').length;
  return html`<div class="page-head">
      <h1>API keys</h1>
      <a class="button ghost" href="${PREFIX}/keys/rotate">Rotate a key</a>
    </div>
    ${notice('success', s.info)} ${notice('error', s.error)} ${s.created ? createdPanel(s.created, s.apiBaseUrl) : ''}
    <section class="card">
      <h2>Create a key</h2>
      <p class="muted">Use one key per application, so you can rotate or revoke each on its own.</p>
      <form method="post" action="${PREFIX}/keys" class="inline-form">
        ${csrfField(s.csrf)}
        ${field({ label: 'Label', name: 'label', value: s.label, required: false, maxlength: 100, hint: 'Optional, e.g. “production” or “laptop”.', error: s.labelError })}
        <button type="submit" class="button primary">Create key</button>
      </form>
    </section>
    <section class="card">
      <h2>Your keys <span class="count">${active} active</span></h2>
      ${
        s.keys.length === 0
          ? html`<div class="empty">
              <p><strong>No keys yet.</strong></p>
              <p>Create your first key above, then call <code>${s.apiBaseUrl}/commodities</code> with it.</p>
            </div>`
          : keysTable(s.keys, { actions: true })
      }
      <p class="hint">Revocation is immediate and irreversible: every gateway refuses the key within milliseconds.</p>
    </section>`;
}

export function revokeConfirmPage(s: { csrf: string; key: KeyRow }): SafeHtml {
  const k = s.key;
  return html`<section class="card narrow">
    <h1>Revoke “${keyName(k)}”?</h1>
    <p class="lead">
      Key <code>${k.key_id}</code>${k.last4 ? html` (ending <code>…${k.last4}</code>)` : ''} will stop working at once,
      everywhere. This cannot be undone.
    </p>
    <form method="post" action="${PREFIX}/keys/${k.key_id}/revoke" class="row">
      ${csrfField(s.csrf)}
      <button type="submit" class="button danger">Revoke key ${k.key_id}</button>
      <a class="button ghost" href="${PREFIX}/keys">Cancel</a>
    </form>
  </section>`;
}

export function rotatePage(s: { csrf: string; keys: KeyRow[]; apiBaseUrl: string; today: string }): SafeHtml {
  const active = s.keys.filter((k) => k.status === 'active');
  return html`<div class="page-head"><h1>Rotate a key</h1></div>
    <p class="lead">Swap a key without downtime: an account may hold several keys at once.</p>
    <ol class="steps">
      <li class="card">
        <h2>Generate a new key</h2>
        <form method="post" action="${PREFIX}/keys" class="inline-form">
          ${csrfField(s.csrf)}
          ${field({ label: 'Label for the new key', name: 'label', value: `rotated ${s.today}`, required: false, maxlength: 100 })}
          <button type="submit" class="button primary">Generate new key</button>
        </form>
      </li>
      <li class="card">
        <h2>Switch your applications</h2>
        <p>
          Put the new key wherever the old one is used (environment variables, secret stores) and redeploy. Both keys
          work meanwhile.
        </p>
        <pre class="code"><code>export CDS_API_KEY=&lt;new key&gt;
curl -H "Authorization: Bearer $CDS_API_KEY" "${s.apiBaseUrl}/commodities"</code></pre>
      </li>
      <li class="card">
        <h2>Verify</h2>
        <p>Check that the new key is being used and the old one no longer is (“last used” is per UTC day).</p>
        ${
          active.length === 0
            ? html`<div class="empty"><p>No active keys.</p></div>`
            : keysTable(active, { actions: false })
        }
      </li>
      <li class="card">
        <h2>Revoke the old key</h2>
        ${
          active.length < 2
            ? html`<p class="muted">Once you have a new key in use, the old one appears here to revoke.</p>`
            : html`<ul class="plain">
                ${active.map(
                  (k) =>
                    html`<li>
                      <a
                        class="button danger small"
                        href="${PREFIX}/keys/${k.key_id}/revoke"
                        aria-label="Revoke ${keyName(k)} (${k.key_id})"
                        >Revoke</a
                      >
                      ${keyName(k)} <code>${k.key_id}</code> · created ${day(k.created_at)}
                    </li>`,
                )}
              </ul>`
        }
      </li>
    </ol>`;
}

function planCard(name: Plan, current: boolean): SafeHtml {
  const r = PLANS[name];
  return html`<article class="plan ${current ? 'current' : ''}" aria-label="${name} plan">
    <h3>${name[0]?.toUpperCase()}${name.slice(1)} ${current ? html`<span class="badge ok">Your plan</span>` : ''}</h3>
    <dl>
      <dt>Requests/min</dt>
      <dd>${fmt(r.perMinute)}</dd>
      <dt>Requests/day</dt>
      <dd>${fmt(r.perDay)}</dd>
      <dt>History</dt>
      <dd>${r.historyMonths === null ? 'Full' : `${r.historyMonths} months`}</dd>
      <dt>COT legacy</dt>
      <dd>${r.cotLegacy ? 'Yes' : 'No'}</dd>
      <dt>COT disaggregated</dt>
      <dd>${r.cotDisaggregated ? 'Yes' : 'No'}</dd>
    </dl>
  </article>`;
}

export function planPage(s: { plan: Plan; accountId: string }): SafeHtml {
  return html`<div class="page-head"><h1>Plan</h1></div>
    <p class="lead">You are on the <strong>${s.plan}</strong> plan.</p>
    <div class="plans">${PLAN_NAMES.map((p) => planCard(p, p === s.plan))}</div>
    <section class="card">
      <h2>Upgrading</h2>
      <p>
        Plan changes are made by our operators. Write to support with your account id <code>${s.accountId}</code> and
        the plan you want; the change reaches every key of the account at once.
      </p>
    </section>`;
}

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

/** The change-password form's state after a refused attempt. */
export interface PasswordFormState {
  error?: string | undefined;
  fieldErrors?: Partial<Record<'current_password' | 'new_password', string>>;
}

export function accountPage(s: {
  csrf: string;
  email: string;
  userId: string;
  accountId: string;
  plan: Plan;
  createdAt: Date;
  info?: string | undefined;
  passwordForm?: PasswordFormState | undefined;
  deleteError?: string | undefined;
}): SafeHtml {
  const pw = s.passwordForm ?? {};
  return html`<div class="page-head"><h1>Account</h1></div>
    ${notice('success', s.info)}
    <section class="card">
      <dl class="facts">
        <dt>E-mail</dt>
        <dd>${s.email}</dd>
        <dt>Account id</dt>
        <dd><code>${s.accountId}</code></dd>
        <dt>Plan</dt>
        <dd><a href="${PREFIX}/plan">${s.plan}</a></dd>
        <dt>Member since</dt>
        <dd>${s.createdAt.toISOString().slice(0, 10)}</dd>
      </dl>
    </section>
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <p>Every other session of your account is logged out, and we mail you a note of the change.</p>
      ${notice('error', pw.error)}
      <form method="post" action="${PREFIX}/account/password" novalidate>
        ${csrfField(s.csrf)}
        ${field({ label: 'Current password', name: 'current_password', type: 'password', autocomplete: 'current-password', error: pw.fieldErrors?.current_password })}
        ${field({ label: 'New password', name: 'new_password', type: 'password', autocomplete: 'new-password', hint: passwordHint, error: pw.fieldErrors?.new_password })}
        <button type="submit" class="button primary">Change password</button>
      </form>
      <p class="aside">Forgot your current password? <a href="${PREFIX}/forgot">Reset it by mail</a>.</p>
    </section>
    <section class="card danger-zone" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete my account</h2>
      <p>
        This revokes every key of the account at once, deletes its webhook endpoints with their delivery log, and erases
        your e-mail address and password. It cannot be undone.
      </p>
      ${notice('error', s.deleteError)}
      <form method="post" action="${PREFIX}/account/delete" class="inline-form">
        ${csrfField(s.csrf)}
        ${field({ label: 'Your password, to confirm', name: 'password', type: 'password', autocomplete: 'current-password' })}
        <button type="submit" class="button danger">Delete my account</button>
      </form>
    </section>`;
}

export function explorerPlaceholder(apiBaseUrl: string): SafeHtml {
  return html`<div class="page-head"><h1>Data explorer</h1></div>
    <section class="card empty">
      <p><strong>The data explorer is on its way.</strong></p>
      <p>
        Meanwhile, try the API directly:
        <code>curl -H "Authorization: Bearer &lt;key&gt;" "${apiBaseUrl}/commodities"</code>
      </p>
    </section>`;
}

export function errorPage(status: number, title: string, message: string, link?: SafeHtml): SafeHtml {
  return html`<section class="card narrow error-page">
    <p class="status-code">${status}</p>
    <h1>${title}</h1>
    <p class="lead">${message}</p>
    ${link ?? html`<p><a href="${PREFIX}/">Back to the dashboard</a></p>`}
  </section>`;
}
