import { timingSafeEqual, createHash } from 'node:crypto';
import { AccountId, AdminCreateAccount, AdminCreateSessionKey, KeyId, Plan } from '@cds/contracts';
import { ApiError, FailureLimiter, NotFoundError, parseBody, UnauthorizedError } from '@cds/http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { KeyCommands } from '../commands/index.ts';

export const CreateAccountBody = AdminCreateAccount;
export const CreateKeyBody = z.strictObject({ label: z.string().max(200).optional() }).optional();
export const SetPlanBody = z.strictObject({ plan: Plan });

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Checks `Authorization: Bearer <token>` in constant time (over digests, so lengths never leak). */
export function createAdminAuth(adminToken: string): (request: FastifyRequest) => void {
  const expected = digest(adminToken);
  return (request) => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (match === null) throw new UnauthorizedError('The admin token is required: send Authorization: Bearer <token>.');
    if (!timingSafeEqual(digest(match[1] ?? ''), expected)) throw new UnauthorizedError('The admin token is wrong.');
  };
}

/**
 * Failed admin authentications (no token, or a wrong one) per client address: past `maxFailures`
 * within `windowMs` of the first, every request from that address is refused (429 with
 * Retry-After) until the window ends, the right token included, so guessing cannot go on there;
 * other addresses are not affected. Addresses are counted whole: the callers are pods, and pods of
 * one node may share an IPv6 /64.
 */
export class AdminAuthThrottle extends FailureLimiter {
  constructor(opts: { maxFailures?: number; windowMs?: number; maxClients?: number } = {}) {
    super({
      maxFailures: opts.maxFailures ?? 10,
      windowMs: opts.windowMs ?? 60_000,
      maxClients: opts.maxClients ?? 10_000,
    });
  }
}

/** The admin routes under /admin/v1, every one behind the admin token (and its failure throttle). */
export function registerAdminRoutes(
  app: FastifyInstance,
  deps: { commands: KeyCommands; adminToken: string; throttle?: AdminAuthThrottle; nowMs?: () => number },
): void {
  const { commands } = deps;
  const auth = createAdminAuth(deps.adminToken);
  const throttle = deps.throttle ?? new AdminAuthThrottle();
  const nowMs = deps.nowMs ?? Date.now;
  // A malformed id cannot exist: answered like an unknown one.
  const accountId = (request: FastifyRequest): string => {
    const id = (request.params as { id?: unknown }).id;
    if (!AccountId.safeParse(id).success)
      throw new NotFoundError(`No account ${String(id).slice(0, 60)}.`, 'account_id');
    return id as string;
  };

  app.register(
    (admin, _opts, done) => {
      admin.addHook('onRequest', (request, _reply, next) => {
        const now = nowMs();
        const wait = throttle.blockedFor(request.ip, now);
        if (wait > 0) {
          next(
            new ApiError(
              'rate_limited',
              `Too many failed admin authentications from this address: retry in ${wait} s.`,
              { headers: { 'retry-after': String(wait) } },
            ),
          );
          return;
        }
        try {
          auth(request);
          next();
        } catch (err) {
          if (err instanceof UnauthorizedError) throttle.recordFailure(request.ip, now);
          next(err as Error);
        }
      });

      // With account_id, idempotent: 201 for the call that created the account, 200 with it for any other.
      admin.post('/accounts', async (request, reply) => {
        const body = parseBody(CreateAccountBody, request.body, 'body');
        const { account, created } = await commands.createAccount(body);
        return reply.code(created ? 201 : 200).send(account);
      });

      admin.get('/accounts/:id', (request) => commands.getAccount(accountId(request)));

      admin.post('/accounts/:id/keys', async (request, reply) => {
        const id = accountId(request);
        const body = parseBody(CreateKeyBody, request.body ?? undefined, 'body');
        reply.header('cache-control', 'no-store');
        return reply.code(201).send(await commands.createKey(id, { label: body?.label }));
      });

      // A dashboard session key (docs/dashboard-security.md "Session keys"); revoked like any key.
      admin.post('/accounts/:id/session-keys', async (request, reply) => {
        const id = accountId(request);
        const body = parseBody(AdminCreateSessionKey, request.body ?? undefined, 'body');
        reply.header('cache-control', 'no-store');
        return reply.code(201).send(await commands.createSessionKey(id, body.ttl_seconds));
      });

      admin.get('/accounts/:id/keys', (request) => ({ keys: commands.listKeys(accountId(request)) }));

      admin.put('/accounts/:id/plan', async (request) => {
        const id = accountId(request);
        const body = parseBody(SetPlanBody, request.body, 'body');
        return commands.setPlan(id, body.plan);
      });

      // Closes the account and revokes its active keys; idempotent (200 with the same answer), so a
      // revocation that failed halfway is finished by calling it again.
      admin.post('/accounts/:id/close', async (request, reply) => {
        const id = accountId(request);
        return reply.code(200).send(await commands.closeAccount(id));
      });

      admin.post('/keys/:key_id/revoke', async (request) => {
        const keyId = (request.params as { key_id?: unknown }).key_id;
        if (!KeyId.safeParse(keyId).success) throw new NotFoundError(`No key ${String(keyId).slice(0, 60)}.`, 'key_id');
        return commands.revokeKey(keyId as string);
      });
      done();
    },
    { prefix: '/admin/v1' },
  );
}
