import { clientBucket } from '@cds/http';
import type { FastifyInstance } from 'fastify';
import { accountIdOf } from '../admin/account-id.ts';
import { badLinkPage, checkInboxPage, signupPage, verifiedPage, verifyPage } from './auth-pages.ts';
import { PREFIX } from '../pages/layout.ts';
import { passwordProblem } from '../security/password.ts';
import { normalizeEmail } from '../users/user-store.ts';
import type { AccountDeps } from './deps.ts';
import { Email } from './email.ts';

/** Sign-up (mails a confirmation link) and the confirmation, which creates the admin account. */
export function registerSignupRoutes(
  app: FastifyInstance,
  deps: Pick<AccountDeps, 'web' | 'users' | 'passwords' | 'admin' | 'mails' | 'rules'>,
): void {
  const { web, users, rules } = deps;

  app.get(`${PREFIX}/signup`, (request, reply) => {
    if (request.user) return web.redirect(reply, '/keys');
    return web.page(reply, request, 'Sign up', signupPage({ csrf: web.csrfOf(request) }), { active: 'signup' });
  });
  app.post(`${PREFIX}/signup`, { config: { acceptPreSessionToken: true } }, async (request, reply) => {
    const email = web.form(request, 'email').trim();
    const password = web.form(request, 'password');
    const again = (status: number, fieldErrors: Partial<Record<'email' | 'password', string>>) =>
      web.page(reply, request, 'Sign up', signupPage({ csrf: web.csrfOf(request), email, fieldErrors }), {
        status,
        active: 'signup',
      });
    await web.throttled('signup-ip', clientBucket(request.ip), rules.signupPerIp);
    if (!Email.safeParse(email).success)
      return again(400, { email: 'Enter a valid e-mail address, like name@example.com.' });
    const normalized = normalizeEmail(email);
    await web.throttled('signup-addr', normalized, rules.signupPerAddress);
    const problem = passwordProblem(password, normalized);
    if (problem !== null) return again(400, { password: problem });
    const created = await users.create({ email: normalized, passwordHash: await deps.passwords.hash(password) });
    // Same answer as a new sign-up (no account enumeration); the owner hears about it by mail.
    if (created === 'duplicate') await deps.mails.sendDuplicateSignup(normalized);
    else await deps.mails.sendVerification(created);
    return web.page(reply, request, 'Check your inbox', checkInboxPage());
  });

  const expired = () => badLinkPage('confirmation');
  app.get(`${PREFIX}/verify`, async (request, reply) => {
    const token = web.query(request, 'token');
    const userId = await users.peekToken(token, 'verify');
    if (userId === null) return web.page(reply, request, 'Link expired', expired(), { status: 400 });
    return web.page(reply, request, 'Confirm your e-mail', verifyPage({ csrf: web.csrfOf(request), token }));
  });
  app.post(`${PREFIX}/verify`, async (request, reply) => {
    // The token is used up first, atomically: of parallel confirmations with one link only one gets
    // past this line (security review #4); the others see the page for a used link.
    const userId = await users.consumeToken(web.form(request, 'token'), 'verify');
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
