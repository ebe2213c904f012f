import { SYNCED } from '../sources/registry.ts';
import { COMMODITIES } from '../sources/registry.ts';
import type { IngestEnv } from '../config.ts';
import { runSync, type SourceSyncResult, type SyncOptions, type SyncSettings } from '../sync/run-sync.ts';
import { createKvSyncStore } from '../sync/state.ts';
import type { IngestCommand } from './args.ts';
import { createProgressReporter } from './progress.ts';
import { withPublishing } from './publishing.ts';
import type { CliIo } from './io.ts';
import { formatSummary } from './summary.ts';

const fmt = (n: number) => n.toLocaleString('en-US');

/** The per-source block of the sync output: the usual summary plus what was asked and what failed. */
export function formatSyncResult(r: SourceSyncResult): string {
  const lines: string[] = [];
  if (r.summary) lines.push(formatSummary(r.summary, { title: `sync ${r.source}`, parse: r.stats }));
  else lines.push(`Summary: sync ${r.source}`);
  const ok = r.series.filter((s) => s.ok);
  const failed = r.series.filter((s) => !s.ok);
  const revised = r.series.reduce((n, s) => n + s.revised, 0);
  const fresh = r.series.reduce((n, s) => n + s.fresh, 0);
  lines.push(
    `  series:              ${fmt(ok.length)} synced, ${fmt(failed.length)} failed`,
    `  new or revised:      ${fmt(fresh)} records (${fmt(revised)} revised)`,
    `  newest data:         ${r.status.newest_data_date ?? 'none yet'}`,
  );
  if (r.error !== undefined && failed.length === 0) lines.push(`  error:               ${r.error}`);
  for (const f of failed) lines.push(`  failed: ${f.series} (from ${f.from}): ${f.error ?? 'unknown error'}`);
  return lines.join('\n');
}

/** `ingest sync`: exit 0 when every source synced, 1 when one failed (named), never a stack trace. */
export async function runSyncCommand(
  cmd: Extract<IngestCommand, { command: 'sync' }>,
  io: CliIo,
  settings: IngestEnv,
  natsUrl: string,
): Promise<number> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  return withPublishing(
    { natsUrl, settings, ledger: cmd.common.ledger, name: 'ingest-sync', what: 'sync', say },
    async ({ messaging, newPublisher }) => {
      const store = await createKvSyncStore(messaging.js, { replicas: settings.STREAM_REPLICAS });
      let fraction = 0;
      const progress = cmd.common.quiet ? undefined : createProgressReporter(io.stderr, { fraction: () => fraction });
      let results: SourceSyncResult[];
      try {
        results = await runSync({
          sources: cmd.sources,
          publisher: newPublisher,
          store,
          catalogEntries: COMMODITIES.map((c) => c.entry),
          ...(cmd.since !== undefined ? { since: cmd.since } : {}),
          ...syncSettingsOf(io.env, settings),
          batcher: { budget: settings.BATCH_BUDGET },
          onProgress: (p) => {
            fraction = p.total === 0 ? 1 : p.done / p.total;
            progress?.update({
              recordsRead: p.recordsRead,
              rejected: 0,
              eventsPublished: 0,
              duplicatesSkipped: 0,
              recordsPublished: 0,
              buffered: 0,
            });
          },
        });
      } finally {
        progress?.done();
      }
      io.stdout.write(`${results.map(formatSyncResult).join('\n\n')}\n`);
      const failed = results.filter((r) => !r.ok);
      if (failed.length > 0) {
        say(`error: sync failed for ${failed.map((r) => `${r.source} (${r.error ?? 'failed'})`).join('; ')}`);
        return 1;
      }
      return 0;
    },
  );
}

/** The sources' keys, addresses and request pacing, as the environment gives them (docs/ingest.md). */
export function syncSettingsOf(
  env: Record<string, string | undefined>,
  settings: IngestEnv,
): SyncSettings & Pick<SyncOptions, 'http'> {
  const keys = SYNCED.flatMap(({ source }) => source.credentials).filter((c) => env[c.env]);
  const urls = SYNCED.flatMap(({ name, sync }) => {
    const url = (settings as Record<string, unknown>)[sync.baseUrlSetting];
    return typeof url === 'string' ? [[name, url] as const] : [];
  });
  return {
    keys: Object.fromEntries(keys.map((c) => [c.env, env[c.env]!])),
    baseUrls: Object.fromEntries(urls),
    ...(settings.SOURCE_REQUEST_INTERVAL_MS !== undefined
      ? { http: { minIntervalMs: settings.SOURCE_REQUEST_INTERVAL_MS } }
      : {}),
  };
}
