import { clientBucket } from '@cds/http';
import type { FastifyInstance } from 'fastify';
import { badLinkPage, forgotPage, forgotSentPage, resetPage } from './auth-pages.ts';
import { PREFIX } from '../pages/layout.ts';
import { passwordProblem } from '../security/password.ts';
import { normalizeEmail } from '../users/user-store.ts';
import type { AccountDeps } from './deps.ts';
import { Email } from './email.ts';
import { leaveToLogin } from './login.ts';
import { takeLinkToken } from './link-token.ts';
import { sendInBackground } from './mails.ts';

/** "Forgot your password" (mails a reset link; same answer, at the same speed, for unknown addresses) and the reset itself. */
export function registerPasswordResetRoutes(
  app: FastifyInstance,
  deps: Pick<AccountDeps, 'web' | 'cookies' | 'users' | 'sessions' | 'passwords' | 'mails' | 'rules'>,
): void {
  const { web, users, rules, cookies } = deps;

  app.get(`${PREFIX}/forgot`, (request, reply) =>
    web.page(reply, request, 'Reset your password', forgotPage({ csrf: web.csrfOf(request) })),
  );
  app.post(`${PREFIX}/forgot`, async (request, reply) => {
    const email = web.form(request, 'email').trim();
    await web.throttled('reset-ip', clientBucket(request.ip), rules.resetPerIp);
    if (!Email.safeParse(email).success) {
      return web.page(
        reply,
        request,
        'Reset your password',
        forgotPage({ csrf: web.csrfOf(request), email, fieldErrors: { email: 'Enter a valid e-mail address.' } }),
        { status: 400 },
      );
    }
    const normalized = normalizeEmail(email);
    await web.throttled('reset-addr', normalized, rules.resetPerAddress);
    const user = await users.byEmail(normalized);
    // Not awaited: neither its time nor a failed send tells whether the address has an account.
    if (user !== null) sendInBackground(request.log, deps.mails.sendReset(user), 'reset');
    return web.page(reply, request, 'Check your inbox', forgotSentPage());
  });

  const expired = () => badLinkPage('password reset');
  app.get(`${PREFIX}/reset`, async (request, reply) => {
    // The mailed link's token goes into a cookie of this page, then a 303 to the page without it (link-token.ts).
    if (takeLinkToken(web, cookies, request, reply, 'reset')) return reply;
    if ((await users.peekToken(cookies.linkToken(request, 'reset') ?? '', 'reset')) === null) {
      return web.page(reply, request, 'Link expired', expired(), { status: 400 });
    }
    return web.page(reply, request, 'New password', resetPage({ csrf: web.csrfOf(request) }));
  });
  app.post(`${PREFIX}/reset`, async (request, reply) => {
    const token = cookies.linkToken(request, 'reset') ?? '';
    const password = web.form(request, 'password');
    const userId = await users.peekToken(token, 'reset');
    const user = userId === null ? null : await users.byId(userId);
    if (user === null) return web.page(reply, request, 'Link expired', expired(), { status: 400 });
    const problem = passwordProblem(password, user.email);
    if (problem !== null) {
      return web.page(
        reply,
        request,
        'New password',
        resetPage({ csrf: web.csrfOf(request), fieldErrors: { password: problem } }),
        { status: 400 },
      );
    }
    // Hashed before the link is used up: should hashing fail (a full queue), the link still works.
    // The link's holder proved the mailbox (its token was checked above): a user's hash, not an anonymous one.
    const passwordHash = await deps.passwords.hash(password, 'user');
    if ((await users.consumeToken(token, 'reset')) !== user._id) {
      cookies.dropLinkToken(reply, 'reset');
      return web.page(reply, request, 'Link expired', expired(), { status: 400 });
    }
    cookies.dropLinkToken(reply, 'reset');
    await users.update(user._id, { password_hash: passwordHash });
    // Every session of the account ends: whoever knew the old password is logged out.
    await deps.sessions.destroyAllForUser(user._id);
    // The owner hears of it (a takeover by reset must not go unnoticed); the change stands even if
    // the mail fails, so its failure is logged, not answered.
    sendInBackground(request.log, deps.mails.sendPasswordChanged(user), 'password-changed');
    return leaveToLogin(deps, reply, 'password-changed');
  });
}
