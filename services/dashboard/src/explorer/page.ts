import { errorBody, type ErrorCode } from '@cds/contracts';
import { isRedisUnavailable } from '@cds/redis';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AdminRejectedError, AdminUnavailableError } from '../admin/admin-client.ts';
import { PageError } from '../http/page-error.ts';
import type { Web } from '../http/web.ts';
import type { ThrottleRules } from '../security/throttle.ts';
import { PREFIX } from '../pages/layout.ts';
import { html, raw, type SafeHtml } from '../security/html.ts';
import { SessionEndedError, SessionKeyBusyError, type SessionKeys } from '../sessions/session-keys.ts';

/** The data explorer as the dashboard mounts it (see createExplorer); main.ts passes it in. */
export interface ExplorerMount {
  render(opts: {
    apiBaseUrl: string;
    assetPrefix: string;
    /** Where the page asks for its session key (a POST with the CSRF token), when the dashboard has them. */
    sessionKey?: { url: string; csrf: string } | undefined;
  }): { head: string; body: string };
  registerAssets(app: FastifyInstance, opts: { prefix: string }): void | Promise<void>;
}

/**
 * The explorer page in the layout, its assets, and `POST /dashboard/explorer/session-key`: the
 * session's API key for the page's script (JSON, never cached), so a signed-in user sees data
 * without pasting a key. Without a mount, a placeholder page; without session keys, the page asks
 * for a pasted key only.
 */
export async function registerExplorerPage(
  app: FastifyInstance,
  deps: {
    web: Web;
    explorer: ExplorerMount | undefined;
    publicApiUrl: string;
    sessionKeys?: SessionKeys | undefined;
    rules: Pick<ThrottleRules, 'sessionKeyReplacePerAccount'>;
  },
): Promise<void> {
  const { web, explorer, sessionKeys } = deps;
  const prefix = `${PREFIX}/explorer`;
  const sessionKeyUrl = `${prefix}/session-key`;
  if (explorer !== undefined) await explorer.registerAssets(app, { prefix });
  app.get(prefix, (request, reply) => {
    web.requireUser(request);
    if (explorer === undefined) {
      return web.page(reply, request, 'Data explorer', explorerPlaceholder(deps.publicApiUrl), { active: 'explorer' });
    }
    const rendered = explorer.render({
      apiBaseUrl: deps.publicApiUrl,
      assetPrefix: prefix,
      sessionKey: sessionKeys === undefined ? undefined : { url: sessionKeyUrl, csrf: web.csrfOf(request) },
    });
    return web.page(reply, request, 'Data explorer', raw(rendered.body), {
      active: 'explorer',
      head: raw(rendered.head),
    });
  });

  if (sessionKeys === undefined || explorer === undefined) return;
  const apiOrigin = new URL(deps.publicApiUrl).origin;
  app.post(
    sessionKeyUrl,
    {
      // The script reads JSON: every failure here, the CSRF guard's and the log-in check's too, is
      // the contract's error body, never a page.
      errorHandler: (error: FastifyError, request, reply) => {
        void sessionKeyError(error, request, reply, apiOrigin);
      },
    },
    async (request, reply) => {
      const user = web.requireUser(request);
      const session = request.session;
      if (session === undefined) throw new PageError(401, 'Log in', 'Log in to continue.');
      // `replace`: a key id the API refused (401), so the held one is not answered again.
      const replace = web.form(request, 'replace');
      if (replace !== '') {
        await web.throttled('session-key-replace', user.account_id, deps.rules.sessionKeyReplacePerAccount);
      }
      const key = await sessionKeys.keyFor(session, user.account_id, replace);
      return reply.header('cache-control', 'no-store').send(key);
    },
  );
}

/** A failure of the session-key route as the contract's error body, with words for the explorer. */
function sessionKeyError(error: unknown, request: FastifyRequest, reply: FastifyReply, apiOrigin: string) {
  let code: ErrorCode = 'internal_error';
  let status = 500;
  let message = 'The dashboard could not make a key for this session: paste one of your keys.';
  // A refused CSRF token without a session: the session ended (logged out in another tab, expired).
  const ended = error instanceof PageError && (error.status === 401 || request.session === undefined);
  if (error instanceof SessionEndedError || ended) {
    [code, status] = ['unauthorized', 401];
    message = 'Your dashboard session has ended: log in again, or paste one of your keys.';
  } else if (error instanceof PageError && error.status === 403) {
    [code, status] = ['forbidden', 403];
    message = "This page's security token does not match your session: reload the page.";
  } else if (error instanceof PageError && error.status === 429) {
    [code, status] = ['rate_limited', 429];
    message = 'This session asked for too many new keys: paste one of your keys, or try again later.';
    reply.headers(error.headers);
  } else if (error instanceof AdminRejectedError) {
    // The admin API's refusal (a closed account 403, the session-key ceiling 409), in its own words.
    code = error.code === 'free_key_ceiling' ? 'free_key_ceiling' : 'forbidden';
    status = error.code === 'free_key_ceiling' ? 409 : 403;
    message = error.message;
  } else if (
    error instanceof AdminUnavailableError ||
    error instanceof SessionKeyBusyError ||
    isRedisUnavailable(error)
  ) {
    [code, status] = ['service_unavailable', 503];
    message = 'A service the dashboard depends on is not answering: try again in a minute, or paste one of your keys.';
    reply.header('retry-after', '30');
  }
  if (status >= 500) {
    request.log.error({ err_name: (error as Error).name, route: request.routeOptions.url }, 'session key failed');
  }
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .send(errorBody(code, message, { requestId: request.id, publicBaseUrl: apiOrigin }));
}

/** Shown when no explorer is mounted. */
function explorerPlaceholder(apiBaseUrl: string): SafeHtml {
  return html`<div class="page-head"><h1>Data explorer</h1></div>
    <section class="card empty">
      <p><strong>The data explorer is on its way.</strong></p>
      <p>
        Meanwhile, try the API directly:
        <code>curl -H "Authorization: Bearer &lt;key&gt;" "${apiBaseUrl}/commodities"</code>
      </p>
    </section>`;
}
