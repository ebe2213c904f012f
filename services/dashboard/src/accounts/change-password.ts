import type { FastifyInstance } from 'fastify';
import { PREFIX } from '../pages/layout.ts';
import { PASSWORD_MAX, passwordProblem } from '../security/password.ts';
import type { RenderAccount } from './delete-account.ts';
import type { AccountDeps } from './deps.ts';
import { sendInBackground } from './mails.ts';

/**
 * Changing the password on the account page, with the current one (ASVS V2.1.5/6): throttled per
 * user like the deletion, every session of the user ended and a new one started for this visitor,
 * and the owner told by mail, as after a reset.
 */
export function registerChangePasswordRoute(
  app: FastifyInstance,
  deps: Pick<AccountDeps, 'web' | 'cookies' | 'users' | 'sessions' | 'passwords' | 'mails' | 'rules'>,
  renderAccount: RenderAccount,
): void {
  const { web } = deps;
  app.post(`${PREFIX}/account/password`, async (request, reply) => {
    const user = web.requireUser(request);
    const current = web.form(request, 'current_password');
    const next = web.form(request, 'new_password');
    const refuse = (status: number, field: 'current_password' | 'new_password', message: string) =>
      renderAccount(
        request,
        reply,
        {
          passwordForm: {
            fieldErrors: field === 'current_password' ? { current_password: message } : { new_password: message },
          },
        },
        status,
      );

    // The new password's rules first: they cost no hash and tell nothing about the current one.
    const problem = passwordProblem(next, user.email);
    if (problem !== null) return refuse(400, 'new_password', problem);
    if (next === current) return refuse(400, 'new_password', 'Choose a password other than the current one.');
    if (current.length === 0 || current.length > PASSWORD_MAX * 4) {
      return refuse(401, 'current_password', 'The current password is wrong; nothing was changed.');
    }
    const attempt = await web.failureThrottled('account-password', user._id, deps.rules.accountPasswordPerUser);
    if (!(await deps.passwords.verify(current, user.password_hash, 'user'))) {
      return refuse(401, 'current_password', 'The current password is wrong; nothing was changed.');
    }
    await attempt.passed();
    // Only over the hash just checked: a reset (or another tab's change) that landed meanwhile wins.
    if (
      !(await deps.users.replacePasswordHash(user._id, user.password_hash, await deps.passwords.hash(next, 'user')))
    ) {
      return renderAccount(
        request,
        reply,
        { passwordForm: { error: 'Your password was changed elsewhere meanwhile; nothing was changed here.' } },
        409,
      );
    }
    // Every session ends, as after a reset (whoever holds another is out), and this visitor gets a
    // new one, so the change does not log out the person making it.
    await deps.sessions.destroyAllForUser(user._id);
    const session = await deps.sessions.create(user._id);
    deps.cookies.startSession(reply, session.id);
    sendInBackground(request.log, deps.mails.sendPasswordChanged(user), 'password-changed');
    return web.redirect(reply, '/account', { notice: 'password-changed' });
  });
}
