import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLinkToken, type Cookies, type LinkPurpose } from '../http/cookies.ts';
import type { Web } from '../http/web.ts';

/**
 * The first hop of a mailed link: when the URL carries `?token=`, holds a well-formed token in the
 * link's cookie, or drops a malformed one, and redirects (303) to the page without it; true when it
 * answered. Nothing is looked up here: the page behind the redirect checks the token.
 */
export function takeLinkToken(
  web: Web,
  cookies: Cookies,
  request: FastifyRequest,
  reply: FastifyReply,
  purpose: LinkPurpose,
): boolean {
  if (!Object.hasOwn(request.query ?? {}, 'token')) return false;
  const token = web.query(request, 'token');
  if (isLinkToken(token)) cookies.holdLinkToken(reply, purpose, token);
  else cookies.dropLinkToken(reply, purpose);
  web.redirect(reply, `/${purpose}`);
  return true;
}
