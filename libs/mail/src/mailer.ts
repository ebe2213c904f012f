import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';

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

/** Sends through an SMTP server (nodemailer), `smtp://user:pass@host:port` or `smtps://…`. */
export function createSmtpMailer(opts: { url: string; from: string; timeoutMs: number }): Mailer {
  const url = new URL(opts.url);
  const secure = url.protocol === 'smtps:';
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    ...(url.username === ''
      ? {}
      : { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
  });
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
