import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Cookies } from '../http/cookies.ts';
import type { Web } from '../http/web.ts';
import { loginPage, messagePage } from '../pages/auth-pages.ts';
import { PREFIX } from '../pages/layout.ts';
import { PASSWORD_MAX } from '../security/password.ts';
import { normalizeEmail } from '../users/user-store.ts';
import type { AccountDeps } from './deps.ts';
import { Email } from './email.ts';

/** The notes other pages leave for the log-in page (`?notice=`). */
export type LoginNotice = 'logged-out' | 'password-changed' | 'deleted';
// A Map, not an object literal: `?notice=constructor` must find nothing, not Object.prototype's members.
const NOTICES = new Map<string, string>([
  ['logged-out', 'You are logged out.'],
  ['password-changed', 'Your password is changed. Log in with the new one.'],
  ['deleted', 'Your account is deleted.'],
] satisfies [LoginNotice, string][]);

/** How a page that ends the session answers: its cookie cleared, then the log-in page with a note. */
export function leaveToLogin(
  to: { web: Web; cookies: Cookies },
  reply: FastifyReply,
  notice: LoginNotice,
): FastifyReply {
  to.cookies.endSession(reply);
  return to.web.redirect(reply, '/login', { notice });
}

/** The home redirect, log-in (a new session id each time) and log-out. */
export function registerLoginRoutes(
  app: FastifyInstance,
  deps: Pick<AccountDeps, 'web' | 'cookies' | 'users' | 'sessions' | 'passwords' | 'mails' | 'rules'>,
): void {
  const { web, cookies, rules } = deps;

  const home = (request: FastifyRequest, reply: FastifyReply) => web.redirect(reply, request.user ? '/keys' : '/login');
  app.get(PREFIX, home);
  app.get(`${PREFIX}/`, home);

  app.get(`${PREFIX}/login`, (request, reply) => {
    if (request.user) return web.redirect(reply, '/keys');
    const info = NOTICES.get(web.query(request, 'notice'));
    return web.page(reply, request, 'Log in', loginPage({ csrf: web.csrfOf(request), info }), { active: 'login' });
  });
  app.post(`${PREFIX}/login`, { config: { acceptPreSessionToken: true } }, async (request, reply) => {
    const email = web.form(request, 'email').trim();
    const password = web.form(request, 'password');
    const wrong = (message = 'The e-mail address or the password is wrong.') =>
      web.page(reply, request, 'Log in', loginPage({ csrf: web.csrfOf(request), email, error: message }), {
        status: 401,
        active: 'login',
      });
    await web.throttled('login-ip', request.ip, rules.loginPerIp);
    if (!Email.safeParse(email).success || password.length === 0 || password.length > PASSWORD_MAX * 4) {
      return wrong();
    }
    const normalized = normalizeEmail(email);
    await web.throttled('login-addr', normalized, rules.loginPerAddress);
    const user = await deps.users.byEmail(normalized);
    if (user === null) {
      await deps.passwords.burn(password);
      return wrong();
    }
    if (!(await deps.passwords.verify(password, user.password_hash))) return wrong();
    if (!user.verified) {
      await deps.mails.sendVerification(user);
      return web.page(
        reply,
        request,
        'Confirm your e-mail',
        messagePage(
          'Confirm your e-mail first',
          'Your address is not confirmed yet. We just sent you a new confirmation link; open it, then log in.',
        ),
        { status: 403 },
      );
    }
    // A new session id at every log-in (no fixation); the visitor's old session, if any, ends.
    const old = cookies.sessionId(request);
    if (old !== undefined) await deps.sessions.destroy(old);
    const session = await deps.sessions.create(user._id);
    cookies.startSession(reply, session.id);
    return web.redirect(reply, '/keys');
  });

  app.post(`${PREFIX}/logout`, async (request, reply) => {
    const sid = cookies.sessionId(request);
    if (sid !== undefined) await deps.sessions.destroy(sid);
    return leaveToLogin(deps, reply, 'logged-out');
  });
}
