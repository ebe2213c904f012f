import type { FastifyReply, FastifyRequest } from 'fastify';
import { layout, PREFIX } from '../pages/layout.ts';
import { csrfToken } from '../security/csrf.ts';
import type { SafeHtml } from '../security/html.ts';
import type { Throttle, ThrottleDecision, ThrottleRule } from '../security/throttle.ts';
import type { User } from '../users/user-store.ts';
import { PageError } from './page-error.ts';

/** A logged-in user whose e-mail is confirmed (so an admin account exists). */
export type SignedInUser = User & { account_id: string };

export interface PageOptions {
  status?: number;
  active?: string;
  head?: SafeHtml;
}

/** The request helpers every route module shares; built once per app by `createWeb`. */
export interface Web {
  /** Renders `body` in the layout (with the visitor's menu and CSRF token) as an HTML answer. */
  page(reply: FastifyReply, request: FastifyRequest, title: string, body: SafeHtml, opts?: PageOptions): FastifyReply;
  /** The CSRF token for the forms of this request's page. */
  csrfOf(request: FastifyRequest): string;
  /** A query parameter, '' when absent or repeated. */
  query(request: FastifyRequest, name: string): string;
  /** A form field, '' when absent or repeated. */
  form(request: FastifyRequest, name: string): string;
  /** Counts one attempt, never refusing it: the window's count (a rule whose limit only asks for a challenge). */
  count(bucket: string, subject: string, rule: ThrottleRule): Promise<number>;
  /** The window's count, without counting an attempt. */
  peek(bucket: string, subject: string, rule: ThrottleRule): Promise<number>;
  /** Counts one attempt; throws the 429 page once the rule's limit is reached; else the window's count. */
  throttled(bucket: string, subject: string, rule: ThrottleRule): Promise<number>;
  /**
   * For throttles that count failures only (password checks): like `throttled`, but the caller
   * calls `passed()` once the attempt did not fail (or was not tried), which gives its place back.
   */
  failureThrottled(
    bucket: string,
    subject: string,
    rule: ThrottleRule,
  ): Promise<{ count: number; passed(): Promise<void> }>;
  /** The logged-in user; throws a 401 (answered with the log-in page) otherwise. */
  requireUser(request: FastifyRequest): SignedInUser;
  /** A 303 to a dashboard path, with a note for the next page in its query (`?notice=logged-out`). */
  redirect(reply: FastifyReply, path: string, note?: Record<string, string>): FastifyReply;
}

/** Throws the 429 page when a throttle refused the attempt. */
function refuseWhenSpent(decision: ThrottleDecision): void {
  if (decision.allowed) return;
  throw new PageError(
    429,
    'Too many attempts',
    `Too many attempts; wait ${Math.ceil(decision.retryAfter / 60)} minute(s) and try again.`,
    { 'retry-after': String(decision.retryAfter) },
  );
}

export function createWeb(deps: { sessionSecret: string; docsUrl: string; throttle: Throttle }): Web {
  const csrfOf = (request: FastifyRequest) => csrfToken(deps.sessionSecret, request.csrfBinding ?? '');
  const field = (values: unknown, name: string): string => {
    const value = (values as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' ? value : '';
  };
  return {
    csrfOf,
    page: (reply, request, title, body, opts = {}) =>
      reply
        .code(opts.status ?? 200)
        .type('text/html; charset=utf-8')
        .send(
          layout({
            title,
            body,
            user: request.user ? { email: request.user.email, csrf: csrfOf(request) } : undefined,
            active: opts.active,
            head: opts.head,
            docsUrl: deps.docsUrl,
          }),
        ),
    query: (request, name) => field(request.query, name),
    form: (request, name) => field(request.body, name),
    count: async (bucket, subject, rule) => (await deps.throttle.hit(bucket, subject, rule)).count,
    peek: (bucket, subject, rule) => deps.throttle.peek(bucket, subject, rule),
    throttled: async (bucket, subject, rule) => {
      const decision = await deps.throttle.hit(bucket, subject, rule);
      refuseWhenSpent(decision);
      return decision.count;
    },
    failureThrottled: async (bucket, subject, rule) => {
      const decision = await deps.throttle.hit(bucket, subject, rule);
      if (!decision.allowed) await decision.refund();
      refuseWhenSpent(decision);
      return { count: decision.count, passed: () => decision.refund() };
    },
    requireUser: (request) => {
      const user = request.user;
      if (user === undefined || user.account_id === null) throw new PageError(401, 'Log in', 'Log in to continue.');
      return user as SignedInUser;
    },
    redirect: (reply, path, note) => {
      const search = note === undefined ? '' : `?${new URLSearchParams(note).toString()}`;
      return reply.redirect(`${PREFIX}${path}${search}`, 303);
    },
  };
}
