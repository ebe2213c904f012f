import { clientBucket } from '@cds/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Cookies } from '../http/cookies.ts';
import type { Web } from '../http/web.ts';
import { loginPage, messagePage } from './auth-pages.ts';
import { PREFIX } from '../pages/layout.ts';
import { PASSWORD_MAX } from '../security/password.ts';
import { normalizeEmail, type User } from '../users/user-store.ts';
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

/**
 * Re-hashes a password stored with weaker scrypt parameters than new ones get, now that it is at
 * hand. Only while the stored hash is still the one checked (a reset meanwhile wins); a failure is
 * logged and the log-in goes on, since the old hash still verifies.
 */
async function rehashIfWeaker(
  deps: Pick<AccountDeps, 'users' | 'passwords'>,
  request: FastifyRequest,
  user: User,
  password: string,
): Promise<void> {
  if (!deps.passwords.needsRehash(user.password_hash)) return;
  try {
    await deps.users.replacePasswordHash(user._id, user.password_hash, await deps.passwords.hash(password));
  } catch (err) {
    request.log.warn({ err_name: err instanceof Error ? err.name : 'unknown' }, 'password re-hash failed');
  }
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
    await web.throttled('login-ip', clientBucket(request.ip), rules.loginPerIp);
    if (!Email.safeParse(email).success || password.length === 0 || password.length > PASSWORD_MAX * 4) {
      return wrong();
    }
    const normalized = normalizeEmail(email);
    // Only wrong passwords use up the address's bucket (security review #7): the attempt holds a
    // place while it runs, so parallel guesses cannot overshoot, and gives it back once the password
    // is right. An unknown address counts like a wrong password, or the lock would tell them apart.
    const attempt = await web.failureThrottled('login-addr', normalized, rules.loginPerAddress);
    const user = await deps.users.byEmail(normalized);
    if (user === null) {
      await deps.passwords.burn(password);
      return wrong();
    }
    if (!(await deps.passwords.verify(password, user.password_hash))) return wrong();
    await attempt.passed();
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
    await rehashIfWeaker(deps, request, user, password);
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
