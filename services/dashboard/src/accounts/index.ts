import type { FastifyInstance } from 'fastify';
import type { Mailer } from '@cds/mail';
import { registerAccountPageRoutes } from './delete-account.ts';
import type { AccountDeps } from './deps.ts';
import { registerLoginRoutes } from './login.ts';
import { createAccountMails } from './mails.ts';
import { registerPasswordResetRoutes } from './password-reset.ts';
import { registerSignupRoutes } from './signup.ts';

/** Sign-up and confirmation, log-in and log-out, password reset, the account page and its deletion. */
export function registerAccountRoutes(
  app: FastifyInstance,
  deps: Omit<AccountDeps, 'mails'> & {
    mailer: Mailer;
    /** The dashboard's own public URL, for the links in mails. */
    publicBaseUrl: string;
    clock: () => number;
  },
): void {
  const withMails = { ...deps, mails: createAccountMails(deps) };
  registerSignupRoutes(app, withMails);
  registerLoginRoutes(app, withMails);
  registerPasswordResetRoutes(app, withMails);
  registerAccountPageRoutes(app, withMails);
}
