import type { FastifyInstance } from 'fastify';
import { PageError } from '../http/page-error.ts';
import type { Web } from '../http/web.ts';
import { csrfValid } from './csrf.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The log-in and sign-up forms: their POST also takes the token of the visitor's pre-session
     * cookie, so a form rendered before a log-in (another tab) still works once a session exists.
     */
    acceptPreSessionToken?: boolean;
  }
}

/** Every POST carries the CSRF token of the request's binding (see registerSessionLoading), or gets 403. */
export function registerCsrfGuard(app: FastifyInstance, deps: { sessionSecret: string; web: Web }): void {
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.method !== 'POST') {
      done();
      return;
    }
    const token = deps.web.form(request, '_csrf');
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
}
