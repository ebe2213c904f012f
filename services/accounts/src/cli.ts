// The admin CLI over the accounts service's admin API: `npm run admin -- create-account --name Acme --plan free` (see --help).
import { runAdminCli } from './cli/admin-cli.ts';

process.exitCode = await runAdminCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
