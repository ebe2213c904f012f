import {
  AdminAccount,
  AdminClosedAccount,
  AdminCreatedKey,
  AdminKey,
  AdminKeyList,
  type AdminCreateAccount,
  type AdminCreateSessionKey,
  type Plan,
} from '@cds/contracts';
import type { z } from 'zod';

export { AdminAccount, AdminKey };

/** The admin API could not be reached or answered 5xx: a 503 for the user. */
export class AdminUnavailableError extends Error {
  override readonly name = 'AdminUnavailableError';
}

/** The admin API refused the command (4xx), with its error code and message. */
export class AdminRejectedError extends Error {
  override readonly name = 'AdminRejectedError';
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The commands the dashboard sends to the admin API (services/accounts); it keeps no key state itself. */
export interface AdminClient {
  /**
   * Creates an account; with `accountId` (see accountIdOf) it is idempotent: the admin API answers
   * an account that already has this id (200) instead of creating another (201).
   */
  createAccount(name: string, plan: Plan, accountId?: string): Promise<AdminAccount>;
  getAccount(accountId: string): Promise<AdminAccount>;
  listKeys(accountId: string): Promise<AdminKey[]>;
  createKey(accountId: string, label: string | undefined): Promise<AdminCreatedKey>;
  /** A dashboard session key living `ttlSeconds` (outside the plan's cap; docs/dashboard-security.md). */
  createSessionKey(accountId: string, ttlSeconds: number): Promise<AdminCreatedKey>;
  revokeKey(keyId: string): Promise<AdminKey>;
  /**
   * Closes the account and revokes its active keys (the admin API refuses keys for it from then
   * on). Idempotent: calling it again finishes a revocation that failed halfway.
   */
  closeAccount(accountId: string): Promise<AdminClosedAccount>;
}

/** An admin API client over fetch; every call has a deadline of `timeoutMs`. */
export function createAdminClient(opts: { url: string; token: string; timeoutMs: number }): AdminClient {
  const base = `${opts.url.replace(/\/+$/, '')}/admin/v1`;
  // Every answer is parsed with the admin API's contract (libs/contracts/src/admin.ts), never cast.
  const call = async <S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<z.output<S>> => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${opts.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      throw new AdminUnavailableError(`admin API ${method} ${path.split('/')[1] ?? ''} failed`, { cause: err });
    }
    let payload: unknown;
    try {
      payload = await res.json();
    } catch (err) {
      throw new AdminUnavailableError(`admin API answered ${res.status} without JSON`, { cause: err });
    }
    if (res.status >= 500) throw new AdminUnavailableError(`admin API answered ${res.status}`);
    if (!res.ok) {
      const error = (payload as { error?: { code?: string; message?: string } }).error;
      throw new AdminRejectedError(res.status, error?.code ?? 'error', error?.message ?? `status ${res.status}`);
    }
    const parsed = schema.safeParse(payload);
    if (!parsed.success)
      throw new AdminUnavailableError(
        `admin API answered ${method} ${path.split('/')[1] ?? ''} with an unexpected shape`,
        { cause: parsed.error },
      );
    return parsed.data;
  };
  return {
    // Any 2xx is taken (`res.ok`): 201 for a new account, 200 for the existing one of the same id.
    createAccount: (name, plan, accountId) => {
      const body: AdminCreateAccount = accountId === undefined ? { name, plan } : { name, plan, account_id: accountId };
      return call(AdminAccount, 'POST', '/accounts', body);
    },
    getAccount: (id) => call(AdminAccount, 'GET', `/accounts/${encodeURIComponent(id)}`),
    listKeys: async (id) => (await call(AdminKeyList, 'GET', `/accounts/${encodeURIComponent(id)}/keys`)).keys,
    createKey: (id, label) =>
      call(AdminCreatedKey, 'POST', `/accounts/${encodeURIComponent(id)}/keys`, label === undefined ? {} : { label }),
    createSessionKey: (id, ttlSeconds) => {
      const body: AdminCreateSessionKey = { ttl_seconds: ttlSeconds };
      return call(AdminCreatedKey, 'POST', `/accounts/${encodeURIComponent(id)}/session-keys`, body);
    },
    revokeKey: (keyId) => call(AdminKey, 'POST', `/keys/${encodeURIComponent(keyId)}/revoke`, {}),
    closeAccount: (id) => call(AdminClosedAccount, 'POST', `/accounts/${encodeURIComponent(id)}/close`, {}),
  };
}
