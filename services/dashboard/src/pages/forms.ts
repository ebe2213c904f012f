import { html, type SafeHtml } from '../security/html.ts';

export interface FieldOptions {
  label: string;
  name: string;
  type?: 'text' | 'email' | 'password' | 'hidden';
  value?: string | undefined;
  autocomplete?: string;
  hint?: string;
  required?: boolean;
  maxlength?: number;
  error?: string | undefined;
}

/** A labelled input with an optional hint and error message, wired with aria-describedby. */
export function field(f: FieldOptions): SafeHtml {
  const id = `f-${f.name}`;
  const described = [f.hint ? `${id}-hint` : '', f.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field ${f.error ? 'has-error' : ''}">
    <label for="${id}">${f.label}</label>
    ${f.hint ? html`<p class="hint" id="${id}-hint">${f.hint}</p>` : ''}
    <input
      id="${id}"
      name="${f.name}"
      type="${f.type ?? 'text'}"
      ${f.value !== undefined ? html`value="${f.value}"` : ''}
      ${f.autocomplete ? html`autocomplete="${f.autocomplete}"` : ''}
      ${f.maxlength ? html`maxlength="${f.maxlength}"` : ''}
      ${f.required === false ? '' : html`required`}
      ${described ? html`aria-describedby="${described}"` : ''}
      ${f.error ? html`aria-invalid="true"` : ''}
    />
    ${f.error ? html`<p class="error-text" id="${id}-error">${f.error}</p>` : ''}
  </div>`;
}

export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="_csrf" value="${token}" />`;

/** A message box: role=alert for errors, role=status for notices. */
export function notice(kind: 'error' | 'success' | 'info', text: SafeHtml | string | undefined): SafeHtml {
  if (text === undefined || text === '') return html``;
  return html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`;
}

/** A proof-of-work challenge a form carries (security/challenge.ts). */
export interface FormChallenge {
  challenge: string;
  bits: number;
}

/**
 * The fields of a proof-of-work challenge: the challenge, the nonce the page's script finds
 * (assets/dashboard.js) and its progress line, and a notice that the form needs JavaScript, which
 * the script removes when it starts (shown to browsers without it; a <noscript> would not be shown
 * where scripts are merely disabled).
 */
export function challengeFields(pow: FormChallenge | undefined): SafeHtml {
  if (pow === undefined) return html``;
  return html`<input type="hidden" name="pow_challenge" value="${pow.challenge}" />
    <input type="hidden" name="pow_nonce" value="" data-pow-challenge="${pow.challenge}" data-pow-bits="${pow.bits}" />
    <p class="hint pow-status" data-pow-status role="status" hidden></p>
    <div class="notice error" role="alert" data-pow-needs-script>
      This form needs a short check done by JavaScript in your browser, because unusually many attempts are being made
      right now. Enable JavaScript for this site and reload the page, or try again in an hour.
    </div>`;
}
