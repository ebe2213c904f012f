import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { isIPv4, isIPv6 } from 'node:net';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';
import type { SMTPTransportOptions } from 'nodemailer/lib/smtp-transport';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** The mail port: SMTP in production, files locally. Every send ends within its timeout. */
export interface Mailer {
  readonly kind: 'smtp' | 'file';
  send(mail: Mail): Promise<void>;
  close(): void;
}

export class MailError extends Error {
  override readonly name = 'MailError';
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new MailError(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A literal loopback address (127.0.0.0/8, ::1): a relay on this host, or in this pod, reached over no network. */
function isLoopbackLiteral(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIPv4(bare)) return bare.startsWith('127.');
  return isIPv6(bare) && bare === '::1';
}

/**
 * nodemailer's transport options for `smtp://user:pass@host:port` or `smtps://…`. `smtps://` is
 * TLS from the first byte (port 465 by default). `smtp://` (587 by default) requires STARTTLS
 * (`requireTLS`): a relay, or a man in the middle, that does not upgrade the connection gets
 * neither the credentials nor the mail (RFC 3207 makes STARTTLS optional, so without this a MITM
 * that strips it from the EHLO answer would read both in clear). The one exception is a relay at a
 * literal loopback address (127.0.0.0/8, ::1), a local MTA or a sidecar with no network between to
 * strip it on; a name such as `localhost` is not exempt. Certificates are verified against the
 * system roots (plus NODE_EXTRA_CA_CERTS), or `ca` when given.
 */
export function smtpTransportOptions(
  rawUrl: string,
  opts: { timeoutMs: number; ca?: string | readonly string[] },
): SMTPTransportOptions {
  const url = new URL(rawUrl);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new MailError(`SMTP_URL must be smtp:// or smtps://, not ${url.protocol}`);
  }
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    host,
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    requireTLS: !secure && !isLoopbackLiteral(host),
    tls: {
      minVersion: 'TLSv1.2',
      rejectUnauthorized: true,
      ...(opts.ca === undefined ? {} : { ca: typeof opts.ca === 'string' ? [opts.ca] : [...opts.ca] }),
    },
    ...(url.username === ''
      ? {}
      : { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
  };
}

/**
 * Sends through an SMTP server (nodemailer), `smtp://user:pass@host:port` (STARTTLS required) or
 * `smtps://…` (see `smtpTransportOptions`). `ca`: trusted CA certificates (PEM) replacing the system
 * roots, for tests.
 */
export function createSmtpMailer(opts: {
  url: string;
  from: string;
  timeoutMs: number;
  ca?: string | readonly string[];
}): Mailer {
  const transport = nodemailer.createTransport(
    smtpTransportOptions(opts.url, { timeoutMs: opts.timeoutMs, ...(opts.ca === undefined ? {} : { ca: opts.ca }) }),
  );
  return {
    kind: 'smtp',
    async send(mail) {
      try {
        await withTimeout(
          transport.sendMail({ from: opts.from, to: mail.to, subject: mail.subject, text: mail.text }),
          opts.timeoutMs,
          'SMTP send',
        );
      } catch (err) {
        throw err instanceof MailError ? err : new MailError('SMTP send failed', { cause: err });
      }
    },
    close: () => transport.close(),
  };
}

/** Writes each mail as an RFC 822-style text file under `dir` (local development). */
export function createFileMailer(opts: { dir: string; from: string; timeoutMs: number; clock: () => number }): Mailer {
  return {
    kind: 'file',
    async send(mail) {
      const stamp = new Date(opts.clock()).toISOString().replace(/[:.]/g, '-');
      const file = join(opts.dir, `${stamp}-${randomBytes(3).toString('hex')}.eml`);
      const body =
        `From: ${opts.from}\nTo: ${mail.to}\nSubject: ${mail.subject}\n` +
        `Date: ${new Date(opts.clock()).toUTCString()}\nContent-Type: text/plain; charset=utf-8\n\n${mail.text}\n`;
      try {
        await withTimeout(
          mkdir(opts.dir, { recursive: true }).then(() => writeFile(file, body, { mode: 0o600 })),
          opts.timeoutMs,
          'mail file write',
        );
      } catch (err) {
        throw err instanceof MailError ? err : new MailError('writing the mail file failed', { cause: err });
      }
    },
    close: () => undefined,
  };
}

/** A service's mail settings, as `mailVars` of libs/config reads them from the environment. */
export interface MailSettings {
  SMTP_URL?: string | undefined;
  MAIL_DIR: string;
  MAIL_FROM: string;
  MAIL_TIMEOUT_MS: number;
}

/**
 * The mailer a service's mail settings ask for: SMTP when SMTP_URL is set, else one file per mail
 * under MAIL_DIR (resolved against the working directory).
 */
export function createMailer(settings: MailSettings, clock: () => number): Mailer {
  const { MAIL_FROM: from, MAIL_TIMEOUT_MS: timeoutMs } = settings;
  return settings.SMTP_URL !== undefined
    ? createSmtpMailer({ url: settings.SMTP_URL, from, timeoutMs })
    : createFileMailer({ dir: resolve(settings.MAIL_DIR), from, timeoutMs, clock });
}
