import type { FastifyReply, FastifyRequest } from 'fastify';
import { PREFIX } from '../pages/layout.ts';
import { PageError } from './page-error.ts';

const SESSION_COOKIE = 'cds_session';
const PRE_COOKIE = 'cds_pre';
const PRE_ID = /^[A-Za-z0-9_-]{20,64}$/;

/** The mail links whose token moves from the URL into a cookie (see `holdLinkToken`). */
export type LinkPurpose = 'verify' | 'reset';
const LINK_COOKIE: Record<LinkPurpose, string> = { verify: 'cds_verify', reset: 'cds_reset' };
/** A mail-link token (user-store's `issueToken`: 32 random bytes, base64url). */
const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** How long a mail link's token is held for its page: enough to fill the form, no more. */
export const LINK_COOKIE_SECONDS = 10 * 60;

/**
 * The most Cookie header the dashboard reads: its own cookies take about 150 bytes, and the host's
 * other cookies are no concern of it. Longer headers get a 400 page before any parsing.
 */
export const MAX_COOKIE_HEADER = 4096;
/** The cookies the dashboard reads; every other name is skipped without being copied. */
const KNOWN = new Set([SESSION_COOKIE, PRE_COOKIE, ...Object.values(LINK_COOKIE)]);

/**
 * Parses a Cookie header (RFC 6265 §5.4 `name=value; name=value`) left to right: each character
 * is looked at a bounded number of times (one indexOf for each separator kind, one trim from each
 * end of a pair), no regular expression, no decoding. Only the names in `known` are
 * kept (the first of repeated names wins, as browsers send the most specific path first). Values
 * in double quotes lose them. `steps`, when given, counts characters looked at (for the unit test).
 */
export function parseCookieHeader(
  header: string,
  known: ReadonlySet<string> = KNOWN,
  steps?: { count: number },
): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  let pos = 0;
  // The next '=' at or after `pos`, searched again only once `pos` has passed it: a header of
  // pairs without '=' is not scanned to its end once per pair.
  let eq = -2;
  while (pos < header.length) {
    let end = header.indexOf(';', pos);
    if (end === -1) end = header.length;
    if (steps) steps.count += end - pos + 1;
    if (eq !== -1 && eq < pos) {
      const from = pos;
      eq = header.indexOf('=', pos);
      if (steps) steps.count += (eq === -1 ? header.length : eq) - from + 1;
    }
    if (eq !== -1 && eq < end) {
      let nameStart = pos;
      let nameEnd = eq;
      while (nameStart < nameEnd && isSpace(header.charCodeAt(nameStart))) nameStart++;
      while (nameEnd > nameStart && isSpace(header.charCodeAt(nameEnd - 1))) nameEnd--;
      const name = header.slice(nameStart, nameEnd);
      if (known.has(name) && !(name in out)) {
        let valueStart = eq + 1;
        let valueEnd = end;
        while (valueStart < valueEnd && isSpace(header.charCodeAt(valueStart))) valueStart++;
        while (valueEnd > valueStart && isSpace(header.charCodeAt(valueEnd - 1))) valueEnd--;
        if (
          valueEnd - valueStart >= 2 &&
          header.charCodeAt(valueStart) === 0x22 &&
          header.charCodeAt(valueEnd - 1) === 0x22
        ) {
          valueStart++;
          valueEnd--;
        }
        out[name] = header.slice(valueStart, valueEnd);
      }
    }
    pos = end + 1;
  }
  return out;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09;

/**
 * Reads the request's cookies into `request.cookies` (the @fastify/cookie plugin only writes them
 * here): a header past MAX_COOKIE_HEADER is answered with a 400 page, before any parsing.
 */
export function readRequestCookies(request: FastifyRequest): void {
  const header = request.headers.cookie;
  if (header === undefined || header === '') {
    request.cookies = {};
    return;
  }
  if (header.length > MAX_COOKIE_HEADER) {
    request.cookies = {};
    throw new PageError(
      400,
      'Too many cookies',
      `Your browser sent more than ${MAX_COOKIE_HEADER} bytes of cookies for this site. Delete this site's cookies in your browser, then reload the page.`,
    );
  }
  request.cookies = parseCookieHeader(header);
}

/** The session cookie, the visitor's pre-session cookie (the CSRF binding before log-in), and mail-link tokens. */
export interface Cookies {
  /** The session id the visitor presents, valid or not. */
  sessionId(request: FastifyRequest): string | undefined;
  startSession(reply: FastifyReply, sessionId: string): void;
  endSession(reply: FastifyReply): void;
  /** The visitor's pre-session id, when well-formed. */
  preId(request: FastifyRequest): string | undefined;
  setPre(reply: FastifyReply, preId: string): void;
  /**
   * Holds a mail link's token for LINK_COOKIE_SECONDS in an HttpOnly cookie whose path is the
   * link's own page (`/dashboard/verify`, `/dashboard/reset`), so the page can redirect to its
   * URL without the token.
   */
  holdLinkToken(reply: FastifyReply, purpose: LinkPurpose, token: string): void;
  /** The held token of that link, when well-formed. */
  linkToken(request: FastifyRequest, purpose: LinkPurpose): string | undefined;
  dropLinkToken(reply: FastifyReply, purpose: LinkPurpose): void;
}

/** Whether a string is shaped like a mail-link token (what `holdLinkToken` accepts). */
export const isLinkToken = (token: string): boolean => LINK_TOKEN.test(token);

export function createCookies(opts: { cookieSecure: boolean; sessionMaxAgeSeconds: number }): Cookies {
  const options = { path: PREFIX, httpOnly: true, secure: opts.cookieSecure, sameSite: 'lax' as const };
  const linkOptions = (purpose: LinkPurpose) => ({ ...options, path: `${PREFIX}/${purpose}` });
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
    holdLinkToken: (reply, purpose, token) =>
      void reply.setCookie(LINK_COOKIE[purpose], token, { ...linkOptions(purpose), maxAge: LINK_COOKIE_SECONDS }),
    linkToken: (request, purpose) => {
      const token = request.cookies[LINK_COOKIE[purpose]];
      return token !== undefined && isLinkToken(token) ? token : undefined;
    },
    dropLinkToken: (reply, purpose) => void reply.clearCookie(LINK_COOKIE[purpose], linkOptions(purpose)),
  };
}
