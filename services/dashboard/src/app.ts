import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequestIdGenerator, lazyChildLoggerFactory } from '@cds/http';
import { isRedisUnavailable } from '@cds/redis';
import { isDatabaseUnavailable } from '@cds/store';
import type { Metrics } from '@cds/telemetry';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { z } from 'zod';
import { AdminRejectedError, AdminUnavailableError, type AdminClient, type AdminKey } from './admin/admin-client.ts';
import { MailError, type Mailer } from './mail/mailer.ts';
import {
  accountPage,
  errorPage,
  explorerPlaceholder,
  keysPage,
  planPage,
  revokeConfirmPage,
  rotatePage,
  usagePage,
  type KeyRow,
  type KeysPageState,
} from './pages/app-pages.ts';
import {
  badLinkPage,
  checkInboxPage,
  forgotPage,
  forgotSentPage,
  loginPage,
  messagePage,
  resetPage,
  signupPage,
  verifiedPage,
  verifyPage,
} from './pages/auth-pages.ts';
import { layout, PREFIX } from './pages/layout.ts';
import { csrfToken, csrfValid } from './security/csrf.ts';
import { raw, type SafeHtml } from './security/html.ts';
import { PASSWORD_MAX, passwordProblem, type PasswordHasher } from './security/password.ts';
import { DEFAULT_THROTTLES, type Throttle, type ThrottleRule, type ThrottleRules } from './security/throttle.ts';
import type { Session, SessionStore } from './sessions/session-store.ts';
import type { UsageReader } from './usage/usage-reader.ts';
import { normalizeEmail, type User, type UserStore } from './users/user-store.ts';

/** What the dashboard needs; main.ts builds the real ones, tests pass real servers' clients too. */
export interface DashboardDeps {
  logger: FastifyBaseLogger;
  /** Milliseconds since the epoch. */
  clock: () => number;
  users: UserStore;
  sessions: SessionStore;
  throttle: Throttle;
  throttles?: Partial<ThrottleRules>;
  mailer: Mailer;
  admin: AdminClient;
  usage: UsageReader;
  passwords: PasswordHasher;
  /** Keys the CSRF tokens (≥ 32 characters). */
  sessionSecret: string;
  /** Lifetime of the session cookie (the absolute session limit). */
  sessionMaxAgeSeconds: number;
  cookieSecure: boolean;
  /** The public API base (…/api/v1): the explorer calls it, curl examples show it. */
  publicApiUrl: string;
  /** The dashboard's own public URL (…/dashboard) for links in mails. */
  publicBaseUrl: string;
  /** Mounts the data explorer under /dashboard/explorer; absent shows a placeholder. */
  explorer?: ExplorerMount;
  trustProxyHops?: number;
  metrics?: Metrics;
  /** Readiness: Redis, MongoDB and the admin API reachable. */
  isReady?: () => Promise<boolean>;
}

export interface ExplorerMount {
  render(opts: { apiBaseUrl: string; assetPrefix: string }): { head: string; body: string };
  registerAssets(app: FastifyInstance, opts: { prefix: string }): void | Promise<void>;
}

const SESSION_COOKIE = 'cds_session';
const PRE_COOKIE = 'cds_pre';
const VERIFY_TTL_MS = 24 * 60 * 60 * 1000;
const RESET_TTL_MS = 60 * 60 * 1000;
const LABEL_MAX = 100;
const Email = z.email().max(254);
const KEY_ID = /^key_[0-9a-z]{8,40}$/;

declare module 'fastify' {
  interface FastifyRequest {
    session: Session | undefined;
    user: User | undefined;
    /** What the CSRF token is bound to: the session id, else the visitor's pre-session cookie. */
    csrfBinding: string | undefined;
    /** The visitor's pre-session cookie, also while a session exists. */
    preBinding: string | undefined;
  }
  interface FastifyContextConfig {
    /**
     * The log-in and sign-up forms: their POST also takes the token of the visitor's pre-session
     * cookie, so a form rendered before a log-in (another tab) still works once a session exists.
     */
    acceptPreSessionToken?: boolean;
  }
}

/** A page answered with a status (thrown from handlers; the error handler renders it). */
class PageError extends Error {
  readonly status: number;
  readonly title: string;
  readonly headers: Record<string, string>;
  constructor(status: number, title: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.title = title;
    this.headers = headers;
  }
}

const ASSETS: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

/** Removes anything that looks like an e-mail address from text bound for logs. */
const scrub = (text: string) => text.replace(/[^\s"'<>@]+@[^\s"'<>@]+/g, '[email]');

/** Builds the dashboard. It never listens: main.ts does. */
export async function buildApp(deps: DashboardDeps): Promise<FastifyInstance> {
  const rules: ThrottleRules = { ...DEFAULT_THROTTLES, ...deps.throttles };
  const apiOrigin = new URL(deps.publicApiUrl).origin;
  const docsUrl = `${apiOrigin}/docs`;
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${apiOrigin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  const assets = new Map(
    Object.entries(ASSETS).map(([name, type]) => [
      name,
      { type, body: readFileSync(new URL(`./assets/${name}`, import.meta.url)) },
    ]),
  );

  const app = Fastify({
    loggerInstance: deps.logger,
    childLoggerFactory: lazyChildLoggerFactory,
    genReqId: createRequestIdGenerator(),
    // Request lines would carry mail-link tokens in query strings: logged by hand below instead.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    trustProxy: (_address: string, hop: number) => hop < (deps.trustProxyHops ?? 0),
    bodyLimit: 16 * 1024,
    connectionTimeout: 30_000,
    requestTimeout: 30_000,
    return503OnClosing: true,
  });
  await app.register(fastifyCookie);
  await app.register(fastifyFormbody);
  app.decorateRequest('session', undefined);
  app.decorateRequest('user', undefined);
  app.decorateRequest('csrfBinding', undefined);
  app.decorateRequest('preBinding', undefined);

  const cookieOptions = {
    path: PREFIX,
    httpOnly: true,
    secure: deps.cookieSecure,
    sameSite: 'lax' as const,
  };

  // ---- helpers ----
  const csrfOf = (request: FastifyRequest) => csrfToken(deps.sessionSecret, request.csrfBinding ?? '');
  const userView = (request: FastifyRequest) =>
    request.user ? { email: request.user.email, csrf: csrfOf(request) } : undefined;
  const page = (
    reply: FastifyReply,
    request: FastifyRequest,
    title: string,
    body: SafeHtml,
    opts: { status?: number; active?: string; head?: SafeHtml } = {},
  ) =>
    reply
      .code(opts.status ?? 200)
      .type('text/html; charset=utf-8')
      .send(layout({ title, body, user: userView(request), active: opts.active, head: opts.head, docsUrl }));
  const query = (request: FastifyRequest, name: string): string => {
    const value = (request.query as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' ? value : '';
  };
  const form = (request: FastifyRequest, name: string): string => {
    const value = (request.body as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' ? value : '';
  };
  const throttled = async (bucket: string, subject: string, rule: ThrottleRule) => {
    const decision = await deps.throttle.hit(bucket, subject, rule);
    if (!decision.allowed) {
      throw new PageError(
        429,
        'Too many attempts',
        `Too many attempts; wait ${Math.ceil(decision.retryAfter / 60)} minute(s) and try again.`,
        { 'retry-after': String(decision.retryAfter) },
      );
    }
  };
  const requireUser = (request: FastifyRequest): User & { account_id: string } => {
    const user = request.user;
    if (user === undefined || user.account_id === null) throw new PageError(401, 'Log in', 'Log in to continue.');
    return user as User & { account_id: string };
  };
  const link = (path: string, token: string) => `${deps.publicBaseUrl}${path}?token=${encodeURIComponent(token)}`;
  const sendVerification = async (user: User) => {
    const token = await deps.users.issueToken(user._id, 'verify', VERIFY_TTL_MS);
    await deps.mailer.send({
      to: user.email,
      subject: 'Confirm your e-mail address',
      text:
        `Welcome to the Commodity Data Service.\n\nConfirm your e-mail address to activate your account:\n\n` +
        `${link('/verify', token)}\n\nThe link works for 24 hours. If you did not sign up, ignore this mail.\n`,
    });
  };
  const warnUsage = (err: unknown) =>
    deps.logger.warn({ err: scrub(err instanceof Error ? err.message : String(err)) }, 'usage read failed');
  const keyRows = async (user: User & { account_id: string }): Promise<{ rows: KeyRow[]; today: number }> => {
    const [keys, usage] = await Promise.all([
      deps.admin.listKeys(user.account_id),
      deps.usage.read(user.account_id, 1).catch((err: unknown) => {
        warnUsage(err);
        return undefined;
      }),
    ]);
    const rows = keys
      .map((k) => ({ ...k, last4: user.key_hints[k.key_id], lastUsedDay: usage?.lastUsedDay.get(k.key_id) }))
      .sort((a, b) =>
        a.status === b.status ? b.created_at.localeCompare(a.created_at) : a.status === 'active' ? -1 : 1,
      );
    return { rows, today: usage?.today ?? Math.floor(deps.clock() / 86_400_000) };
  };
  const ownKey = async (user: User & { account_id: string }, keyId: string): Promise<KeyRow> => {
    // Another account's key id is answered like an unknown one.
    if (!KEY_ID.test(keyId)) throw new PageError(404, 'No such key', 'This account has no such key.');
    const { rows } = await keyRows(user);
    const key = rows.find((k) => k.key_id === keyId);
    if (key === undefined) throw new PageError(404, 'No such key', 'This account has no such key.');
    return key;
  };

  // ---- hooks: security headers, session, CSRF ----
  app.addHook('onRequest', async (request, reply) => {
    reply.headers({
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
      'cross-origin-opener-policy': 'same-origin',
      'permissions-policy': 'camera=(), microphone=(), geolocation=()',
      'cache-control': 'no-store',
    });
    if (deps.cookieSecure) reply.header('strict-transport-security', 'max-age=31536000');
    if (!request.url.startsWith(PREFIX) || /\.(?:js|css|svg)(?:\?|$)/.test(request.url)) return;
    const pre = request.cookies[PRE_COOKIE];
    if (pre !== undefined && /^[A-Za-z0-9_-]{20,64}$/.test(pre)) request.preBinding = pre;
    const sid = request.cookies[SESSION_COOKIE];
    if (sid !== undefined) {
      const session = await deps.sessions.get(sid);
      if (session !== undefined) {
        const user = await deps.users.byId(session.user_id);
        if (user !== null && user.verified) {
          request.session = session;
          request.user = user;
          request.csrfBinding = session.id;
          return;
        }
      }
    }
    if (request.preBinding !== undefined) {
      request.csrfBinding = request.preBinding;
    } else if (request.method === 'GET') {
      const fresh = randomBytes(24).toString('base64url');
      reply.setCookie(PRE_COOKIE, fresh, cookieOptions);
      request.csrfBinding = fresh;
    }
  });

  app.addHook('preHandler', (request, _reply, done) => {
    if (request.method !== 'POST') {
      done();
      return;
    }
    const token = form(request, '_csrf');
    const valid =
      csrfValid(deps.sessionSecret, request.csrfBinding, token) ||
      (request.routeOptions.config.acceptPreSessionToken === true &&
        csrfValid(deps.sessionSecret, request.preBinding, token));
    if (!valid) {
      done(
        new PageError(
          403,
          'This form has expired',
          'The security token of this form is missing or does not match your session (perhaps you logged out or the session expired). Reload the page and try again.',
        ),
      );
      return;
    }
    done();
  });

  app.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode >= 500) {
      request.log.warn({ method: request.method, route: request.routeOptions.url, status: reply.statusCode }, 'failed');
    }
    done();
  });

  app.setNotFoundHandler((request, reply) =>
    page(reply, request, 'Not found', errorPage(404, 'Page not found', 'There is no page at this address.'), {
      status: 404,
    }),
  );

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof PageError) {
      if (error.status === 401) return reply.redirect(`${PREFIX}/login`, 303);
      reply.headers(error.headers);
      return page(reply, request, error.title, errorPage(error.status, error.title, error.message), {
        status: error.status,
      });
    }
    const unavailable =
      error instanceof AdminUnavailableError ||
      error instanceof MailError ||
      isRedisUnavailable(error) ||
      isDatabaseUnavailable(error);
    const status = unavailable
      ? 503
      : typeof (error as { statusCode?: unknown }).statusCode === 'number' &&
          (error as { statusCode: number }).statusCode < 500
        ? (error as { statusCode: number }).statusCode
        : 500;
    const message = error instanceof Error ? error.message : String(error);
    if (status >= 500) {
      request.log.error(
        {
          err_name: (error as Error).name,
          err: scrub(message),
          cause: scrub((error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : ''),
        },
        'request failed',
      );
    }
    const [title, text] =
      status === 503
        ? [
            'Temporarily unavailable',
            'A service the dashboard depends on is not answering. Nothing was changed; try again in a minute.',
          ]
        : status === 500
          ? ['Something went wrong', 'An unexpected error occurred. Nothing was changed; try again.']
          : status === 413
            ? ['Too large', 'The form you sent is too large.']
            : ['Bad request', 'The request could not be understood.'];
    if (status === 503) reply.header('retry-after', '30');
    return page(reply, request, title, errorPage(status, title, text), { status });
  });

  // ---- probes and assets ----
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = (await deps.isReady?.().catch(() => false)) ?? true;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready' });
  });
  if (deps.metrics !== undefined) {
    const metrics = deps.metrics;
    app.get('/metrics', async (_request, reply) =>
      reply.type('text/plain; version=0.0.4').send(await metrics.render()),
    );
  }
  app.get(`${PREFIX}/assets/:name`, (request, reply) => {
    const asset = assets.get((request.params as { name: string }).name);
    if (asset === undefined) throw new PageError(404, 'Not found', 'No such file.');
    return reply.header('cache-control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
  if (deps.explorer !== undefined) await deps.explorer.registerAssets(app, { prefix: `${PREFIX}/explorer` });

  // ---- home ----
  const home = (request: FastifyRequest, reply: FastifyReply) =>
    reply.redirect(request.user ? `${PREFIX}/keys` : `${PREFIX}/login`, 303);
  app.get(PREFIX, home);
  app.get(`${PREFIX}/`, home);

  // ---- sign-up and verification ----
  app.get(`${PREFIX}/signup`, (request, reply) => {
    if (request.user) return reply.redirect(`${PREFIX}/keys`, 303);
    return page(reply, request, 'Sign up', signupPage({ csrf: csrfOf(request) }), { active: 'signup' });
  });
  app.post(`${PREFIX}/signup`, { config: { acceptPreSessionToken: true } }, async (request, reply) => {
    const email = form(request, 'email').trim();
    const password = form(request, 'password');
    const again = (status: number, fieldErrors: Partial<Record<'email' | 'password', string>>) =>
      page(reply, request, 'Sign up', signupPage({ csrf: csrfOf(request), email, fieldErrors }), {
        status,
        active: 'signup',
      });
    await throttled('signup-ip', request.ip, rules.signupPerIp);
    if (!Email.safeParse(email).success)
      return again(400, { email: 'Enter a valid e-mail address, like name@example.com.' });
    const normalized = normalizeEmail(email);
    await throttled('signup-addr', normalized, rules.signupPerAddress);
    const problem = passwordProblem(password, normalized);
    if (problem !== null) return again(400, { password: problem });
    const created = await deps.users.create({ email: normalized, passwordHash: await deps.passwords.hash(password) });
    if (created === 'duplicate') {
      // Same answer as a new sign-up (no account enumeration); the owner hears about it by mail.
      await deps.mailer.send({
        to: normalized,
        subject: 'Someone tried to sign up with your address',
        text:
          `Somebody (perhaps you) tried to create a Commodity Data Service account with this address, ` +
          `which already has one. Nothing was changed.\n\nLog in: ${deps.publicBaseUrl}/login\n` +
          `Forgot your password? ${deps.publicBaseUrl}/forgot\n`,
      });
    } else {
      await sendVerification(created);
    }
    return page(reply, request, 'Check your inbox', checkInboxPage());
  });

  app.get(`${PREFIX}/verify`, async (request, reply) => {
    const token = query(request, 'token');
    const userId = await deps.users.peekToken(token, 'verify');
    if (userId === null) return page(reply, request, 'Link expired', badLinkPage('confirmation'), { status: 400 });
    return page(reply, request, 'Confirm your e-mail', verifyPage({ csrf: csrfOf(request), token }));
  });
  app.post(`${PREFIX}/verify`, async (request, reply) => {
    const token = form(request, 'token');
    const userId = await deps.users.peekToken(token, 'verify');
    const user = userId === null ? null : await deps.users.byId(userId);
    if (user === null) return page(reply, request, 'Link expired', badLinkPage('confirmation'), { status: 400 });
    if (user.account_id === null) {
      // The admin account is named by the user id: no personal data enters the key stream.
      const account = await deps.admin.createAccount(user._id, 'free');
      await deps.users.update(user._id, { account_id: account.account_id, verified: true });
    } else if (!user.verified) {
      await deps.users.update(user._id, { verified: true });
    }
    await deps.users.consumeToken(token, 'verify');
    return page(reply, request, 'E-mail confirmed', verifiedPage());
  });

  // ---- log-in and log-out ----
  const NOTICES: Record<string, string> = {
    'logged-out': 'You are logged out.',
    'password-changed': 'Your password is changed. Log in with the new one.',
    deleted: 'Your account is deleted.',
  };
  app.get(`${PREFIX}/login`, (request, reply) => {
    if (request.user) return reply.redirect(`${PREFIX}/keys`, 303);
    const info = NOTICES[query(request, 'notice')];
    return page(reply, request, 'Log in', loginPage({ csrf: csrfOf(request), info }), { active: 'login' });
  });
  app.post(`${PREFIX}/login`, { config: { acceptPreSessionToken: true } }, async (request, reply) => {
    const email = form(request, 'email').trim();
    const password = form(request, 'password');
    const wrong = (message = 'The e-mail address or the password is wrong.') =>
      page(reply, request, 'Log in', loginPage({ csrf: csrfOf(request), email, error: message }), {
        status: 401,
        active: 'login',
      });
    await throttled('login-ip', request.ip, rules.loginPerIp);
    if (!Email.safeParse(email).success || password.length === 0 || password.length > PASSWORD_MAX * 4) {
      return wrong();
    }
    const normalized = normalizeEmail(email);
    await throttled('login-addr', normalized, rules.loginPerAddress);
    const user = await deps.users.byEmail(normalized);
    if (user === null) {
      await deps.passwords.burn(password);
      return wrong();
    }
    if (!(await deps.passwords.verify(password, user.password_hash))) return wrong();
    if (!user.verified) {
      await sendVerification(user);
      return page(
        reply,
        request,
        'Confirm your e-mail',
        messagePage(
          'Confirm your e-mail first',
          'Your address is not confirmed yet. We just sent you a new confirmation link; open it, then log in.',
        ),
        { status: 403 },
      );
    }
    // A new session id at every log-in (no fixation); the visitor's old session, if any, ends.
    const old = request.cookies[SESSION_COOKIE];
    if (old !== undefined) await deps.sessions.destroy(old);
    const session = await deps.sessions.create(user._id);
    reply.setCookie(SESSION_COOKIE, session.id, { ...cookieOptions, maxAge: deps.sessionMaxAgeSeconds });
    return reply.redirect(`${PREFIX}/keys`, 303);
  });
  app.post(`${PREFIX}/logout`, async (request, reply) => {
    const sid = request.cookies[SESSION_COOKIE];
    if (sid !== undefined) await deps.sessions.destroy(sid);
    reply.clearCookie(SESSION_COOKIE, cookieOptions);
    return reply.redirect(`${PREFIX}/login?notice=logged-out`, 303);
  });

  // ---- password reset ----
  app.get(`${PREFIX}/forgot`, (request, reply) =>
    page(reply, request, 'Reset your password', forgotPage({ csrf: csrfOf(request) })),
  );
  app.post(`${PREFIX}/forgot`, async (request, reply) => {
    const email = form(request, 'email').trim();
    await throttled('reset-ip', request.ip, rules.resetPerIp);
    if (!Email.safeParse(email).success) {
      return page(
        reply,
        request,
        'Reset your password',
        forgotPage({ csrf: csrfOf(request), email, fieldErrors: { email: 'Enter a valid e-mail address.' } }),
        { status: 400 },
      );
    }
    const normalized = normalizeEmail(email);
    await throttled('reset-addr', normalized, rules.resetPerAddress);
    const user = await deps.users.byEmail(normalized);
    if (user !== null) {
      const token = await deps.users.issueToken(user._id, 'reset', RESET_TTL_MS);
      await deps.mailer.send({
        to: user.email,
        subject: 'Reset your password',
        text:
          `Choose a new password for your Commodity Data Service account:\n\n${link('/reset', token)}\n\n` +
          `The link works for one hour. If you did not ask for it, ignore this mail: your password stays as it is.\n`,
      });
    }
    return page(reply, request, 'Check your inbox', forgotSentPage());
  });
  app.get(`${PREFIX}/reset`, async (request, reply) => {
    const token = query(request, 'token');
    if ((await deps.users.peekToken(token, 'reset')) === null) {
      return page(reply, request, 'Link expired', badLinkPage('password reset'), { status: 400 });
    }
    return page(reply, request, 'New password', resetPage({ csrf: csrfOf(request), token }));
  });
  app.post(`${PREFIX}/reset`, async (request, reply) => {
    const token = form(request, 'token');
    const password = form(request, 'password');
    const userId = await deps.users.peekToken(token, 'reset');
    const user = userId === null ? null : await deps.users.byId(userId);
    if (user === null) return page(reply, request, 'Link expired', badLinkPage('password reset'), { status: 400 });
    const problem = passwordProblem(password, user.email);
    if (problem !== null) {
      return page(
        reply,
        request,
        'New password',
        resetPage({ csrf: csrfOf(request), token, fieldErrors: { password: problem } }),
        { status: 400 },
      );
    }
    if (!(await deps.users.consumeToken(token, 'reset'))) {
      return page(reply, request, 'Link expired', badLinkPage('password reset'), { status: 400 });
    }
    await deps.users.update(user._id, { password_hash: await deps.passwords.hash(password) });
    // Every session of the account ends: whoever knew the old password is logged out.
    await deps.sessions.destroyAllForUser(user._id);
    reply.clearCookie(SESSION_COOKIE, cookieOptions);
    return reply.redirect(`${PREFIX}/login?notice=password-changed`, 303);
  });

  // ---- keys ----
  const renderKeys = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: Partial<KeysPageState> = {},
    status = 200,
  ) => {
    const user = requireUser(request);
    const { rows } = await keyRows(user);
    return page(
      reply,
      request,
      'API keys',
      keysPage({ csrf: csrfOf(request), keys: rows, apiBaseUrl: deps.publicApiUrl, ...extra }),
      { status, active: 'keys' },
    );
  };
  app.get(`${PREFIX}/keys`, async (request, reply) => {
    const revoked = query(request, 'revoked');
    return renderKeys(request, reply, KEY_ID.test(revoked) ? { info: `Key ${revoked} is revoked.` } : {});
  });
  app.post(`${PREFIX}/keys`, async (request, reply) => {
    const user = requireUser(request);
    const label = form(request, 'label').trim();
    if ([...label].length > LABEL_MAX) {
      return renderKeys(request, reply, { label, labelError: `Use at most ${LABEL_MAX} characters.` }, 400);
    }
    const created: AdminKey & { key: string } = await deps.admin.createKey(
      user.account_id,
      label === '' ? undefined : label,
    );
    const last4 = created.key.slice(-4);
    await deps.users.addKeyHint(user._id, created.key_id, last4);
    user.key_hints = { ...user.key_hints, [created.key_id]: last4 };
    return renderKeys(request, reply, {
      created: { key: created.key, key_id: created.key_id, label: created.label },
      info: 'Key created.',
    });
  });
  app.get(`${PREFIX}/keys/rotate`, async (request, reply) => {
    const user = requireUser(request);
    const { rows, today } = await keyRows(user);
    return page(
      reply,
      request,
      'Rotate a key',
      rotatePage({
        csrf: csrfOf(request),
        keys: rows,
        apiBaseUrl: deps.publicApiUrl,
        today: new Date(today * 86_400_000).toISOString().slice(0, 10),
      }),
      { active: 'keys' },
    );
  });
  app.get(`${PREFIX}/keys/:keyId/revoke`, async (request, reply) => {
    const user = requireUser(request);
    const key = await ownKey(user, (request.params as { keyId: string }).keyId);
    if (key.status !== 'active') return reply.redirect(`${PREFIX}/keys`, 303);
    return page(reply, request, 'Revoke key', revokeConfirmPage({ csrf: csrfOf(request), key }), { active: 'keys' });
  });
  app.post(`${PREFIX}/keys/:keyId/revoke`, async (request, reply) => {
    const user = requireUser(request);
    const key = await ownKey(user, (request.params as { keyId: string }).keyId);
    if (key.status !== 'active')
      return renderKeys(request, reply, { error: `Key ${key.key_id} was already revoked.` }, 409);
    try {
      await deps.admin.revokeKey(key.key_id);
    } catch (err) {
      if (err instanceof AdminRejectedError) {
        return renderKeys(request, reply, { error: `Key ${key.key_id} was already revoked.` }, 409);
      }
      throw err;
    }
    return reply.redirect(`${PREFIX}/keys?revoked=${key.key_id}`, 303);
  });

  // ---- plan, usage, account ----
  app.get(`${PREFIX}/plan`, async (request, reply) => {
    const user = requireUser(request);
    const account = await deps.admin.getAccount(user.account_id);
    return page(reply, request, 'Plan', planPage({ plan: account.plan, accountId: account.account_id }), {
      active: 'plan',
    });
  });
  app.get(`${PREFIX}/usage`, async (request, reply) => {
    const user = requireUser(request);
    const [account, usage] = await Promise.all([
      deps.admin.getAccount(user.account_id),
      deps.usage.read(user.account_id),
    ]);
    return page(reply, request, 'Usage', usagePage({ plan: account.plan, usage }), { active: 'usage' });
  });
  const renderAccount = async (request: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
    const user = requireUser(request);
    const account = await deps.admin.getAccount(user.account_id);
    return page(
      reply,
      request,
      'Account',
      accountPage({
        csrf: csrfOf(request),
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
    const user = requireUser(request);
    await throttled('login-addr', user.email, rules.loginPerAddress);
    if (!(await deps.passwords.verify(form(request, 'password'), user.password_hash))) {
      return renderAccount(request, reply, 'The password is wrong; nothing was deleted.', 401);
    }
    // Keys first: if revoking fails, the account and its data stay and the user can retry.
    for (const key of await deps.admin.listKeys(user.account_id)) {
      if (key.status !== 'active') continue;
      try {
        await deps.admin.revokeKey(key.key_id);
      } catch (err) {
        if (!(err instanceof AdminRejectedError)) throw err;
      }
    }
    await deps.users.delete(user._id);
    await deps.sessions.destroyAllForUser(user._id);
    reply.clearCookie(SESSION_COOKIE, cookieOptions);
    return reply.redirect(`${PREFIX}/login?notice=deleted`, 303);
  });

  // ---- data explorer ----
  app.get(`${PREFIX}/explorer`, (request, reply) => {
    requireUser(request);
    if (deps.explorer === undefined) {
      return page(reply, request, 'Data explorer', explorerPlaceholder(deps.publicApiUrl), { active: 'explorer' });
    }
    const rendered = deps.explorer.render({
      apiBaseUrl: deps.publicApiUrl,
      assetPrefix: `${PREFIX}/explorer`,
    });
    return page(reply, request, 'Data explorer', raw(rendered.body), {
      active: 'explorer',
      head: raw(rendered.head),
    });
  });

  return app;
}
