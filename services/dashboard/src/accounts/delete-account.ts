import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PREFIX } from '../pages/layout.ts';
import { registerChangePasswordRoute } from './change-password.ts';
import type { AccountDeps } from './deps.ts';
import { leaveToLogin } from './login.ts';
import { accountPage, type PasswordFormState } from './page.ts';

/** The notes other pages leave for the account page (`?notice=`). */
export type AccountNotice = 'password-changed';
// A Map, not an object literal: `?notice=constructor` must find nothing.
const NOTICES = new Map<string, string>([
  ['password-changed', 'Your password is changed. Every other session of your account is logged out.'],
] satisfies [AccountNotice, string][]);

/** What the account page shows besides the account itself. */
export interface AccountPageExtras {
  info?: string;
  passwordForm?: PasswordFormState;
  deleteError?: string;
}

export type RenderAccount = (
  request: FastifyRequest,
  reply: FastifyReply,
  extras?: AccountPageExtras,
  status?: number,
) => Promise<FastifyReply>;

/**
 * The account page, the password change, and the deletion behind the password: the account closed
 * first (the admin API revokes its keys and refuses new ones from then on), then the webhooks
 * erased, then the user and sessions (a failure before the user is deleted leaves it to retry).
 * One user has exactly one account (its id is derived from the user id), so closing that account
 * ends every key the user ever made, and every one a request still in flight might make.
 */
export function registerAccountPageRoutes(
  app: FastifyInstance,
  deps: Pick<
    AccountDeps,
    'web' | 'cookies' | 'users' | 'sessions' | 'passwords' | 'admin' | 'rules' | 'webhooks' | 'mails'
  >,
): void {
  const { web, admin } = deps;

  const renderAccount: RenderAccount = async (request, reply, extras = {}, status = 200) => {
    const user = web.requireUser(request);
    const account = await admin.getAccount(user.account_id);
    return web.page(
      reply,
      request,
      'Account',
      accountPage({
        csrf: web.csrfOf(request),
        email: user.email,
        userId: user._id,
        accountId: user.account_id,
        plan: account.plan,
        createdAt: user.created_at,
        ...extras,
      }),
      { status, active: 'account' },
    );
  };
  app.get(`${PREFIX}/account`, (request, reply) => {
    const info = NOTICES.get(web.query(request, 'notice'));
    return renderAccount(request, reply, info === undefined ? {} : { info });
  });
  registerChangePasswordRoute(app, deps, renderAccount);

  app.post(`${PREFIX}/account/delete`, async (request, reply) => {
    const user = web.requireUser(request);
    // The signed-in user's own bucket (security review #7): failed log-ins for the address, by
    // anyone, never keep its owner from deleting the account.
    const attempt = await web.failureThrottled('account-password', user._id, deps.rules.accountPasswordPerUser);
    if (!(await deps.passwords.verify(web.form(request, 'password'), user.password_hash, 'user'))) {
      return renderAccount(request, reply, { deleteError: 'The password is wrong; nothing was deleted.' }, 401);
    }
    await attempt.passed();
    // The account is closed first, at the admin API (the key authority): from then on it refuses
    // keys for it, also to a request of another tab that loaded the user before this deletion, and
    // it revokes every active key. If that fails (503 page), nothing is deleted and the user can
    // retry: closing again is idempotent and revokes what is still active.
    await admin.closeAccount(user.account_id);
    await deps.webhooks.deleteAccount(user.account_id);
    await deps.users.delete(user._id);
    await deps.sessions.destroyAllForUser(user._id);
    return leaveToLogin(deps, reply, 'deleted');
  });
}
