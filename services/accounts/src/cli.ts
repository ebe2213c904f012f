// The admin CLI over the accounts service's admin API: `npm run admin -- create-account --name Acme --plan free` (see --help);
// `npm run admin -- incident …` writes the status page's incidents in NATS KV (cli/incident-cli.ts).
import { runAdminCli } from './cli/admin-cli.ts';
import { runIncidentCli } from './cli/incident-cli.ts';

const argv = process.argv.slice(2);
const io = { stdout: process.stdout, stderr: process.stderr, env: process.env };
process.exitCode = argv[0] === 'incident' ? await runIncidentCli(argv.slice(1), io) : await runAdminCli(argv, io);
