import type { Mailer } from '@cds/mail';
import type { FastifyBaseLogger } from 'fastify';
import { scrub } from '../security/scrub.ts';
import type { User, UserStore } from '../users/user-store.ts';

/** The mails of the account pages; their links point at the dashboard's public URL. */
export interface AccountMails {
  /** Issues a confirmation token (24 h) and mails its link. */
  sendVerification(user: User): Promise<void>;
  /** Issues a reset token (1 h) and mails its link. */
  sendReset(user: User): Promise<void>;
  /** Tells the owner of an address that someone tried to sign up with it again. */
  sendDuplicateSignup(to: string): Promise<void>;
  /** Tells the owner that the password was changed (by a reset link or on the account page). */
  sendPasswordChanged(user: User): Promise<void>;
}

/** A mail with a one-time link: its purpose (also the link's path), lifetime and words around the link. */
interface LinkMail {
  purpose: 'verify' | 'reset';
  ttlMs: number;
  subject: string;
  text: (link: string) => string;
}

const VERIFY: LinkMail = {
  purpose: 'verify',
  ttlMs: 24 * 60 * 60 * 1000,
  subject: 'Confirm your e-mail address',
  text: (link) =>
    `Welcome to the Commodity Data Service.\n\nConfirm your e-mail address to activate your account:\n\n` +
    `${link}\n\nThe link works for 24 hours. If you did not sign up, ignore this mail.\n`,
};
const RESET: LinkMail = {
  purpose: 'reset',
  ttlMs: 60 * 60 * 1000,
  subject: 'Reset your password',
  text: (link) =>
    `Choose a new password for your Commodity Data Service account:\n\n${link}\n\n` +
    `The link works for one hour. If you did not ask for it, ignore this mail: your password stays as it is.\n`,
};

export function createAccountMails(deps: {
  users: UserStore;
  mailer: Mailer;
  publicBaseUrl: string;
  clock: () => number;
}): AccountMails {
  const base = deps.publicBaseUrl;
  const sendLink = async (user: User, mail: LinkMail) => {
    const token = await deps.users.issueToken(user._id, mail.purpose, mail.ttlMs);
    const link = `${base}/${mail.purpose}?token=${encodeURIComponent(token)}`;
    await deps.mailer.send({ to: user.email, subject: mail.subject, text: mail.text(link) });
  };
  return {
    sendVerification: (user) => sendLink(user, VERIFY),
    sendReset: (user) => sendLink(user, RESET),
    sendDuplicateSignup: (to) =>
      deps.mailer.send({
        to,
        subject: 'Someone tried to sign up with your address',
        text:
          `Somebody (perhaps you) tried to create a Commodity Data Service account with this address, ` +
          `which already has one. Nothing was changed.\n\nLog in: ${base}/login\n` +
          `Forgot your password? ${base}/forgot\n`,
      }),
    // A takeover through a reset (or a stolen session) must not go unnoticed (ASVS V2.5.5); the mail
    // carries no link that acts by itself, only where to turn.
    sendPasswordChanged: (user) =>
      deps.mailer.send({
        to: user.email,
        subject: 'Your password was changed',
        text:
          `The password of your Commodity Data Service account was changed on ` +
          `${new Date(deps.clock()).toISOString().slice(0, 16).replace('T', ' at ')} UTC; ` +
          `every other session was logged out.\n\n` +
          `If this was you, there is nothing to do.\n\n` +
          `If it was not you, choose a new password at once: ${base}/forgot\n` +
          `Then check your API keys and webhooks: ${base}/keys\n`,
      }),
  };
}

/**
 * Sends a mail without holding up the page: a failed send is logged (scrubbed of addresses), never
 * answered, for mails whose failure must not change what the visitor sees.
 */
export function sendInBackground(log: FastifyBaseLogger, sending: Promise<void>, what: string): void {
  sending.catch((err: unknown) => {
    const cause = err instanceof Error ? err.cause : undefined;
    log.warn(
      {
        err: scrub(err instanceof Error ? err.message : String(err)),
        cause: scrub(cause instanceof Error ? cause.message : ''),
      },
      `${what} mail failed`,
    );
  });
}
