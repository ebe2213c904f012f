import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AdminRejectedError } from '../admin/admin-client.ts';
import { accountPage } from '../pages/app-pages.ts';
import { PREFIX } from '../pages/layout.ts';
import type { AccountDeps } from './deps.ts';
import { leaveToLogin } from './login.ts';

/**
 * The account page and the deletion behind the password: keys revoked first, then the webhooks
 * erased, then the user and sessions (a failure before the user is deleted leaves it to retry).
 */
export function registerAccountPageRoutes(
  app: FastifyInstance,
  deps: Pick<AccountDeps, 'web' | 'cookies' | 'users' | 'sessions' | 'passwords' | 'admin' | 'rules' | 'webhooks'>,
): void {
  const { web, admin } = deps;

  const renderAccount = async (request: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
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
        error,
      }),
      { status, active: 'account' },
    );
  };
  app.get(`${PREFIX}/account`, (request, reply) => renderAccount(request, reply));
  app.post(`${PREFIX}/account/delete`, async (request, reply) => {
    const user = web.requireUser(request);
    await web.throttled('login-addr', user.email, deps.rules.loginPerAddress);
    if (!(await deps.passwords.verify(web.form(request, 'password'), user.password_hash))) {
      return renderAccount(request, reply, 'The password is wrong; nothing was deleted.', 401);
    }
    // Keys first: if revoking fails, the account and its data stay and the user can retry.
    for (const key of await admin.listKeys(user.account_id)) {
      if (key.status !== 'active') continue;
      try {
        await admin.revokeKey(key.key_id);
      } catch (err) {
        if (!(err instanceof AdminRejectedError)) throw err;
      }
    }
    await deps.webhooks.deleteAccount(user.account_id);
    await deps.users.delete(user._id);
    await deps.sessions.destroyAllForUser(user._id);
    return leaveToLogin(deps, reply, 'deleted');
  });
}
