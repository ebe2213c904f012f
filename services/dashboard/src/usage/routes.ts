import type { FastifyInstance } from 'fastify';
import type { AdminClient } from '../admin/admin-client.ts';
import type { Web } from '../http/web.ts';
import { PREFIX } from '../pages/layout.ts';
import { usagePage } from './page.ts';
import type { UsageReader } from './usage-reader.ts';

/** The usage page: the gateway's counters for the account, against its plan. */
export function registerUsageRoutes(
  app: FastifyInstance,
  deps: { web: Web; admin: AdminClient; usage: UsageReader },
): void {
  const { web } = deps;
  app.get(`${PREFIX}/usage`, async (request, reply) => {
    const user = web.requireUser(request);
    const [account, usage] = await Promise.all([
      deps.admin.getAccount(user.account_id),
      deps.usage.read(user.account_id),
    ]);
    if (usage.unreadable.length > 0) {
      request.log.warn({ unreadable: usage.unreadable }, 'usage hashes do not match their contract: shown as empty');
    }
    return web.page(reply, request, 'Usage', usagePage({ plan: account.plan, usage }), { active: 'usage' });
  });
}
