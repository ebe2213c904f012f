import type { FastifyInstance } from 'fastify';
import type { AdminClient } from '../admin/admin-client.ts';
import type { Web } from '../http/web.ts';
import { PREFIX } from '../pages/layout.ts';
import { planPage } from './page.ts';

/** The plan page: the account's plan and its limits. */
export function registerPlanRoutes(app: FastifyInstance, deps: { web: Web; admin: AdminClient }): void {
  const { web } = deps;
  app.get(`${PREFIX}/plan`, async (request, reply) => {
    const user = web.requireUser(request);
    const account = await deps.admin.getAccount(user.account_id);
    return web.page(reply, request, 'Plan', planPage({ plan: account.plan, accountId: account.account_id }), {
      active: 'plan',
    });
  });
}
