import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface SelfSignedCertificate {
  key: string;
  cert: string;
  /** The certificate in a PEM file (for NODE_EXTRA_CA_CERTS of a child process). */
  certFile: string;
  /** Removes the files. */
  remove(): Promise<void>;
}

/** A self-signed certificate for `localhost`, 127.0.0.1 and ::1 (openssl req), valid for a day. */
export async function createSelfSignedCertificate(): Promise<SelfSignedCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'cds-webhook-cert-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  await promisify(execFile)(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { timeout: 20_000 },
  );
  const [key, cert] = await Promise.all([readFile(keyFile, 'utf8'), readFile(certFile, 'utf8')]);
  return { key, cert, certFile, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A request the receiver got, with its raw body. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export interface HttpsReceiver {
  readonly port: number;
  /** https://127.0.0.1:<port> */
  readonly origin: string;
  readonly requests: ReceivedRequest[];
  /** TCP connections accepted so far (a refused delivery must not even connect). */
  connections(): number;
  /** Resolves when `count` requests matching `filter` have arrived. */
  waitFor(count: number, filter?: (r: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  stop(): Promise<void>;
}

export type ReceiverHandler = (req: ReceivedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

/** A real HTTPS server on 127.0.0.1 (free port) answering with `handler` after reading each body. */
export async function startHttpsReceiver(
  cert: Pick<SelfSignedCertificate, 'key' | 'cert'>,
  handler: ReceiverHandler = (_req, res) => void res.writeHead(204).end(),
  opts: { host?: string } = {},
): Promise<HttpsReceiver> {
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer({ key: cert.key, cert: cert.cert }, (raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => {
      const req: ReceivedRequest = {
        method: raw.method ?? '',
        url: raw.url ?? '',
        headers: raw.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(req);
      for (const w of waiters) w();
      void Promise.resolve(handler(req, res, raw)).catch(() => res.destroy());
    });
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    connections: () => connections,
    waitFor(count, filter = () => true, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = requests.filter(filter);
          if (found.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: ${requests.filter(filter).length}/${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
