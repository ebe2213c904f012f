// `npm run snapshot:build -- --live | --from <downloaded source files>`: rebuilds data/snapshot
// (docs/sources.md "The bundled snapshot"). See --help.
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { syncSettingsOf } from './cli/sync-cli.ts';
import { IngestEnv } from './config.ts';
import { buildSnapshotFromFiles, buildSnapshotLive, defaultCotSince } from './snapshot/build.ts';
import { INPUTS, SYNCED } from './sources/registry.ts';

/** The synced sources, each with the key it needs. */
const LIVE = SYNCED.map(({ name, source }) => {
  const key = source.credentials.find((c) => c.required)?.env;
  return key === undefined ? name : `${name} (${key})`;
});
/** The inputs a snapshot is built from, with the files each reads. */
const FROM = INPUTS.flatMap((i) =>
  i.file.published === undefined ? [] : [`  ${`${i.name}/`.padEnd(22)}${i.file.published}`],
);

const USAGE = `Usage: npm run snapshot:build -- --live [--out <dir>] [--cot-since YYYY-MM-DD]
       npm run snapshot:build -- --from <dir> [--onto <snapshot>] [--out <dir>] [--cot-since YYYY-MM-DD]

--live rebuilds the bundled snapshot of real data from the sources themselves, with the tasks
\`ingest sync\` runs: ${LIVE.join(', ')},
every mapped series, the COT reports from --cot-since and every other source's history.
The sources' addresses can be changed as for sync (${SYNCED.map((s) => s.sync.baseUrlSetting).join(', ')}).

--from rebuilds it from downloaded source files. <dir> holds one folder
per source, named as \`ingest backfill --source\` names it, each with the files as published:
${FROM.join('\n')}
Files are read in name order, a later file's value for a date replacing an earlier one's.
With --onto, the snapshot in <snapshot> (e.g. data/snapshot) is read first, its rows and origins
kept: the files add to it, a file's value for a date replacing the snapshot's.

  --out DIR        where to write (default: data/snapshot of this repository)
  --cot-since D    first COT report kept (default: January 1st, three years before this year)`;

const { values: v } = parseArgs({
  args: process.argv.slice(2),
  options: {
    from: { type: 'string' },
    live: { type: 'boolean' },
    out: { type: 'string' },
    onto: { type: 'string' },
    'cot-since': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (v.help || (v.from === undefined) === (v.live !== true)) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(v.help ? 0 : 2);
}
if (v.onto !== undefined && v.from === undefined) {
  process.stderr.write(`--onto adds files to a snapshot: give them with --from\n`);
  process.exit(2);
}
if (v['cot-since'] !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(v['cot-since'])) {
  process.stderr.write(`--cot-since must be YYYY-MM-DD\n`);
  process.exit(2);
}
const out = v.out ?? fileURLToPath(new URL('../../../data/snapshot/', import.meta.url));
try {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const cotSince = v['cot-since'] ?? defaultCotSince(new Date());
  const { manifest } =
    v.from !== undefined
      ? await buildSnapshotFromFiles({
          rawDir: v.from,
          outDir: out,
          cotSince,
          say,
          ...(v.onto !== undefined ? { onto: v.onto } : {}),
        })
      : await (async () => {
          const settings = syncSettingsOf(process.env, IngestEnv.parse(process.env));
          return buildSnapshotLive({
            outDir: out,
            cotSince,
            settings,
            ...(settings.http !== undefined ? { http: settings.http } : {}),
            say,
          });
        })();
  for (const [name, f] of Object.entries(manifest.files))
    process.stdout.write(
      `${name.padEnd(26)} ${String(f?.rows).padStart(7)} rows ${String(f?.bytes).padStart(9)} bytes\n`,
    );
  for (const s of manifest.sources)
    process.stdout.write(`${s.name.padEnd(10)} ${s.first_date} … ${s.last_date} ${String(s.rows).padStart(7)} rows\n`);
} catch (err) {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
