// The SMTP transport against a relay on 127.0.0.1 that speaks just enough SMTP to record what it
// is sent, with STARTTLS (a certificate made for the test) or without it: the second is what the
// client sees when a man in the middle strips STARTTLS from the relay's EHLO answer.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmtpMailer, smtpTransportOptions } from './mailer.ts';

const timeoutMs = 5_000;
const mail = { from: 'cds@example.test', to: 'ada@example.test', subject: 'Reset your password', text: 'token' };
/** The credentials, as AUTH PLAIN sends them. */
const credentials = Buffer.from('\0cds\0relay-password').toString('base64');

interface Line {
  secure: boolean;
  line: string;
}

interface Relay {
  port: number;
  transcript: Line[];
  messages: string[];
  stop(): Promise<void>;
}

/** A minimal SMTP relay: AUTH PLAIN, and STARTTLS with `tls` (else it answers 502, as after a strip). */
async function startRelay(tls: { key: string; cert: string } | null): Promise<Relay> {
  const transcript: Line[] = [];
  const messages: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((plain) => {
    sockets.add(plain);
    plain.on('close', () => sockets.delete(plain));
    plain.on('error', () => plain.destroy());
    let socket: Socket = plain;
    let secure = false;
    let pending = '';
    let data: string[] | null = null;
    const reply = (...lines: string[]): void => {
      socket.write(
        lines.map((l, i) => `${l.slice(0, 3)}${i < lines.length - 1 ? '-' : ' '}${l.slice(4)}\r\n`).join(''),
      );
    };
    const onData = (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (let end = pending.indexOf('\r\n'); end >= 0; end = pending.indexOf('\r\n')) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        handle(line);
      }
    };
    const handle = (line: string): void => {
      if (data !== null) {
        if (line !== '.') return void data.push(line);
        messages.push(data.join('\n'));
        data = null;
        return reply('250 2.0.0 queued');
      }
      transcript.push({ secure, line });
      const verb = line.split(' ')[0]!.toUpperCase();
      if (verb === 'EHLO') {
        const starttls = tls !== null && !secure ? ['250 STARTTLS'] : [];
        return reply('250 relay.test', ...starttls, '250 AUTH PLAIN', '250 8BITMIME');
      }
      if (verb === 'STARTTLS') {
        if (tls === null || secure) return reply('502 5.5.1 command not implemented');
        reply('220 2.0.0 ready to start TLS');
        plain.removeListener('data', onData);
        pending = '';
        const upgraded = new TLSSocket(plain, { isServer: true, key: tls.key, cert: tls.cert });
        upgraded.on('data', onData);
        upgraded.on('error', () => plain.destroy());
        socket = upgraded;
        secure = true;
        return;
      }
      if (verb === 'AUTH') return reply('235 2.7.0 authenticated');
      if (verb === 'DATA') {
        data = [];
        return reply('354 go ahead');
      }
      if (verb === 'QUIT') {
        reply('221 2.0.0 bye');
        return void socket.end();
      }
      if (['MAIL', 'RCPT', 'RSET', 'NOOP'].includes(verb)) return reply('250 2.0.0 ok');
      reply('502 5.5.2 unknown command');
    };
    plain.on('data', onData);
    reply('220 relay.test ESMTP');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    transcript,
    messages,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

let certDir: string;
let cert: { key: string; cert: string };
let stripped: Relay;
let starttls: Relay;

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'cds-smtp-cert-'));
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
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
    ],
    { timeout: 20_000 },
  );
  cert = {
    key: await readFile(join(certDir, 'key.pem'), 'utf8'),
    cert: await readFile(join(certDir, 'cert.pem'), 'utf8'),
  };
  stripped = await startRelay(null);
  starttls = await startRelay(cert);
});

afterAll(async () => {
  await stripped?.stop();
  await starttls?.stop();
  if (certDir !== undefined) await rm(certDir, { recursive: true, force: true });
});

/**
 * A transport configured for `url` whose connection lands on `relay`: the relay itself, or a man in
 * the middle on the path to the named host.
 */
function transportTo(url: string, relay: Relay, extra: { requireTLS?: boolean } = {}) {
  return nodemailer.createTransport({
    ...smtpTransportOptions(url, { timeoutMs, ca: cert.cert }),
    ...extra,
    host: '127.0.0.1',
    port: relay.port,
  });
}

const since = (relay: Relay, from: number) => relay.transcript.slice(from);
const verbs = (lines: Line[]) => lines.map((l) => `${l.secure ? 'tls' : 'plain'} ${l.line.split(' ')[0]}`);

describe('SMTP over smtp:// requires STARTTLS', () => {
  it('sends neither credentials nor mail when STARTTLS is stripped (before: AUTH and the mail went in clear)', async () => {
    const url = 'smtp://cds:relay-password@smtp.example.com:587';
    const from = stripped.transcript.length;
    const transport = transportTo(url, stripped);
    await expect(transport.sendMail(mail)).rejects.toThrow(/STARTTLS/);
    transport.close();
    expect(verbs(since(stripped, from))).toEqual(['plain EHLO', 'plain STARTTLS']);
    expect(stripped.messages).toEqual([]);
    // What the same relay got from the options before requireTLS: the password and the mail in clear.
    const before = stripped.transcript.length;
    const old = transportTo(url, stripped, { requireTLS: false });
    await old.sendMail(mail);
    old.close();
    expect(since(stripped, before).some((l) => !l.secure && l.line.includes(credentials))).toBe(true);
    expect(stripped.messages).toHaveLength(1);
  });

  it('upgrades with STARTTLS, verifies the certificate, then authenticates and sends inside TLS', async () => {
    const from = starttls.transcript.length;
    const transport = transportTo('smtp://cds:relay-password@smtp.example.com:587', starttls);
    await transport.sendMail(mail);
    transport.close();
    const lines = since(starttls, from);
    expect(verbs(lines).slice(0, 4)).toEqual(['plain EHLO', 'plain STARTTLS', 'tls EHLO', 'tls AUTH']);
    expect(lines.filter((l) => !l.secure).map((l) => l.line.split(' ')[0])).toEqual(['EHLO', 'STARTTLS']);
    expect(lines.some((l) => l.secure && l.line.includes(credentials))).toBe(true);
    expect(starttls.messages.at(-1)).toContain('Subject: Reset your password');
    // A certificate the client does not trust ends it before anything is sent.
    const untrusted = nodemailer.createTransport({
      ...smtpTransportOptions('smtp://cds:relay-password@smtp.example.com:587', { timeoutMs }),
      host: '127.0.0.1',
      port: starttls.port,
    });
    const count = starttls.messages.length;
    await expect(untrusted.sendMail(mail)).rejects.toThrow();
    untrusted.close();
    expect(starttls.messages).toHaveLength(count);
  });

  it('createSmtpMailer: a relay at a loopback address may be plain (the test listeners), and STARTTLS is still used when offered', async () => {
    const plainCount = stripped.messages.length;
    const local = createSmtpMailer({
      url: `smtp://cds:relay-password@127.0.0.1:${stripped.port}`,
      from: mail.from,
      timeoutMs,
    });
    await local.send(mail);
    local.close();
    expect(stripped.messages).toHaveLength(plainCount + 1);
    const from = starttls.transcript.length;
    const upgrading = createSmtpMailer({
      url: `smtp://cds:relay-password@127.0.0.1:${starttls.port}`,
      from: mail.from,
      timeoutMs,
      ca: cert.cert,
    });
    await upgrading.send(mail);
    upgrading.close();
    expect(verbs(since(starttls, from)).slice(0, 3)).toEqual(['plain EHLO', 'plain STARTTLS', 'tls EHLO']);
  });
});
