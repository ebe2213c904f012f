import { clientBucket } from '@cds/http';
import type { FastifyInstance } from 'fastify';
import { accountIdOf } from '../admin/account-id.ts';
import { badLinkPage, challengeNote, checkInboxPage, signupPage, verifiedPage, verifyPage } from './auth-pages.ts';
import { PREFIX } from '../pages/layout.ts';
import { passwordProblem } from '../security/password.ts';
import { normalizeEmail } from '../users/user-store.ts';
import type { AccountDeps } from './deps.ts';
import { Email, mailboxOf, mailDomainOf } from './email.ts';
import { takeLinkToken } from './link-token.ts';

/**
 * Sign-up (mails a confirmation link) and the confirmation, which creates the admin account. The
 * mailed link's token is taken off the URL at once (held in a cookie for the confirmation page).
 */
export function registerSignupRoutes(
  app: FastifyInstance,
  deps: Pick<AccountDeps, 'web' | 'cookies' | 'users' | 'passwords' | 'admin' | 'mails' | 'rules' | 'challenges'>,
): void {
  const { web, users, rules, cookies, challenges } = deps;
  const challenge = () => ({ challenge: challenges.issue('signup'), bits: challenges.bits });

  app.get(`${PREFIX}/signup`, async (request, reply) => {
    if (request.user) return web.redirect(reply, '/keys');
    // In a burst (the service's sign-ups, or this client's), the form carries a challenge from the start.
    const [total, fromClient] = await Promise.all([
      web.peek('signup-total', 'all', rules.signupTotal),
      web.peek('signup-ip', clientBucket(request.ip), rules.signupPerIp),
    ]);
    const burst = total >= rules.signupTotal.limit || fromClient >= rules.signupChallengeAfter.perIp;
    return web.page(
      reply,
      request,
      'Sign up',
      signupPage({ csrf: web.csrfOf(request), challenge: burst ? challenge() : undefined }),
      { active: 'signup' },
    );
  });
  app.post(`${PREFIX}/signup`, { config: { acceptPreSessionToken: true } }, async (request, reply) => {
    const email = web.form(request, 'email').trim();
    const password = web.form(request, 'password');
    const again = (
      status: number,
      state: { fieldErrors?: Partial<Record<'email' | 'password', string>>; error?: string; pow?: boolean },
    ) =>
      web.page(
        reply,
        request,
        'Sign up',
        signupPage({
          csrf: web.csrfOf(request),
          email,
          ...(state.fieldErrors ? { fieldErrors: state.fieldErrors } : {}),
          error: state.error,
          challenge: state.pow === true ? challenge() : undefined,
        }),
        { status, active: 'signup' },
      );
    const fromClient = await web.throttled('signup-ip', clientBucket(request.ip), rules.signupPerIp);
    if (!Email.safeParse(email).success) {
      return again(400, { fieldErrors: { email: 'Enter a valid e-mail address, like name@example.com.' } });
    }
    const normalized = normalizeEmail(email);
    await web.throttled('signup-addr', mailboxOf(normalized), rules.signupPerAddress);
    const fromDomain = await web.throttled('signup-domain', mailDomainOf(normalized), rules.signupPerDomain);
    const total = await web.count('signup-total', 'all', rules.signupTotal);
    const burst =
      total > rules.signupTotal.limit ||
      fromClient > rules.signupChallengeAfter.perIp ||
      fromDomain > rules.signupChallengeAfter.perDomain;
    const problem = passwordProblem(password, normalized);
    if (problem !== null) return again(400, { fieldErrors: { password: problem }, pow: burst });
    if (burst) {
      const pow = await challenges.verify('signup', web.form(request, 'pow_challenge'), web.form(request, 'pow_nonce'));
      if (!pow.ok)
        return again(429, {
          error: challengeNote(pow.why, 'Unusually many sign-ups are being made right now'),
          pow: true,
        });
    }
    const passwordHash = await deps.passwords.hash(password, 'anonymous');
    const created = await users.create({ email: normalized, passwordHash });
    // Same answer as a new sign-up (no account enumeration); the owner hears about it by mail.
    if (created === 'duplicate') await deps.mails.sendDuplicateSignup(normalized);
    else await deps.mails.sendVerification(created);
    return web.page(reply, request, 'Check your inbox', checkInboxPage());
  });

  const expired = () => badLinkPage('confirmation');
  app.get(`${PREFIX}/verify`, async (request, reply) => {
    // The mailed link (`?token=`) is the first hop: its token goes into a short-lived cookie of
    // this page's path and the browser is sent on to the same page without it (303), so the token
    // is in no later URL, Referer or history entry.
    if (takeLinkToken(web, cookies, request, reply, 'verify')) return reply;
    const userId = await users.peekToken(cookies.linkToken(request, 'verify') ?? '', 'verify');
    if (userId === null) return web.page(reply, request, 'Link expired', expired(), { status: 400 });
    return web.page(reply, request, 'Confirm your e-mail', verifyPage({ csrf: web.csrfOf(request) }));
  });
  app.post(`${PREFIX}/verify`, async (request, reply) => {
    // The token is used up first, atomically: of parallel confirmations with one link only one gets
    // past this line (security review #4); the others see the page for a used link.
    const userId = await users.consumeToken(cookies.linkToken(request, 'verify') ?? '', 'verify');
    cookies.dropLinkToken(reply, 'verify');
    const user = userId === null ? null : await users.byId(userId);
    if (user === null) return web.page(reply, request, 'Link expired', expired(), { status: 400 });
    if (user.account_id === null) {
      // Named by the user id (no personal data enters the key stream), under an id derived from it:
      // a second creation (two links of one user, or a retry after this one failed half-way) gets
      // the same account back. Should the admin API fail here, logging in mails a new link.
      const account = await deps.admin.createAccount(user._id, 'free', accountIdOf(user._id));
      await users.update(user._id, { account_id: account.account_id, verified: true });
    } else if (!user.verified) {
      await users.update(user._id, { verified: true });
    }
    return web.page(reply, request, 'E-mail confirmed', verifiedPage());
  });
}
