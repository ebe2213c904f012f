import type { WebhookAdmin } from '@cds/webhooks';
import type { AdminClient } from '../admin/admin-client.ts';
import type { Cookies } from '../http/cookies.ts';
import type { Web } from '../http/web.ts';
import type { Challenges } from '../security/challenge.ts';
import type { PasswordHasher } from '../security/password.ts';
import type { ThrottleRules } from '../security/throttle.ts';
import type { SessionStore } from '../sessions/session-store.ts';
import type { UserStore } from '../users/user-store.ts';
import type { AccountMails } from './mails.ts';

/** Everything the account pages use; each route module picks its part. */
export interface AccountDeps {
  web: Web;
  cookies: Cookies;
  users: UserStore;
  sessions: SessionStore;
  passwords: PasswordHasher;
  admin: AdminClient;
  mails: AccountMails;
  rules: ThrottleRules;
  /** Proof-of-work challenges (sign-up bursts, log-in after many wrong passwords). */
  challenges: Challenges;
  webhooks: WebhookAdmin;
}
