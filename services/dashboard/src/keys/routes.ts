import { KeyId, PLANS } from '@cds/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AdminRejectedError, type AdminClient } from '../admin/admin-client.ts';
import { paramsOf } from '../http/params.ts';
import type { Web } from '../http/web.ts';
import type { ThrottleRules } from '../security/throttle.ts';
import { PREFIX } from '../pages/layout.ts';
import type { UserStore } from '../users/user-store.ts';
import { isKeyId, noSuchKey, type KeyRows } from './key-rows.ts';
import { keysPage, revokeConfirmPage, rotatePage, type KeysPageState } from './page.ts';

const LABEL_MAX = 100;
const KeyParams = z.object({ keyId: KeyId });

/** The keys page: list, create (shown once), the rotation guide, and revocation behind a confirmation. */
export function registerKeyRoutes(
  app: FastifyInstance,
  deps: {
    web: Web;
    keyRows: KeyRows;
    admin: AdminClient;
    users: UserStore;
    publicApiUrl: string;
    rules: Pick<ThrottleRules, 'keyCreatePerAccount' | 'keyRevokePerAccount'>;
  },
): void {
  const { web, keyRows, admin, rules } = deps;
  const keyIdOf = (request: FastifyRequest) => paramsOf(request, KeyParams, noSuchKey).keyId;

  const renderKeys = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: Partial<KeysPageState> = {},
    status = 200,
  ) => {
    const { rows } = await keyRows.list(web.requireUser(request));
    return web.page(
      reply,
      request,
      'API keys',
      keysPage({ csrf: web.csrfOf(request), keys: rows, apiBaseUrl: deps.publicApiUrl, ...extra }),
      { status, active: 'keys' },
    );
  };
  const alreadyRevoked = (request: FastifyRequest, reply: FastifyReply, keyId: string) =>
    renderKeys(request, reply, { error: `Key ${keyId} was already revoked.` }, 409);

  app.get(`${PREFIX}/keys`, async (request, reply) => {
    const revoked = web.query(request, 'revoked');
    return renderKeys(request, reply, isKeyId(revoked) ? { info: `Key ${revoked} is revoked.` } : {});
  });
  app.post(`${PREFIX}/keys`, async (request, reply) => {
    const user = web.requireUser(request);
    const label = web.form(request, 'label').trim();
    if ([...label].length > LABEL_MAX) {
      return renderKeys(request, reply, { label, labelError: `Use at most ${LABEL_MAX} characters.` }, 400);
    }
    await web.throttled('key-create', user.account_id, rules.keyCreatePerAccount);
    let created;
    try {
      created = await admin.createKey(user.account_id, label === '' ? undefined : label);
    } catch (err) {
      if (!(err instanceof AdminRejectedError)) throw err;
      // The service-wide ceiling on active Free keys: the admin API's refusal, told as such.
      if (err.code === 'free_key_ceiling') {
        const error =
          'No new Free key can be created right now: the service holds as many active Free keys as it accepts. Your existing keys keep working; try again later, or move to a paid plan.';
        return renderKeys(request, reply, { label, error }, 409);
      }
      // Past the plan's cap on active keys the admin API answers 403, and for a closed account
      // (deleted by another tab meanwhile) too.
      if (err.status === 403) {
        const { plan, closed_at } = await admin.getAccount(user.account_id);
        if (closed_at !== undefined) {
          return renderKeys(request, reply, { label, error: 'This account is closed: no key was created.' }, 403);
        }
        const limit = PLANS[plan].maxActiveKeys;
        const error = `You have ${limit} active keys, the most the ${plan} plan allows. Revoke one before creating another.`;
        return renderKeys(request, reply, { label, error }, 403);
      }
      // Any other refusal: the admin API's own message, with its status (never a 500).
      return renderKeys(request, reply, { label, error: `No key was created: ${err.message}` }, err.status);
    }
    const last4 = created.key.slice(-4);
    const { plan } = await admin.getAccount(user.account_id);
    await deps.users.addKeyHint(user._id, created.key_id, last4, PLANS[plan].maxActiveKeys);
    user.key_hints = { ...user.key_hints, [created.key_id]: last4 };
    return renderKeys(request, reply, {
      created: { key: created.key, key_id: created.key_id, label: created.label },
      info: 'Key created.',
    });
  });

  app.get(`${PREFIX}/keys/rotate`, async (request, reply) => {
    const { rows, today } = await keyRows.list(web.requireUser(request));
    return web.page(
      reply,
      request,
      'Rotate a key',
      rotatePage({
        csrf: web.csrfOf(request),
        keys: rows,
        apiBaseUrl: deps.publicApiUrl,
        today: new Date(today * 86_400_000).toISOString().slice(0, 10),
      }),
      { active: 'keys' },
    );
  });

  app.get(`${PREFIX}/keys/:keyId/revoke`, async (request, reply) => {
    const key = await keyRows.own(web.requireUser(request), keyIdOf(request));
    if (key.status !== 'active') return web.redirect(reply, '/keys');
    return web.page(reply, request, 'Revoke key', revokeConfirmPage({ csrf: web.csrfOf(request), key }), {
      active: 'keys',
    });
  });
  app.post(`${PREFIX}/keys/:keyId/revoke`, async (request, reply) => {
    const user = web.requireUser(request);
    const key = await keyRows.own(user, keyIdOf(request));
    if (key.status !== 'active') return alreadyRevoked(request, reply, key.key_id);
    await web.throttled('key-revoke', user.account_id, rules.keyRevokePerAccount);
    try {
      await admin.revokeKey(key.key_id);
    } catch (err) {
      if (err instanceof AdminRejectedError) return alreadyRevoked(request, reply, key.key_id);
      throw err;
    }
    // Its hint goes with it (a revoked key is listed without its last 4 characters).
    await deps.users.dropKeyHint(user._id, key.key_id);
    return web.redirect(reply, '/keys', { revoked: key.key_id });
  });
}
