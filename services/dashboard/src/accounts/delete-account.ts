import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AdminRejectedError, type AdminClient } from '../admin/admin-client.ts';
import { accountPage, type PasswordFormState } from '../pages/app-pages.ts';
import { PREFIX } from '../pages/layout.ts';
import { registerChangePasswordRoute } from './change-password.ts';
import type { AccountDeps } from './deps.ts';
import { leaveToLogin } from './login.ts';

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

/** Revokes every active key of the account; one revoked meanwhile (a 4xx) is no failure. */
async function revokeActiveKeys(admin: AdminClient, accountId: string): Promise<void> {
  for (const key of await admin.listKeys(accountId)) {
    if (key.status !== 'active') continue;
    try {
      await admin.revokeKey(key.key_id);
    } catch (err) {
      if (!(err instanceof AdminRejectedError)) throw err;
    }
  }
}

/**
 * The account page, the password change, and the deletion behind the password: keys revoked
 * first, then the webhooks erased, then the user and sessions (a failure before the user is
 * deleted leaves it to retry). One user has exactly one account (its id is derived from the user
 * id), so revoking that account's keys revokes every key the user ever made.
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
    if (!(await deps.passwords.verify(web.form(request, 'password'), user.password_hash))) {
      return renderAccount(request, reply, { deleteError: 'The password is wrong; nothing was deleted.' }, 401);
    }
    await attempt.passed();
    // Keys first: if revoking fails, the account and its data stay and the user can retry.
    await revokeActiveKeys(admin, user.account_id);
    await deps.webhooks.deleteAccount(user.account_id);
    await deps.users.delete(user._id);
    await deps.sessions.destroyAllForUser(user._id);
    // Once more, now that no request can load the user: a key created meanwhile by a request of
    // another tab is revoked too. The user is gone and cannot retry, so a failure is only logged.
    try {
      await revokeActiveKeys(admin, user.account_id);
    } catch (err) {
      request.log.error(
        { account_id: user.account_id, err_name: err instanceof Error ? err.name : 'unknown' },
        'second revocation pass after account deletion failed',
      );
    }
    return leaveToLogin(deps, reply, 'deleted');
  });
}
