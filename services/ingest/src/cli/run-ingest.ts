import { IngestEnv } from '../config.ts';
import { COMMODITIES } from '../sources/registry.ts';
import { runIngest, type IngestSummary } from '../publish/pipeline.ts';
import { traced } from '../publish/traced.ts';
import { INGEST_USAGE, parseIngestArgs, readCommand, UsageError } from './args.ts';
import { resolveAddresses } from './addresses.ts';
import type { CliIo } from './io.ts';
import { createProgressReporter } from './progress.ts';
import { openSource, SourceOpenError } from './sources.ts';
import { withPublishing } from './publishing.ts';
import { formatSummary } from './summary.ts';
import { runSyncCommand } from './sync-cli.ts';

/**
 * The ingest CLI: parses arguments, opens the source, connects to NATS, runs the pipeline with a
 * progress display, prints the summary. Returns the exit code: 0 when the run completed (rejected
 * rows included), 1 on a fatal error (missing file, NATS unreachable), 2 on bad usage.
 */
export async function runIngestCli(argv: readonly string[], io: CliIo): Promise<number> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  const cmd = readCommand(parseIngestArgs, argv, INGEST_USAGE, io);
  if (typeof cmd === 'number') return cmd;
  const envParsed = IngestEnv.safeParse(io.env);
  if (!envParsed.success) {
    say(`error: bad environment: ${envParsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return 2;
  }
  const settings = envParsed.data;

  let natsUrl: string | undefined;
  try {
    natsUrl = resolveAddresses(
      { ...(cmd.common.natsUrl !== undefined ? { natsUrl: cmd.common.natsUrl } : {}) },
      io.env,
    ).natsUrl;
  } catch (err) {
    say(`error: ${(err as Error).message}`);
    return 1;
  }
  if (natsUrl === undefined) {
    say('error: no NATS address: pass --nats-url, set NATS_URL, or run `npm start` (it writes .cds/local.json)');
    return 1;
  }

  if (cmd.command === 'sync') return runSyncCommand(cmd, io, settings, natsUrl);

  let source;
  try {
    source = await openSource(cmd, io.env);
  } catch (err) {
    if (err instanceof UsageError) {
      say(`error: ${err.message}\n\n${INGEST_USAGE}`);
      return 2;
    }
    if (err instanceof SourceOpenError) {
      say(`error: ${err.message}`);
      return 1;
    }
    throw err;
  }

  const opened = source; // a const, so the closure below keeps its narrowed type
  return withPublishing(
    { natsUrl, settings, ledger: cmd.common.ledger, name: 'ingest-cli', what: 'ingest', say },
    async ({ newPublisher }) => {
      const publisher = newPublisher();
      const progress = cmd.common.quiet
        ? undefined
        : createProgressReporter(io.stderr, {
            ...(opened.fraction !== undefined ? { fraction: opened.fraction } : {}),
          });
      let summary: IngestSummary;
      try {
        // One trace per run: every publish is a child span, and the projectors continue it.
        summary = await traced(
          `ingest ${cmd.command}`,
          { attributes: { 'cds.ingest.source': opened.label } },
          async (span) => {
            const result = await runIngest({
              items: opened.items,
              publisher,
              catalog: COMMODITIES.map((c) => c.entry),
              source: opened.label,
              batcher: { budget: settings.BATCH_BUDGET },
              ...(progress !== undefined ? { onProgress: (p) => progress.update(p) } : {}),
              progressEvery: 2_000,
            });
            span.setAttributes({
              'cds.ingest.records_read': result.recordsRead,
              'cds.ingest.rejected': result.rejected,
              'cds.ingest.events_published': result.eventsPublished,
              'cds.ingest.duplicates_skipped': result.duplicatesSkipped,
            });
            return result;
          },
        );
      } finally {
        progress?.done();
      }
      io.stdout.write(
        `${formatSummary(summary, { title: opened.label, ...(opened.stats !== undefined ? { parse: opened.stats } : {}) })}\n`,
      );
      return 0;
    },
  );
}
