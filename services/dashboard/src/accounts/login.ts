import { clientBucket } from '@cds/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Cookies } from '../http/cookies.ts';
import type { Web } from '../http/web.ts';
import { challengeNote, loginPage, messagePage } from './auth-pages.ts';
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
    await deps.users.replacePasswordHash(user._id, user.password_hash, await deps.passwords.hash(password, 'user'));
  } catch (err) {
    request.log.warn({ err_name: err instanceof Error ? err.name : 'unknown' }, 'password re-hash failed');
  }
}

/** The home redirect, log-in (a new session id each time) and log-out. */
export function registerLoginRoutes(
  app: FastifyInstance,
  deps: Pick<AccountDeps, 'web' | 'cookies' | 'users' | 'sessions' | 'passwords' | 'mails' | 'rules' | 'challenges'>,
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
    const form = (status: number, error: string, pow?: { scope: string }) =>
      web.page(
        reply,
        request,
        'Log in',
        loginPage({
          csrf: web.csrfOf(request),
          email,
          error,
          challenge: pow ? { challenge: deps.challenges.issue(pow.scope), bits: deps.challenges.bits } : undefined,
        }),
        { status, active: 'login' },
      );
    const wrong = () => form(401, 'The e-mail address or the password is wrong.');
    const bucket = clientBucket(request.ip);
    await web.throttled('login-ip', bucket, rules.loginPerIp);
    if (!Email.safeParse(email).success || password.length === 0 || password.length > PASSWORD_MAX * 4) {
      return wrong();
    }
    const normalized = normalizeEmail(email);
    // Only wrong passwords use up the address's buckets (security review #7): an attempt holds a
    // place while it runs, so parallel guesses cannot overshoot, and gives it back once the password
    // is right (or was never checked). An unknown address counts like a wrong password, or the lock
    // would tell them apart. The lock is per address and client bucket: a guesser elsewhere cannot
    // lock the owner out. Per address alone there is a loose bound, and past a few failures a
    // proof of work for every client, which the owner's browser does by itself.
    const fromClient = await web.failureThrottled(
      'login-addr-client',
      `${normalized} ${bucket}`,
      rules.loginPerAddressClient,
    );
    let fromAnywhere: Awaited<ReturnType<Web['failureThrottled']>>;
    try {
      fromAnywhere = await web.failureThrottled('login-addr', normalized, rules.loginPerAddress);
    } catch (err) {
      await fromClient.passed();
      throw err;
    }
    const giveBack = () => Promise.all([fromClient.passed(), fromAnywhere.passed()]);
    const scope = `login:${normalized}`;
    let verified: User | undefined;
    try {
      if (fromAnywhere.count > rules.loginChallengeAfter) {
        const pow = await deps.challenges.verify(
          scope,
          web.form(request, 'pow_challenge'),
          web.form(request, 'pow_nonce'),
        );
        if (!pow.ok) {
          await giveBack();
          return form(429, challengeNote(pow.why, 'Many wrong passwords were given for this address'), { scope });
        }
      }
      const user = await deps.users.byEmail(normalized);
      if (user === null) await deps.passwords.burn(password);
      else if (await deps.passwords.verify(password, user.password_hash, 'anonymous')) verified = user;
    } catch (err) {
      // Nothing was checked (a dependency down, the hasher's budget spent): no failure to count.
      await giveBack();
      throw err;
    }
    if (verified === undefined) {
      // The next try of this address will need a check too: the form carries one already.
      return fromAnywhere.count >= rules.loginChallengeAfter
        ? form(401, 'The e-mail address or the password is wrong.', { scope })
        : wrong();
    }
    const user = verified;
    await giveBack();
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
