import type { FastifyReply, FastifyRequest } from 'fastify';
import { PREFIX } from '../pages/layout.ts';

const SESSION_COOKIE = 'cds_session';
const PRE_COOKIE = 'cds_pre';
const PRE_ID = /^[A-Za-z0-9_-]{20,64}$/;

/** The session cookie and the visitor's pre-session cookie (the CSRF binding before log-in). */
export interface Cookies {
  /** The session id the visitor presents, valid or not. */
  sessionId(request: FastifyRequest): string | undefined;
  startSession(reply: FastifyReply, sessionId: string): void;
  endSession(reply: FastifyReply): void;
  /** The visitor's pre-session id, when well-formed. */
  preId(request: FastifyRequest): string | undefined;
  setPre(reply: FastifyReply, preId: string): void;
}

export function createCookies(opts: { cookieSecure: boolean; sessionMaxAgeSeconds: number }): Cookies {
  const options = { path: PREFIX, httpOnly: true, secure: opts.cookieSecure, sameSite: 'lax' as const };
  return {
    sessionId: (request) => request.cookies[SESSION_COOKIE],
    startSession: (reply, sessionId) =>
      void reply.setCookie(SESSION_COOKIE, sessionId, { ...options, maxAge: opts.sessionMaxAgeSeconds }),
    endSession: (reply) => void reply.clearCookie(SESSION_COOKIE, options),
    preId: (request) => {
      const pre = request.cookies[PRE_COOKIE];
      return pre !== undefined && PRE_ID.test(pre) ? pre : undefined;
    },
    setPre: (reply, preId) => void reply.setCookie(PRE_COOKIE, preId, options),
  };
}
