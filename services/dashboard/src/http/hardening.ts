import { isRedisUnavailable } from '@cds/redis';
import { isDatabaseUnavailable } from '@cds/store';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { AdminUnavailableError } from '../admin/admin-client.ts';
import { MailError } from '@cds/mail';
import { errorPage } from '../pages/error-page.ts';
import { AnonymousHashBudgetError, PasswordHasherBusyError } from '../security/password.ts';
import { scrub } from '../security/scrub.ts';
import { readRequestCookies } from './cookies.ts';
import { PageError } from './page-error.ts';
import type { Web } from './web.ts';

/** The policy of every page: only the dashboard's own files, and the public API for the explorer. */
function contentSecurityPolicy(apiOrigin: string): string {
  return [
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
}

/** The status and words of an error that is no PageError: 503 when a dependency is down, never internals. */
function failure(error: unknown): { status: number; title: string; text: string; retryAfter?: number } {
  if (error instanceof AnonymousHashBudgetError) {
    return {
      status: 503,
      title: 'Busy',
      text: `Too many log-ins and sign-ups are being checked right now. Nothing was changed; try again in ${error.retryAfter} second${error.retryAfter === 1 ? '' : 's'}.`,
      retryAfter: error.retryAfter,
    };
  }
  if (error instanceof PasswordHasherBusyError) {
    return {
      status: 503,
      title: 'Busy',
      text: 'Too many log-ins are being checked right now. Nothing was changed; try again in a minute.',
    };
  }
  const unavailable =
    error instanceof AdminUnavailableError ||
    error instanceof MailError ||
    isRedisUnavailable(error) ||
    isDatabaseUnavailable(error);
  const code = (error as { statusCode?: unknown }).statusCode;
  const status = unavailable ? 503 : typeof code === 'number' && code < 500 ? code : 500;
  if (status === 503) {
    return {
      status,
      title: 'Temporarily unavailable',
      text: 'A service the dashboard depends on is not answering. Nothing was changed; try again in a minute.',
    };
  }
  if (status === 500) {
    return {
      status,
      title: 'Something went wrong',
      text: 'An unexpected error occurred. Nothing was changed; try again.',
    };
  }
  if (status === 413) return { status, title: 'Too large', text: 'The form you sent is too large.' };
  return { status, title: 'Bad request', text: 'The request could not be understood.' };
}

/**
 * Security headers and CSP on every answer, cookie and form parsing, the not-found page and the
 * one error handler (every error becomes a page; a 401 the log-in page).
 */
export async function registerHardening(
  app: FastifyInstance,
  deps: { web: Web; apiOrigin: string; cookieSecure: boolean },
): Promise<void> {
  const { web } = deps;
  const headers: Record<string, string> = {
    'content-security-policy': contentSecurityPolicy(deps.apiOrigin),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
    'cache-control': 'no-store',
  };
  if (deps.cookieSecure) headers['strict-transport-security'] = 'max-age=31536000';

  // The plugin writes cookies; they are read by readRequestCookies (bounded, linear, only the
  // dashboard's own names), not by the plugin's parser.
  await app.register(fastifyCookie, { hook: false });
  await app.register(fastifyFormbody);

  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    try {
      readRequestCookies(request);
    } catch (err) {
      done(err as Error);
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
    web.page(reply, request, 'Not found', errorPage(404, 'Page not found', 'There is no page at this address.'), {
      status: 404,
    }),
  );

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof PageError) {
      if (error.status === 401) return web.redirect(reply, '/login');
      reply.headers(error.headers);
      return web.page(reply, request, error.title, errorPage(error.status, error.title, error.message), {
        status: error.status,
      });
    }
    const { status, title, text, retryAfter } = failure(error);
    if (status >= 500) {
      const cause = (error as Error).cause;
      request.log.error(
        {
          err_name: (error as Error).name,
          err: scrub(error instanceof Error ? error.message : String(error)),
          cause: scrub(cause instanceof Error ? cause.message : ''),
        },
        'request failed',
      );
    }
    if (status === 503) reply.header('retry-after', String(retryAfter ?? 30));
    return web.page(reply, request, title, errorPage(status, title, text), { status });
  });
}
