import type { ChallengeRefusal } from '../security/challenge.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from '../security/password.ts';
import { html, type SafeHtml } from '../security/html.ts';
import { challengeFields, csrfField, field, notice, type FormChallenge } from '../pages/forms.ts';
import { PREFIX } from '../pages/layout.ts';

interface FormState {
  csrf: string;
  email?: string | undefined;
  error?: string | undefined;
  fieldErrors?: Partial<Record<'email' | 'password', string>>;
  info?: string | undefined;
  /** A proof-of-work check the form must carry (sign-up in a burst; log-in after many wrong passwords). */
  challenge?: FormChallenge | undefined;
}

/** What a form says when it asks for (another) proof of work: `reason` when none came, else why the last failed. */
export function challengeNote(why: ChallengeRefusal, reason: string): string {
  const again = 'Enter your password again and send the form once more.';
  if (why === 'missing')
    return `${reason}, so this form asks your browser for a short check first (a few seconds). ${again}`;
  if (why === 'expired') return `The browser check of this form expired. ${again}`;
  if (why === 'reused') return `The browser check of this form was already used. ${again}`;
  return `The browser check of this form did not pass. ${again}`;
}

export const passwordHint = `${PASSWORD_MIN}–${PASSWORD_MAX} characters. A passphrase of a few unrelated words works well.`;

export function signupPage(s: FormState): SafeHtml {
  return html`<section class="auth card">
    <h1>Create your account</h1>
    <p class="lead">Free plan to start: 10 requests a minute, 1,000 a day, a year of history.</p>
    ${notice('error', s.error)}
    <form method="post" action="${PREFIX}/signup" novalidate>
      ${csrfField(s.csrf)}
      ${field({ label: 'E-mail address', name: 'email', type: 'email', value: s.email, autocomplete: 'email', maxlength: 254, error: s.fieldErrors?.email })}
      ${field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'new-password', hint: passwordHint, error: s.fieldErrors?.password })}
      ${challengeFields(s.challenge)}
      <button type="submit" class="button primary wide">Sign up</button>
    </form>
    <p class="aside">Already have an account? <a href="${PREFIX}/login">Log in</a></p>
  </section>`;
}

export function checkInboxPage(): SafeHtml {
  return html`<section class="auth card">
    <h1>Check your inbox</h1>
    <p class="lead">We sent a confirmation link to the address you gave. Open it to activate your account.</p>
    <p>
      The link works for 24 hours. Nothing arrived? Check the spam folder, or <a href="${PREFIX}/login">log in</a> to
      get a new link.
    </p>
  </section>`;
}

/** The confirmation form; the link's token is held in a cookie (http/cookies.ts), not in the page. */
export function verifyPage(s: { csrf: string }): SafeHtml {
  return html`<section class="auth card">
    <h1>Confirm your e-mail address</h1>
    <p class="lead">One click and your account is ready.</p>
    <form method="post" action="${PREFIX}/verify">
      ${csrfField(s.csrf)}
      <button type="submit" class="button primary wide">Confirm my e-mail address</button>
    </form>
  </section>`;
}

export function verifiedPage(): SafeHtml {
  return html`<section class="auth card">
    <h1>Your e-mail is confirmed</h1>
    <p class="lead">Your account is active on the free plan.</p>
    <a class="button primary wide" href="${PREFIX}/login">Log in</a>
  </section>`;
}

export function badLinkPage(what: string): SafeHtml {
  return html`<section class="auth card">
    <h1>This link does not work</h1>
    <p class="lead">The ${what} link is invalid, already used or expired.</p>
    <p>
      <a href="${PREFIX}/login">Log in</a> to get a new confirmation link, or
      <a href="${PREFIX}/forgot">reset your password</a>.
    </p>
  </section>`;
}

export function loginPage(s: FormState): SafeHtml {
  return html`<section class="auth card">
    <h1>Log in</h1>
    ${notice('info', s.info)} ${notice('error', s.error)}
    <form method="post" action="${PREFIX}/login" novalidate>
      ${csrfField(s.csrf)}
      ${field({ label: 'E-mail address', name: 'email', type: 'email', value: s.email, autocomplete: 'username', maxlength: 254 })}
      ${field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password' })}
      ${challengeFields(s.challenge)}
      <button type="submit" class="button primary wide">Log in</button>
    </form>
    <p class="aside">
      <a href="${PREFIX}/forgot">Forgot your password?</a> · New here? <a href="${PREFIX}/signup">Sign up</a>
    </p>
  </section>`;
}

export function forgotPage(s: FormState): SafeHtml {
  return html`<section class="auth card">
    <h1>Reset your password</h1>
    <p class="lead">Enter the address you signed up with; we will mail you a link to choose a new password.</p>
    ${notice('error', s.error)}
    <form method="post" action="${PREFIX}/forgot" novalidate>
      ${csrfField(s.csrf)}
      ${field({ label: 'E-mail address', name: 'email', type: 'email', value: s.email, autocomplete: 'email', maxlength: 254, error: s.fieldErrors?.email })}
      <button type="submit" class="button primary wide">Send reset link</button>
    </form>
    <p class="aside"><a href="${PREFIX}/login">Back to log in</a></p>
  </section>`;
}

export function forgotSentPage(): SafeHtml {
  return html`<section class="auth card">
    <h1>Check your inbox</h1>
    <p class="lead">If an account exists for that address, a reset link is on its way. It works for one hour.</p>
    <p><a href="${PREFIX}/login">Back to log in</a></p>
  </section>`;
}

/** The new-password form; the link's token is held in a cookie (http/cookies.ts), not in the page. */
export function resetPage(s: FormState): SafeHtml {
  return html`<section class="auth card">
    <h1>Choose a new password</h1>
    ${notice('error', s.error)}
    <form method="post" action="${PREFIX}/reset" novalidate>
      ${csrfField(s.csrf)}
      ${field({ label: 'New password', name: 'password', type: 'password', autocomplete: 'new-password', hint: passwordHint, error: s.fieldErrors?.password })}
      <button type="submit" class="button primary wide">Set new password</button>
    </form>
  </section>`;
}

export function messagePage(title: string, text: string, link?: { href: string; label: string }): SafeHtml {
  return html`<section class="auth card">
    <h1>${title}</h1>
    <p class="lead">${text}</p>
    ${link ? html`<a class="button primary" href="${link.href}">${link.label}</a>` : ''}
  </section>`;
}
