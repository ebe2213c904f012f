import type { AdminKey } from '../admin/admin-client.ts';
import { csrfField, field, notice } from '../pages/forms.ts';
import { PREFIX } from '../pages/layout.ts';
import { html, type SafeHtml } from '../security/html.ts';
import { dayToDate } from '../usage/index.ts';
import type { KeyRow } from './key-rows.ts';

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
