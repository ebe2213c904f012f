// The dashboard's operator CLI. `create-user --email E --password P --plan PLAN` creates a verified
// user with its own account of that plan (through the admin API) and prints
// {"user_id":…,"account_id":…}; for an existing e-mail with the same plan it prints the same ids.
// `--email` and `--plan` may be repeated in pairs (the same password for all): the users are made
// in order, one line each, in one process (npm start makes its four demo users so).
// Environment: MONGODB_URL, MONGODB_DB, ADMIN_URL, ADMIN_TOKEN (ADMIN_TIMEOUT_MS).
import { parseArgs } from 'node:util';
import { loadConfig } from '@cds/config';
import { Plan } from '@cds/contracts';
import { connectStore } from '@cds/store';
import { z } from 'zod';
import { accountIdOf } from './admin/account-id.ts';
import { createAdminClient } from './admin/admin-client.ts';
import { DashboardConfig } from './config.ts';
import { createPasswordHasher, passwordProblem } from './security/password.ts';
import { createUserStore, normalizeEmail } from './users/user-store.ts';

const CliConfig = DashboardConfig.pick({
  MONGODB_URL: true,
  MONGODB_DB: true,
  ADMIN_URL: true,
  ADMIN_TOKEN: true,
  ADMIN_TIMEOUT_MS: true,
});
const USAGE =
  'usage: cli.ts create-user --email E --password P --plan free|professional|business|enterprise [--email E --plan PLAN]...';

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function createUsers(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string', multiple: true },
      password: { type: 'string' },
      plan: { type: 'string', multiple: true },
    },
    strict: true,
  });
  const emails = values.email ?? [];
  const plans = values.plan ?? [];
  if (emails.length === 0 || emails.length !== plans.length)
    fail(`give each --email its --plan (${emails.length} e-mails, ${plans.length} plans)\n${USAGE}`, 2);
  const password = values.password ?? '';
  // every pair checked before any user is made
  const wanted = emails.map((raw, i) => {
    const email = normalizeEmail(raw);
    if (!z.email().max(254).safeParse(email).success) fail(`--email ${raw} must be an e-mail address\n${USAGE}`, 2);
    const plan = Plan.safeParse(plans[i]);
    if (!plan.success) fail(`--plan must be one of ${Plan.options.join(', ')}\n${USAGE}`, 2);
    const problem = passwordProblem(password, email);
    if (problem !== null) fail(`--password: ${problem}`, 2);
    return { email, plan: plan.data };
  });

  const config = loadConfig(CliConfig, process.env);
  const store = await connectStore({ url: config.MONGODB_URL, appName: 'dashboard-cli' });
  try {
    const users = await createUserStore({ db: store.db(config.MONGODB_DB), clock: Date.now });
    const admin = createAdminClient({
      url: config.ADMIN_URL,
      token: config.ADMIN_TOKEN,
      timeoutMs: config.ADMIN_TIMEOUT_MS,
    });
    const hasher = createPasswordHasher();
    for (const { email, plan } of wanted) {
      let user = await users.byEmail(email);
      if (user === null) {
        const created = await users.create({
          email,
          passwordHash: await hasher.hash(password, 'user'),
          verified: true,
        });
        user = created === 'duplicate' ? await users.byEmail(email) : created;
        if (user === null) fail(`${email}: the user vanished while being created; run the command again`);
      }
      let accountId = user.account_id;
      if (accountId === null) {
        // The id derived from the user id, as at confirmation: a rerun after a failure gets the same account.
        accountId = (await admin.createAccount(user._id, plan, accountIdOf(user._id))).account_id;
        await users.update(user._id, { account_id: accountId, verified: true });
      } else {
        const account = await admin.getAccount(accountId);
        if (account.plan !== plan) {
          fail(`${email} already exists with plan ${account.plan}; change plans with npm run admin`);
        }
      }
      process.stdout.write(`${JSON.stringify({ user_id: user._id, account_id: accountId })}\n`);
    }
  } finally {
    await store.close();
  }
}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'create-user') await createUsers(rest);
  else fail(USAGE, 2);
} catch (err) {
  fail(`create-user failed: ${err instanceof Error ? err.message : String(err)}`);
}
