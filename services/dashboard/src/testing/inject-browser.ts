import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A browser-like client over `app.inject` for the dashboard's route specs: a cookie jar, the CSRF
 * token of the last page seen, and a client address.
 */
export class InjectBrowser {
  readonly cookies = new Map<string, string>();
  csrf = '';
  readonly ip: string;
  private readonly app: () => FastifyInstance;

  /** `app` is read at each request, so a spec may build its app after creating browsers. */
  constructor(app: () => FastifyInstance, ip = '10.0.0.1') {
    this.app = app;
    this.ip = ip;
  }

  private absorb(res: LightMyRequestResponse) {
    for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      if (c.value === '' || c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now()))
        this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token !== undefined) this.csrf = token;
    return res;
  }

  private get cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.absorb(
      await this.app().inject({ method: 'GET', url, headers: { cookie: this.cookieHeader }, remoteAddress: this.ip }),
    );
  }

  /** A form POST with this browser's CSRF token, another (`csrf`), or none (`csrf: null`). */
  async post(
    url: string,
    fields: Record<string, string | string[]>,
    opts: { csrf?: string | null } = {},
  ): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) {
      for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
    }
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf !== null) form.set('_csrf', csrf);
    return this.absorb(
      await this.app().inject({
        method: 'POST',
        url,
        payload: form.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader },
        remoteAddress: this.ip,
      }),
    );
  }
}

/** A page's text without its markup, whitespace collapsed. */
export const pageText = (res: LightMyRequestResponse): string => res.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
