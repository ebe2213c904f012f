import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Cookies } from '../http/cookies.ts';
import { PREFIX } from '../pages/layout.ts';
import type { User, UserStore } from '../users/user-store.ts';
import type { Session, SessionStore } from './session-store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    session: Session | undefined;
    user: User | undefined;
    /** What the CSRF token is bound to: the session id, else the visitor's pre-session cookie. */
    csrfBinding: string | undefined;
    /** The visitor's pre-session cookie, also while a session exists. */
    preBinding: string | undefined;
  }
}

/**
 * Loads the session and its (confirmed) user onto every dashboard page request, and the CSRF
 * binding: the session id, else the pre-session cookie (issued at the first GET).
 */
export function registerSessionLoading(
  app: FastifyInstance,
  deps: { sessions: SessionStore; users: UserStore; cookies: Cookies },
): void {
  const { cookies } = deps;
  app.decorateRequest('session', undefined);
  app.decorateRequest('user', undefined);
  app.decorateRequest('csrfBinding', undefined);
  app.decorateRequest('preBinding', undefined);

  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith(PREFIX) || /\.(?:js|css|svg)(?:\?|$)/.test(request.url)) return;
    request.preBinding = cookies.preId(request);
    const sid = cookies.sessionId(request);
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
      cookies.setPre(reply, fresh);
      request.csrfBinding = fresh;
    }
  });
}
