// The outbound client against real HTTPS servers on 127.0.0.1: what it refuses (and that the refused
// server never sees a connection), redirects never followed, DNS answers that change between the
// check and the connection, and receivers that never answer, answer slowly or send 10 MB.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookUrl, createOutboundClient, type OutboundClient, type Resolver } from './outbound.ts';
import {
  createSelfSignedCertificate,
  startHttpsReceiver,
  type HttpsReceiver,
  type SelfSignedCertificate,
} from './testing/receiver.ts';

const TIMEOUT_MS = 1_500;
const CAP = 64 * 1024;
let cert: SelfSignedCertificate;
/** Exempted: answers 204, or what the path asks for. */
let allowed: HttpsReceiver;
/** Never exempted: no test may reach it. */
let forbidden: HttpsReceiver;
let client: OutboundClient;
const open: ServerResponse[] = [];

const body = JSON.stringify({ id: 'evt_00000000000000000000000000000001', type: 'series.updated' });
const headers = { 'content-type': 'application/json', 'user-agent': 'CommodityDataService-Webhooks/1' };

beforeAll(async () => {
  cert = await createSelfSignedCertificate();
  forbidden = await startHttpsReceiver(cert);
  allowed = await startHttpsReceiver(cert, (req, res) => {
    const url = new URL(req.url, 'https://x');
    const to = url.searchParams.get('to');
    const status = Number(url.searchParams.get('status') ?? 302);
    if (url.pathname === '/redirect' && to !== null) return void res.writeHead(status, { location: to }).end();
    if (url.pathname === '/fail') return void res.writeHead(500).end('no');
    if (url.pathname === '/never') return void open.push(res);
    if (url.pathname === '/slow') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('.')), 200);
      return;
    }
    if (url.pathname === '/huge') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(10 * 1024 * 1024) });
      const chunk = Buffer.alloc(64 * 1024, 120);
      let sent = 0;
      const pump = () => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (hugeFinished = res.writableFinished));
      return pump();
    }
    res.writeHead(204).end();
  });
  client = createOutboundClient({
    timeoutMs: TIMEOUT_MS,
    maxResponseBytes: CAP,
    allowPrivate: [`127.0.0.1:${allowed.port}`, `localhost:${allowed.port}`],
    ca: cert.cert,
  });
}, 60_000);

let hugeFinished: boolean | undefined;

afterAll(async () => {
  for (const res of open) res.destroy();
  await client?.close();
  await allowed?.stop();
  await forbidden?.stop();
  await cert?.remove();
});

/** Connections the forbidden server accepted (a refusal must not even connect). */
const forbiddenSeen = () => forbidden.connections();

describe('outbound client: refusals', () => {
  it.each([
    ['plain http', () => `http://127.0.0.1:${forbidden.port}/`, /https/],
    ['credentials in the URL', () => `https://user:pw@127.0.0.1:${allowed.port}/`, /credentials/],
    ['127.0.0.1', () => `https://127.0.0.1:${forbidden.port}/`, /loopback/],
    ['10.x', () => 'https://10.1.2.3/', /private/],
    ['[::1]', () => `https://[::1]:${forbidden.port}/`, /loopback/],
    ['an IPv4-mapped loopback', () => `https://[::ffff:127.0.0.1]:${forbidden.port}/`, /loopback/],
    ['localhost', () => `https://localhost:${forbidden.port}/`, /loopback name/],
    ['169.254.169.254 (cloud metadata)', () => 'https://169.254.169.254/latest/meta-data', /link-local/],
  ])('refuses %s before connecting', async (_label, url, message) => {
    const before = forbiddenSeen();
    const result = await client.post(url(), body, headers);
    expect(result.outcome).toBe('refused_address');
    expect(result.error).toMatch(message);
    expect(forbiddenSeen()).toBe(before);
    const check = await checkWebhookUrl(url());
    expect(check.ok).toBe(false);
  });

  it('refuses a name that resolves to loopback, or to any private address among public ones (injected resolver)', async () => {
    const resolver: Resolver = (host) =>
      Promise.resolve(
        host === 'loop.example.test'
          ? [{ address: '127.0.0.1', family: 4 }]
          : [
              { address: '93.184.216.34', family: 4 },
              { address: 'fd00::5', family: 6 },
            ],
      );
    const c = createOutboundClient({ timeoutMs: TIMEOUT_MS, maxResponseBytes: CAP, resolver, ca: cert.cert });
    try {
      const loop = await c.post(`https://loop.example.test:${forbidden.port}/`, body, headers);
      expect(loop).toMatchObject({ outcome: 'refused_address' });
      expect(loop.error).toMatch(/resolves to 127\.0\.0\.1, a loopback address/);
      const mixed = await c.post('https://mixed.example.test/', body, headers);
      expect(mixed.error).toMatch(/fd00::5, a unique-local address/);
      expect(await checkWebhookUrl(`https://loop.example.test:${forbidden.port}/`, { resolver })).toMatchObject({
        ok: false,
      });
      expect(forbiddenSeen()).toBe(0);
    } finally {
      await c.close();
    }
  });

  it('refuses at connection time a name whose DNS answer turns private after the check (rebinding)', async () => {
    let calls = 0;
    const resolver: Resolver = () => {
      calls += 1;
      return Promise.resolve(
        calls === 1 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }],
      );
    };
    const c = createOutboundClient({ timeoutMs: TIMEOUT_MS, maxResponseBytes: CAP, resolver, ca: cert.cert });
    try {
      const result = await c.post(`https://rebind.example.test:${forbidden.port}/`, body, headers);
      expect(result.outcome).toBe('refused_address');
      expect(result.error).toMatch(/127\.0\.0\.1, a loopback address/);
      expect(calls).toBeGreaterThanOrEqual(2);
      expect(forbiddenSeen()).toBe(0);
    } finally {
      await c.close();
    }
  });

  it('never follows a redirect: one POST, recorded as a failed attempt with its status, whatever the target', async () => {
    const targets = [
      `${allowed.origin}/ok`, // the same exempted receiver: still not followed
      `https://127.0.0.1:${forbidden.port}/x`,
      `https://localhost:${forbidden.port}/`,
      'http://8.8.8.8/',
    ];
    for (const status of [301, 302, 303, 307, 308]) {
      for (const to of targets) {
        const before = allowed.requests.length;
        const result = await client.post(
          `${allowed.origin}/redirect?status=${status}&to=${encodeURIComponent(to)}`,
          body,
          { ...headers, 'cds-signature': 't=1,v1=00' },
        );
        expect(result).toMatchObject({ outcome: 'http_error', status_code: status });
        expect(result.error).toBe(`HTTP ${status}: redirects are not followed (register the final URL)`);
        // Exactly one request, to the registered URL: the signed body went nowhere else.
        const seen = allowed.requests.slice(before);
        expect(seen.map((r) => [r.method, new URL(r.url, 'https://x').pathname])).toEqual([['POST', '/redirect']]);
      }
    }
    expect(forbiddenSeen()).toBe(0);
  });
});

describe('checkWebhookUrl', () => {
  it('accepts a public name and an exempted host:port, and says why it refuses', async () => {
    const publicResolver: Resolver = () => Promise.resolve([{ address: '2606:4700:4700::1111', family: 6 }]);
    expect(await checkWebhookUrl('https://hooks.example.com/cds', { resolver: publicResolver })).toMatchObject({
      ok: true,
    });
    expect(
      await checkWebhookUrl(`${allowed.origin}/hook`, { allowPrivate: [`127.0.0.1:${allowed.port}`] }),
    ).toMatchObject({ ok: true });
    // The exemption is for that port only, and never for plain http.
    expect(
      await checkWebhookUrl(`https://127.0.0.1:${forbidden.port}/`, { allowPrivate: [`127.0.0.1:${allowed.port}`] }),
    ).toEqual({
      ok: false,
      message: '127.0.0.1 is a loopback address',
    });
    expect(
      await checkWebhookUrl(`http://127.0.0.1:${allowed.port}/`, { allowPrivate: [`127.0.0.1:${allowed.port}`] }),
    ).toEqual({
      ok: false,
      message: 'must use https:// (plain http is refused)',
    });
    expect(await checkWebhookUrl('not a url')).toEqual({ ok: false, message: 'not a valid URL' });
    const slow: Resolver = () => new Promise(() => undefined);
    const started = Date.now();
    expect(await checkWebhookUrl('https://slow.example.test/', { resolver: slow, timeoutMs: 200 })).toEqual({
      ok: false,
      message: 'slow.example.test does not resolve (ETIMEOUT)',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('outbound client: deliveries and bad receivers', () => {
  it('POSTs the body and headers to an exempted receiver, by IP and by name (SNI and Host the name)', async () => {
    const before = allowed.requests.length;
    const byIp = await client.post(`${allowed.origin}/hook`, body, { ...headers, 'cds-event-id': 'evt_1' });
    expect(byIp).toMatchObject({ outcome: 'delivered', status_code: 204, error: null });
    const byName = await client.post(`https://localhost:${allowed.port}/named`, body, headers);
    expect(byName.outcome).toBe('delivered');
    const [first, second] = allowed.requests.slice(before);
    expect(first).toMatchObject({ method: 'POST', url: '/hook', body });
    expect(first!.headers).toMatchObject({ 'content-type': 'application/json', 'cds-event-id': 'evt_1' });
    expect(second!.headers.host).toBe(`localhost:${allowed.port}`);
    const failed = await client.post(`${allowed.origin}/fail`, body, headers);
    expect(failed).toMatchObject({ outcome: 'http_error', status_code: 500, error: 'HTTP 500' });
  });

  it('ends a receiver that never answers at the deadline', async () => {
    const started = Date.now();
    const result = await client.post(`${allowed.origin}/never`, body, headers);
    const took = Date.now() - started;
    expect(result.outcome).toBe('timeout');
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(took).toBeLessThan(TIMEOUT_MS + 1_000);
  });

  it('ends a receiver that answers slowly (a byte now and then) at the deadline', async () => {
    const started = Date.now();
    const result = await client.post(`${allowed.origin}/slow`, body, headers);
    expect(result.outcome).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_000);
  });

  it('drops a receiver sending 10 MB after the cap, long before it could send it all', async () => {
    hugeFinished = undefined;
    const started = Date.now();
    const result = await client.post(`${allowed.origin}/huge`, body, headers);
    expect(result).toMatchObject({ outcome: 'too_large', status_code: 200 });
    expect(result.error).toMatch(/larger than 65536 bytes/);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
    // The connection was dropped: the server never finished its 10 MB.
    await expect.poll(() => hugeFinished, { timeout: 5_000 }).toBe(false);
  });
});
