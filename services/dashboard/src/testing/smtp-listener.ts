import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  subject: string;
  /** The decoded text body. */
  text: string;
}

export interface SmtpListener {
  /** smtp://user:pass@127.0.0.1:<port> for the dashboard's SMTP_URL. */
  readonly url: string;
  readonly mails: ReceivedMail[];
  /** Resolves with the first mail to `to` whose subject matches, received after `since` mails. */
  waitFor(to: string, subject: RegExp, opts?: { timeoutMs?: number; since?: number }): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  const bytes = Buffer.from(text.replace(/=\r?\n/g, ''), 'latin1');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    const hex = bytes.subarray(i + 1, i + 3).toString('latin1');
    if (c === 0x3d && /^[0-9A-F]{2}$/i.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else out.push(c);
  }
  return Buffer.from(out).toString('utf8');
}

/** Parses a single-part text message as nodemailer sends it. */
export function parseMail(raw: string, to: string[]): ReceivedMail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body;
  return { to, subject: header('Subject'), text: text.replace(/\r\n/g, '\n') };
}

/**
 * A real SMTP server (smtp-server) on 127.0.0.1 that keeps every message it accepts, with
 * AUTH PLAIN/LOGIN required (the credentials in `url`) and no TLS (loopback only).
 */
export async function startSmtpListener(): Promise<SmtpListener> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'cds' && auth.password === 'smtp-test-password') callback(null, { user: 'cds' });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push(
          parseMail(
            Buffer.concat(chunks).toString('latin1'),
            session.envelope.rcptTo.map((r) => r.address),
          ),
        );
        for (const w of waiters) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://cds:smtp-test-password@127.0.0.1:${port}`,
    mails,
    waitFor(to, subject, opts = {}) {
      const since = opts.since ?? 0;
      const find = () => mails.slice(since).find((m) => m.to.includes(to) && subject.test(m.subject));
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = find();
          if (found === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${to} matching ${String(subject)} within ${opts.timeoutMs ?? 10_000} ms`));
        }, opts.timeoutMs ?? 10_000);
        waiters.add(check);
        check();
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first dashboard link in a mail (…/verify?token=… or …/reset?token=…). */
export function linkIn(mail: ReceivedMail, path: 'verify' | 'reset'): string {
  const match = new RegExp(`https?://\\S+/${path}\\?token=[A-Za-z0-9_%-]+`).exec(mail.text);
  if (match === null) throw new Error(`no ${path} link in mail: ${mail.text}`);
  return match[0];
}
