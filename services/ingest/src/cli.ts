// The ingest CLI: `npm run ingest -- backfill --source cftc-legacy --file annual.txt` (see --help).
import { runIngestCli } from './cli/run-ingest.ts';

process.exitCode = await runIngestCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
