import type { Mailer } from '@cds/mail';
import type { User, UserStore } from '../users/user-store.ts';

/** The mails of the account pages; their links point at the dashboard's public URL. */
export interface AccountMails {
  /** Issues a confirmation token (24 h) and mails its link. */
  sendVerification(user: User): Promise<void>;
  /** Issues a reset token (1 h) and mails its link. */
  sendReset(user: User): Promise<void>;
  /** Tells the owner of an address that someone tried to sign up with it again. */
  sendDuplicateSignup(to: string): Promise<void>;
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

export function createAccountMails(deps: { users: UserStore; mailer: Mailer; publicBaseUrl: string }): AccountMails {
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
  };
}
