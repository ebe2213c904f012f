import { AVAILABLE_SERIES_TYPES, MAX_WEBHOOK_ENDPOINTS, type NotificationTopic, type Plan } from '@cds/contracts';
import type { Delivery, WebhookEndpoint } from '@cds/webhooks';
import { html, type SafeHtml } from '../security/html.ts';
import { csrfField, notice } from '../pages/forms.ts';
import { PREFIX } from '../pages/layout.ts';
import type { EndpointFormValues, FieldErrors } from './endpoint-form.ts';

const BASE = `${PREFIX}/webhooks`;
const DOCS = 'docs/notifications.md';

/** A moment as the pages show it: UTC to the minute (seconds in the delivery log). */
function when(d: Date | null | undefined, seconds = false): SafeHtml {
  if (d === null || d === undefined) return html`<span class="muted">—</span>`;
  const iso = d.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, seconds ? 19 : 16).replace('T', ' ')} UTC</time>`;
}

const TOPIC_LABELS: Record<NotificationTopic, string> = {
  price: 'Price',
  volume: 'Volume',
  open_interest: 'Open interest',
  production: 'Production',
  stocks: 'Stocks',
  yield: 'Yield',
  planted_acres: 'Planted acres',
  harvested_acres: 'Harvested acres',
  refinery_inputs: 'Refinery inputs',
  ending_stocks: 'Ending stocks',
  cot_legacy: 'COT legacy (futures only)',
  cot_disaggregated: 'COT disaggregated (futures only)',
  cot_legacy_combined: 'COT combined legacy (futures and options)',
  cot_disaggregated_combined: 'COT combined disaggregated (futures and options)',
  cot_cit: 'COT supplement: index traders (CIT)',
  supply_demand: 'Supply and demand (balance sheets)',
};

function filters(e: WebhookEndpoint): SafeHtml {
  return html`<span class="filters">
    <span>${e.commodities === null ? 'All commodities' : e.commodities.join(', ')}</span>
    <span class="muted">${e.types === null ? 'every type of your plan' : e.types.join(', ')}</span>
  </span>`;
}

/** Enabled, disabled by its owner, or disabled by the notifier after failing (and since when). */
function stateBadge(e: WebhookEndpoint): SafeHtml {
  if (e.enabled) {
    return e.failing_since === null
      ? html`<span class="badge ok">Enabled</span>`
      : html`<span class="badge warn">Enabled, failing</span>`;
  }
  return e.disabled_reason === 'failing'
    ? html`<span class="badge bad">Disabled: failing for 3 days</span>`
    : html`<span class="badge muted">Disabled by you</span>`;
}

export interface WebhooksPageState {
  csrf: string;
  endpoints: WebhookEndpoint[];
  info?: string | undefined;
  error?: string | undefined;
}

export function webhooksPage(s: WebhooksPageState): SafeHtml {
  const full = s.endpoints.length >= MAX_WEBHOOK_ENDPOINTS;
  return html`<div class="page-head">
      <h1>Webhooks</h1>
      ${
        full
          ? html`<span class="button primary disabled" aria-disabled="true">Add an endpoint</span>`
          : html`<a class="button primary" href="${BASE}/new">Add an endpoint</a>`
      }
    </div>
    <p class="lead">
      We POST a signed JSON notification to your HTTPS endpoints whenever new data lands for the commodities and types
      they follow. How to verify a delivery: <code>${DOCS}</code>.
    </p>
    ${notice('success', s.info)} ${notice('error', s.error)}
    ${
      full
        ? notice(
            'info',
            `You have ${MAX_WEBHOOK_ENDPOINTS} endpoints, the most an account may have. Delete one to add another.`,
          )
        : ''
    }
    <section class="card">
      <h2>Your endpoints <span class="count">${s.endpoints.length} of ${MAX_WEBHOOK_ENDPOINTS}</span></h2>
      ${
        s.endpoints.length === 0
          ? html`<div class="empty">
              <p><strong>No endpoints yet.</strong></p>
              <p>Add one to be told when the official data you follow changes, instead of polling.</p>
            </div>`
          : html`<div class="table-wrap">
              <table>
                <caption class="sr-only">
                  Your webhook endpoints
                </caption>
                <thead>
                  <tr>
                    <th scope="col">URL</th>
                    <th scope="col">Notifies about</th>
                    <th scope="col">Status</th>
                    <th scope="col">Failing since</th>
                    <th scope="col">Last success</th>
                  </tr>
                </thead>
                <tbody>
                  ${s.endpoints.map(
                    (e) =>
                      html`<tr class="${e.enabled ? '' : 'dim'}">
                        <td class="url-cell"><a href="${BASE}/${e.id}" class="mono">${e.url}</a></td>
                        <td>${filters(e)}</td>
                        <td>${stateBadge(e)}</td>
                        <td>${when(e.failing_since)}</td>
                        <td>
                          ${e.last_success_at === null ? html`<span class="muted">never</span>` : when(e.last_success_at)}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      <p class="hint">
        Deliveries are retried with backoff for 24 hours; an endpoint that fails for 3 days is disabled and we mail you.
      </p>
    </section>`;
}

export interface EndpointFormState {
  csrf: string;
  mode: 'create' | 'edit';
  plan: Plan;
  values: EndpointFormValues;
  errors?: FieldErrors | undefined;
  /** The topics the plan lacks, with why (shown disabled). */
  lacking: Map<string, string>;
  /** The endpoint being edited. */
  endpoint?: WebhookEndpoint | undefined;
  /** A form-level error (the endpoint limit). */
  error?: string | undefined;
}

function errorText(id: string, message: string | undefined): SafeHtml {
  return message ? html`<p class="error-text" id="${id}-error">${message}</p>` : html``;
}

export function endpointFormPage(s: EndpointFormState): SafeHtml {
  const e = s.errors ?? {};
  const action = s.mode === 'create' ? BASE : `${BASE}/${s.endpoint?.id ?? ''}`;
  const title = s.mode === 'create' ? 'Add a webhook endpoint' : 'Edit the endpoint';
  const count = Object.keys(e).length;
  return html`<div class="page-head">
      <h1>${title}</h1>
      <a class="button ghost" href="${s.mode === 'create' ? BASE : `${BASE}/${s.endpoint?.id ?? ''}`}">Cancel</a>
    </div>
    ${notice('error', s.error)}
    ${count > 0 ? notice('error', count === 1 ? 'Please correct the field below.' : `Please correct the ${count} fields below.`) : ''}
    <form method="post" action="${action}" class="card endpoint-form" novalidate>
      ${csrfField(s.csrf)}
      <div class="field ${e.url ? 'has-error' : ''}">
        <label for="f-url">Endpoint URL</label>
        <p class="hint" id="f-url-hint">
          HTTPS only, reachable from the internet (private, loopback and link-local addresses are refused).
        </p>
        <input
          id="f-url"
          name="url"
          type="url"
          inputmode="url"
          value="${s.values.url}"
          placeholder="https://example.com/hooks/cds"
          maxlength="2000"
          required
          aria-describedby="f-url-hint${e.url ? ' f-url-error' : ''}"
          ${e.url ? html`aria-invalid="true"` : ''}
        />
        ${errorText('f-url', e.url)}
      </div>
      <div class="field ${e.commodities ? 'has-error' : ''}">
        <label for="f-commodities">Commodities</label>
        <p class="hint" id="f-commodities-hint">
          <code>all</code>, or commodity ids separated by commas, like <code>CORN, GOLD, CRUDE_OIL_WTI</code>.
        </p>
        <input
          id="f-commodities"
          name="commodities"
          type="text"
          value="${s.values.commodities}"
          placeholder="all"
          maxlength="7000"
          aria-describedby="f-commodities-hint${e.commodities ? ' f-commodities-error' : ''}"
          ${e.commodities ? html`aria-invalid="true"` : ''}
        />
        ${errorText('f-commodities', e.commodities)}
      </div>
      <fieldset
        class="field types ${e.types ? 'has-error' : ''}"
        ${e.types ? html`aria-describedby="f-types-error"` : ''}
      >
        <legend>Types</legend>
        <label class="choice">
          <input type="radio" name="types_mode" value="all" ${s.values.typesMode === 'all' ? html`checked` : ''} />
          Every type my plan includes (also types added later)
        </label>
        <label class="choice">
          <input type="radio" name="types_mode" value="some" ${s.values.typesMode === 'some' ? html`checked` : ''} />
          Only these:
        </label>
        <div class="checks">
          ${AVAILABLE_SERIES_TYPES.map((t) => {
            const why = s.lacking.get(t);
            return html`<label class="check ${why ? 'unavailable' : ''}">
              <input
                type="checkbox"
                name="types"
                value="${t}"
                ${why ? html`disabled aria-describedby="why-${t}"` : ''}
                ${!why && s.values.types.includes(t) ? html`checked` : ''}
              />
              ${TOPIC_LABELS[t]} <code>${t}</code>
              ${why ? html`<span class="why" id="why-${t}">${why}</span>` : ''}
            </label>`;
          })}
        </div>
        ${
          s.lacking.size > 0
            ? html`<p class="hint">
                COT formats your plan does not include cannot be chosen: see <a href="${PREFIX}/plan">Plan</a>.
              </p>`
            : ''
        }
        ${errorText('f-types', e.types)}
      </fieldset>
      <div class="field">
        <label class="choice">
          <input type="checkbox" name="enabled" ${s.values.enabled ? html`checked` : ''} />
          Enabled: deliver notifications to this endpoint
        </label>
      </div>
      <div class="row">
        <button type="submit" class="button primary">${s.mode === 'create' ? 'Add endpoint' : 'Save changes'}</button>
        <a class="button ghost" href="${s.mode === 'create' ? BASE : `${BASE}/${s.endpoint?.id ?? ''}`}">Cancel</a>
      </div>
    </form>`;
}

function secretPanel(secret: string, rotated: boolean): SafeHtml {
  return html`<section class="card created" aria-labelledby="secret-title">
    <h2 id="secret-title">${rotated ? 'Your new signing secret' : 'Your signing secret'}</h2>
    <p>
      <strong>Copy it now: it is shown only this once.</strong>
      ${rotated ? 'Deliveries from now on are signed with this one (and, for 24 hours, with the old one too).' : ''}
    </p>
    <div class="secret">
      <label for="new-secret" class="sr-only">Signing secret</label>
      <input id="new-secret" type="text" readonly value="${secret}" class="mono" data-select-on-focus />
      <button type="button" class="button primary" data-copy="new-secret">Copy secret</button>
    </div>
    <p class="hint">
      Every delivery carries <code>CDS-Signature: t=&lt;unix seconds&gt;,v1=&lt;hex&gt;</code>: the HMAC-SHA256, keyed
      with this whole secret, of <code>&lt;t&gt;.&lt;raw body&gt;</code>. Refuse a <code>t</code> more than 5 minutes
      from your clock, compare in constant time, and deduplicate on <code>CDS-Event-Id</code>. Verification code for
      Node and Python: <code>${DOCS}</code>, “The signature”.
    </p>
  </section>`;
}

function deliveryState(d: Delivery): SafeHtml {
  switch (d.status) {
    case 'delivered':
      return html`<span class="badge ok">Delivered</span>`;
    case 'failed':
      return html`<span class="badge bad">Failed</span>`;
    case 'delivering':
      return html`<span class="badge warn">Delivering</span>`;
    default:
      return html`<span class="badge muted">${d.attempts > 0 ? 'Retrying' : 'Pending'}</span>`;
  }
}

function lastResult(d: Delivery): SafeHtml {
  const a = d.last_attempt;
  if (a === null && d.status === 'failed') return html`<span class="muted">not sent: the endpoint was disabled</span>`;
  if (a === null) return html`<span class="muted">not tried yet</span>`;
  const code = a.status_code === null ? '' : `HTTP ${a.status_code}`;
  const text = [code, a.error ?? ''].filter((p) => p !== '').join(' · ');
  return html`<span class="${a.outcome === 'delivered' ? '' : 'bad-text'}">${text || a.outcome}</span>`;
}

function deliveriesTable(endpointId: string, deliveries: Delivery[], csrf: string, enabled: boolean): SafeHtml {
  if (deliveries.length === 0) {
    return html`<div class="empty">
      <p><strong>No deliveries yet.</strong></p>
      <p>Send a test event to check your receiver; real notifications follow when new data lands.</p>
    </div>`;
  }
  return html`<div class="table-wrap">
    <table class="deliveries">
      <caption class="sr-only">
        Recent deliveries, newest first
      </caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last result</th>
          <th scope="col">Next retry</th>
          <th scope="col"><span class="sr-only">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${deliveries.map(
          (d) =>
            html`<tr>
              <td>${when(d.created_at, true)}</td>
              <td>
                ${d.event_type} ${d.notification.test === true ? html`<span class="badge muted">test</span>` : ''}
                <br /><code class="small">${d.event_id}</code>
              </td>
              <td>${deliveryState(d)}</td>
              <td>${d.attempts}</td>
              <td>${lastResult(d)}</td>
              <td>${d.status === 'pending' ? when(d.next_attempt_at, true) : html`<span class="muted">—</span>`}</td>
              <td class="actions">
                <form method="post" action="${BASE}/${endpointId}/deliveries/${d.event_id}/resend">
                  ${csrfField(csrf)}
                  <button
                    type="submit"
                    class="button ghost small"
                    aria-label="Re-send ${d.event_id}"
                    ${enabled ? '' : html`disabled title="Enable the endpoint to re-send"`}
                  >
                    Re-send
                  </button>
                </form>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export interface EndpointPageState {
  csrf: string;
  endpoint: WebhookEndpoint;
  deliveries: Delivery[];
  /** The secret, right after creation or rotation (shown once). */
  secret?: { value: string; rotated: boolean } | undefined;
  info?: string | undefined;
  error?: string | undefined;
}

export function endpointPage(s: EndpointPageState): SafeHtml {
  const e = s.endpoint;
  const why =
    e.enabled || e.disabled_reason !== 'failing'
      ? ''
      : html`<p class="notice error" role="status">
          The notifier disabled this endpoint after its deliveries failed for 3
          days${e.failing_since === null ? '' : html` (failing since ${when(e.failing_since)})`}. Fix your receiver,
          then enable it and send a test event to check.
        </p>`;
  return html`<div class="page-head">
      <h1 class="url-title"><span class="sr-only">Endpoint </span><span class="mono">${e.url}</span></h1>
      <a class="button ghost" href="${BASE}">All endpoints</a>
    </div>
    ${notice('success', s.info)} ${notice('error', s.error)}
    ${s.secret ? secretPanel(s.secret.value, s.secret.rotated) : ''} ${why}
    <section class="card">
      <div class="card-head">
        <h2>Endpoint</h2>
        <div class="row">
          <a class="button ghost small" href="${BASE}/${e.id}/edit">Edit</a>
          <form method="post" action="${BASE}/${e.id}/${e.enabled ? 'disable' : 'enable'}">
            ${csrfField(s.csrf)}
            <button type="submit" class="button ghost small">${e.enabled ? 'Disable' : 'Enable'}</button>
          </form>
          <a class="button ghost small" href="${BASE}/${e.id}/rotate">Rotate secret</a>
          <a class="button danger small" href="${BASE}/${e.id}/delete">Delete</a>
        </div>
      </div>
      <dl class="facts">
        <dt>Status</dt>
        <dd>${stateBadge(e)}</dd>
        <dt>Commodities</dt>
        <dd>${e.commodities === null ? 'All' : e.commodities.join(', ')}</dd>
        <dt>Types</dt>
        <dd>${e.types === null ? 'Every type your plan includes' : e.types.join(', ')}</dd>
        <dt>Signing secret</dt>
        <dd><code>whsec_…${e.secret_hint}</code></dd>
        <dt>Failing since</dt>
        <dd>${when(e.failing_since)}</dd>
        <dt>Last success</dt>
        <dd>${e.last_success_at === null ? 'never' : when(e.last_success_at)}</dd>
        <dt>Endpoint id</dt>
        <dd><code>${e.id}</code></dd>
        <dt>Created</dt>
        <dd>${when(e.created_at)}</dd>
      </dl>
    </section>
    <section class="card">
      <div class="card-head">
        <h2>Recent deliveries <span class="count">${s.deliveries.length} shown</span></h2>
        <div class="row">
          <a class="button ghost small" href="${BASE}/${e.id}">Refresh</a>
          <form method="post" action="${BASE}/${e.id}/test">
            ${csrfField(s.csrf)}
            <button
              type="submit"
              class="button primary small"
              ${e.enabled ? '' : html`disabled aria-describedby="test-disabled"`}
            >
              Send test event
            </button>
          </form>
        </div>
      </div>
      ${e.enabled ? '' : html`<p class="hint" id="test-disabled">Enable the endpoint to send a test event or re-send.</p>`}
      ${deliveriesTable(e.id, s.deliveries, s.csrf, e.enabled)}
      <p class="hint">
        A re-send delivers the same event again (same <code>CDS-Event-Id</code>), retried for a fresh 24 hours.
      </p>
    </section>`;
}

export function deleteEndpointPage(s: { csrf: string; endpoint: WebhookEndpoint }): SafeHtml {
  const e = s.endpoint;
  return html`<section class="card narrow">
    <h1>Delete this endpoint?</h1>
    <p class="lead">
      <span class="mono break">${e.url}</span> will receive no more notifications, and its delivery log is erased. This
      cannot be undone.
    </p>
    <form method="post" action="${BASE}/${e.id}/delete" class="row">
      ${csrfField(s.csrf)}
      <button type="submit" class="button danger break">Delete ${e.url}</button>
      <a class="button ghost" href="${BASE}/${e.id}">Cancel</a>
    </form>
  </section>`;
}

export function rotateSecretPage(s: { csrf: string; endpoint: WebhookEndpoint }): SafeHtml {
  const e = s.endpoint;
  return html`<section class="card narrow">
    <h1>Rotate the signing secret?</h1>
    <p class="lead">
      Deliveries to <span class="mono break">${e.url}</span> will be signed with a new secret, shown once. The secret
      ending <code>…${e.secret_hint}</code> stays valid for 24 hours: until then every delivery carries both signatures,
      so your receiver keeps working while you put the new one in. A secret rotated before keeps only the newest of the
      two.
    </p>
    <form method="post" action="${BASE}/${e.id}/rotate" class="row">
      ${csrfField(s.csrf)}
      <button type="submit" class="button danger">Rotate the secret</button>
      <a class="button ghost" href="${BASE}/${e.id}">Cancel</a>
    </form>
  </section>`;
}
