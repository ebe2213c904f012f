import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import { classifyAddress } from './address.ts';
import type { DeliveryAttempt } from './store/port.ts';

/** Resolves a host name to every address it has (node:dns `lookup` with `all: true` by default). */
export type Resolver = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

export interface OutboundOptions {
  /** Whole deadline of one POST (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Most response bytes read before the connection is dropped (WEBHOOK_MAX_RESPONSE_BYTES). */
  maxResponseBytes: number;
  /** `host:port` pairs exempt from the private-address refusal (WEBHOOK_ALLOW_PRIVATE); tests and local receivers only. */
  allowPrivate?: readonly string[];
  /** Default: the system resolver. Tests inject one. */
  resolver?: Resolver;
  /**
   * Trusted CA certificates (PEM) replacing the default roots: tests only. The service leaves it
   * unset, so the system roots plus NODE_EXTRA_CA_CERTS apply.
   */
  ca?: string | readonly string[];
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; message: string };

/** One attempt: a redirect is never followed, so it is always the answer of the URL posted to. */
export type PostResult = DeliveryAttempt;

export interface OutboundClient {
  /** POSTs `body` to `url` with `headers`; never throws, never takes longer than `timeoutMs`. */
  post(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<PostResult>;
  close(): Promise<void>;
}

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** `resolver` with a deadline: a resolution that takes longer fails with code `ETIMEOUT`. */
function boundedResolver(resolver: Resolver, timeoutMs: number): Resolver {
  return (hostname) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error(`resolving ${hostname} took over ${timeoutMs} ms`), { code: 'ETIMEOUT' })),
        timeoutMs,
      );
    });
    return Promise.race([resolver(hostname), late]).finally(() => clearTimeout(timer));
  };
}

/** Refused before or while connecting: the outcome `refused_address`, with a message for the owner. */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
}

/** `host:port` of a URL as WEBHOOK_ALLOW_PRIVATE lists it (IPv6 in brackets, the default port spelt out). */
function hostPort(url: URL): string {
  return `${url.hostname}:${url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port}`;
}

/** The URL rules that need no DNS: https, no credentials, a host, no `localhost`, an IP literal that is public. */
function checkUrlShape(
  raw: string | URL,
  allow: ReadonlySet<string>,
): { ok: true; url: URL; exempt: boolean } | { ok: false; message: string } {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    return { ok: false, message: 'not a valid URL' };
  }
  if (url.protocol === 'http:') return { ok: false, message: 'must use https:// (plain http is refused)' };
  if (url.protocol !== 'https:') return { ok: false, message: `must be an https:// URL, not ${url.protocol}` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, message: 'must not contain credentials (user:password@)' };
  if (url.hostname === '') return { ok: false, message: 'has no host' };
  const exempt = allow.has(hostPort(url));
  if (exempt) return { ok: true, url, exempt };
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return { ok: false, message: `${url.hostname} is a loopback name` };
  }
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) {
    const cls = classifyAddress(host);
    if (cls !== 'public') return { ok: false, message: `${url.hostname} is a ${cls} address` };
  }
  return { ok: true, url, exempt };
}

/** Every address of `hostname`, or why one of them (or the resolution) is refused. */
async function resolveChecked(
  hostname: string,
  resolver: Resolver,
): Promise<{ ok: true; addresses: LookupAddress[] } | { ok: false; message: string }> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  let addresses: LookupAddress[];
  if (family !== 0) {
    addresses = [{ address: bare, family }];
  } else {
    try {
      addresses = (await resolver(bare)).map((a) => ({ address: a.address, family: a.family }));
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'error';
      return { ok: false, message: `${hostname} does not resolve (${code})` };
    }
  }
  if (addresses.length === 0) return { ok: false, message: `${hostname} has no address` };
  for (const a of addresses) {
    const cls = classifyAddress(a.address);
    if (cls !== 'public') return { ok: false, message: `${hostname} resolves to ${a.address}, a ${cls} address` };
  }
  return { ok: true, addresses };
}

/**
 * Checks a webhook URL as the notifier will before each delivery: https only, no credentials, and
 * the host resolved with every address public (not loopback, private, link-local, unique-local,
 * CGNAT, multicast, broadcast, reserved, or an IPv4-mapped form of those; no `localhost`), unless
 * its `host:port` is in `allowPrivate`. For the dashboard when an endpoint is saved.
 */
export async function checkWebhookUrl(
  url: string,
  opts: { allowPrivate?: readonly string[]; resolver?: Resolver; timeoutMs?: number } = {},
): Promise<UrlCheck> {
  if (url.length > 2_000) return { ok: false, message: 'is longer than 2000 characters' };
  const shape = checkUrlShape(url, new Set(opts.allowPrivate ?? []));
  if (!shape.ok) return shape;
  if (shape.exempt) return { ok: true, url: shape.url };
  const resolver = boundedResolver(opts.resolver ?? systemResolver, opts.timeoutMs ?? 5_000);
  const resolved = await resolveChecked(shape.url.hostname, resolver);
  return resolved.ok ? { ok: true, url: shape.url } : resolved;
}

/**
 * The outbound HTTPS client of the notifier. Each connection resolves its host through a `lookup`
 * that refuses any non-public address (so a name that resolves to a private address at connection
 * time, DNS rebinding included, never gets a socket), and the connected socket's peer address is
 * checked again; TLS SNI and `Host` stay the URL's name. A redirect is never followed: a `3xx` is a
 * failed attempt (`http_error`), as any other non-2xx answer. One deadline covers the whole POST;
 * the response body is read up to `maxResponseBytes` and the connection dropped past it.
 */
export function createOutboundClient(opts: OutboundOptions): OutboundClient {
  const allow = new Set(opts.allowPrivate ?? []);
  const resolver = boundedResolver(opts.resolver ?? systemResolver, opts.timeoutMs);
  const tlsOptions = opts.ca === undefined ? {} : { ca: typeof opts.ca === 'string' ? [opts.ca] : [...opts.ca] };

  const connector: buildConnector.connector = (connectOpts, callback) => {
    const port = connectOpts.port || '443';
    const bare = connectOpts.hostname.replace(/^\[|\]$/g, '');
    // WEBHOOK_ALLOW_PRIVATE spells IPv6 hosts in brackets, as URLs do.
    const exempt = allow.has(`${bare}:${port}`) || allow.has(`[${bare}]:${port}`);
    const lookup = (
      hostname: string,
      lookupOpts: { all?: boolean },
      cb: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      const checked = exempt
        ? resolver(hostname).then((list) => ({ ok: true as const, addresses: [...list] }))
        : resolveChecked(hostname, resolver);
      checked.then(
        (r) => {
          if (!r.ok) return cb(new RefusedAddressError(r.message), '', 0);
          const first = r.addresses[0]!;
          if (lookupOpts.all === true) cb(null, r.addresses);
          else cb(null, first.address, first.family);
        },
        (err: NodeJS.ErrnoException) => cb(err, '', 0),
      );
    };
    const connect = buildConnector({
      ...tlsOptions,
      allowH2: false,
      timeout: opts.timeoutMs,
      lookup,
    });
    connect(connectOpts, (err, socket) => {
      if (err !== null) return callback(err, null);
      // The peer actually reached (an IP literal skips lookup; belt and braces for the rest).
      const peer = socket.remoteAddress ?? '';
      const cls = classifyAddress(peer);
      if (!exempt && cls !== 'public') {
        socket.destroy();
        return callback(
          new RefusedAddressError(`${connectOpts.hostname} connected to ${peer}, a ${cls} address`),
          null,
        );
      }
      callback(null, socket);
    });
  };
  const agent = new Agent({
    connect: connector,
    connections: 64,
    keepAliveTimeout: 4_000,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });

  async function post(
    url: string,
    body: string,
    headers: Record<string, string>,
    outer?: AbortSignal,
  ): Promise<PostResult> {
    const started = performance.now();
    const at = new Date();
    const deadline = AbortSignal.timeout(opts.timeoutMs);
    const signal = outer === undefined ? deadline : AbortSignal.any([deadline, outer]);
    const result = (
      outcome: DeliveryAttempt['outcome'],
      statusCode: number | null,
      error: string | null,
    ): PostResult => ({
      at,
      outcome,
      status_code: statusCode,
      error: error === null ? null : error.slice(0, 300),
      duration_ms: Math.round(performance.now() - started),
    });
    const shape = checkUrlShape(url, allow);
    if (!shape.ok) return result('refused_address', null, `URL ${shape.message}`);
    if (!shape.exempt) {
      // Resolve before connecting so a refusal is reported as such (the lookup checks again at connect).
      const resolved = await resolveChecked(shape.url.hostname, resolver);
      if (!resolved.ok) return result('refused_address', null, resolved.message);
    }
    let statusCode: number;
    try {
      // undici's request follows no redirect (that takes its redirect interceptor, never installed here).
      const res = await request(shape.url, {
        dispatcher: agent,
        method: 'POST',
        headers,
        body,
        signal,
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
      statusCode = res.statusCode;
      let read = 0;
      for await (const chunk of res.body) {
        read += (chunk as Buffer).length;
        if (read > opts.maxResponseBytes) {
          res.body.destroy();
          return result('too_large', statusCode, `response larger than ${opts.maxResponseBytes} bytes`);
        }
      }
    } catch (err) {
      return failure(err, signal, deadline);
    }
    if (statusCode >= 200 && statusCode < 300) return result('delivered', statusCode, null);
    // A redirect is a failure, as at Stripe: following it would repeat the signed body and its
    // CDS-Signature to wherever an open redirect of the receiver points (replayable there for 300 s).
    if (statusCode >= 300 && statusCode < 400)
      return result(
        'http_error',
        statusCode,
        `HTTP ${statusCode}: redirects are not followed (register the final URL)`,
      );
    return result('http_error', statusCode, `HTTP ${statusCode}`);

    function failure(err: unknown, sig: AbortSignal, dl: AbortSignal): PostResult {
      const refused = findCause(err, (e) => e instanceof RefusedAddressError);
      if (refused !== undefined) return result('refused_address', null, refused.message);
      if (dl.aborted || (sig.aborted && dl.aborted))
        return result('timeout', null, `no complete answer within ${opts.timeoutMs} ms`);
      const code = (err as { code?: string }).code ?? '';
      if (/TIMEOUT/.test(code))
        return result('timeout', null, `no complete answer within ${opts.timeoutMs} ms (${code})`);
      if (sig.aborted) return result('network_error', null, 'aborted (shutting down)');
      const message = err instanceof Error ? err.message : String(err);
      return result('network_error', null, `${code === '' ? '' : `${code}: `}${message}`);
    }
  }

  return { post, close: () => agent.close() };
}

function findCause(err: unknown, test: (e: unknown) => boolean): Error | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth += 1) {
    if (test(e)) return e as Error;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
