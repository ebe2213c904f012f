import { html, type SafeHtml } from '../security/html.ts';

export const PREFIX = '/dashboard';

export interface LayoutOptions {
  title: string;
  body: SafeHtml;
  /** Signed-in user's e-mail and the CSRF token for the log-out form; absent for visitors. */
  user?: { email: string; csrf: string } | undefined;
  /** Highlighted navigation entry. */
  active?: string;
  head?: SafeHtml;
  /** The API reference (the gateway's /docs). */
  docsUrl?: string;
}

const NAV = [
  ['keys', 'API keys'],
  ['usage', 'Usage'],
  ['plan', 'Plan'],
  ['webhooks', 'Webhooks'],
  ['explorer', 'Data explorer'],
  ['account', 'Account'],
] as const;

/** The page shell: head with the self-hosted stylesheet and script, navigation bar, main, footer. */
export function layout(opts: LayoutOptions): string {
  const nav = opts.user
    ? html`<nav aria-label="Main">
          <ul>
            ${NAV.map(
              ([slug, label]) =>
                html`<li>
                  <a href="${PREFIX}/${slug}" ${opts.active === slug ? html`aria-current="page"` : ''}>${label}</a>
                </li>`,
            )}
          </ul>
        </nav>
        <form method="post" action="${PREFIX}/logout" class="logout">
          <input type="hidden" name="_csrf" value="${opts.user.csrf}" />
          <span class="who" title="Signed in">${opts.user.email}</span>
          <button type="submit" class="button ghost small">Log out</button>
        </form>`
    : html`<nav aria-label="Main">
        <ul>
          <li><a href="${PREFIX}/login" ${opts.active === 'login' ? html`aria-current="page"` : ''}>Log in</a></li>
          <li><a href="${PREFIX}/signup" ${opts.active === 'signup' ? html`aria-current="page"` : ''}>Sign up</a></li>
        </ul>
      </nav>`;
  return `<!doctype html>${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${opts.title} · Commodity Data dashboard</title>
        <link rel="icon" href="${PREFIX}/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="${PREFIX}/assets/dashboard.css" />
        <script src="${PREFIX}/assets/dashboard.js" defer></script>
        ${opts.head ?? ''}
      </head>
      <body>
        <header class="topbar">
          <a class="brand" href="${PREFIX}/"><span class="logo" aria-hidden="true">◆</span> Commodity Data</a>
          ${nav}
        </header>
        <main id="main">${opts.body}</main>
        <footer class="footer">
          Commodity Data Service · read-only REST API over public government data ·
          <a href="${opts.docsUrl ?? '/docs'}">API reference</a> · <a href="${PREFIX}/status">Service status</a>
        </footer>
      </body>
    </html>`.value
  }`;
}
