import type { Plan } from '@cds/contracts';
import { csrfField, field, notice } from '../pages/forms.ts';
import { PREFIX } from '../pages/layout.ts';
import { html, type SafeHtml } from '../security/html.ts';
import { passwordHint } from './auth-pages.ts';

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
