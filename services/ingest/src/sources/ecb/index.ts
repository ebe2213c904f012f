import { Readable } from 'node:stream';
import { InputBoundError } from '../common/bounds.ts';
import { SourceOpenError } from '../common/errors.ts';
import { countSkip } from '../common/stats.ts';
import type { Source, SourceItem } from '../types.ts';
import { ECB_RATES_URL, rateFileUrl, RECENT_FILE } from './fetch.ts';
import { RATE_FILE_MAX_BYTES, rateItems, RateFileError, readRateFile } from './parse.ts';
import { rateSnapshotStamps } from './snapshot.ts';
import { RATE_FIRST_DATE, rateTasks } from './sync-task.ts';

// Its parser, for the specs that read reference rates (`@cds/ingest/sources/ecb`).
export { rateItems, readRateFile, RateFileError, rateDayStamp } from './parse.ts';

/** Reads a whole file (the parser refuses a file whole, so nothing is published before it is checked). */
async function bytesOf(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}

/**
 * The ECB's euro foreign exchange reference rates: one series per currency (`FX_EUR_<CCY>`, units
 * per one euro), no catalog commodity: the query service converts prices with them.
 */
export const ecb = {
  name: 'ecb',
  credentials: [],
  inputs: [
    {
      name: 'ecb',
      file: {
        maxBytes: RATE_FILE_MAX_BYTES,
        published:
          'eurofxref-hist.csv or .zip (the whole history), eurofxref.csv (the day), eurofxref-hist.xml, eurofxref-hist-90d.xml, eurofxref-daily.xml',
        async open(chunks, opts) {
          try {
            const table = readRateFile(await bytesOf(chunks), opts.file);
            opts.stats.rows += table.days.length;
            for (let i = 0; i < table.missing; i++) countSkip(opts.stats, 'missing_value');
            return Readable.from(rateItems(table, { file: opts.file, stats: opts.stats })) as AsyncIterable<SourceItem>;
          } catch (err) {
            if (err instanceof RateFileError || err instanceof InputBoundError) throw new SourceOpenError(err.message);
            throw err;
          }
        },
      },
      live: {
        none: 'ecb: use sync --source ecb (it reads the last 90 days, or the whole history), or backfill --file',
      },
    },
  ],
  sync: {
    tasks: rateTasks,
    jobs: [
      {
        name: 'sync-ecb',
        schedule: '30 16 * * 1-5',
        timeZone: 'Europe/Berlin',
        purpose: 'euro reference rates (every TARGET day about 16:00 Frankfurt; run at 16:30 there)',
      },
    ],
    baseUrlSetting: 'ECB_API_URL',
    probe: (env) => rateFileUrl(RECENT_FILE, env.ECB_API_URL ?? ECB_RATES_URL),
    liveSince: RATE_FIRST_DATE,
  },
  snapshotStamps: rateSnapshotStamps,
} satisfies Source;
