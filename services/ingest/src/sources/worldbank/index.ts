import { InputBoundError, MiB } from '../common/bounds.ts';
import { SourceOpenError } from '../common/errors.ts';
import type { Source } from '../types.ts';
import { WORLDBANK_CATALOG } from './catalog.ts';
import { worldbankMapping, worldbankOf } from './mapping.ts';
import { worldbankSnapshotStamps } from './snapshot.ts';
import { readWorldBankWorkbook, WorldBankFileError } from './parse.ts';
import { WORLDBANK_FIRST_DATE, worldbankTasks } from './sync-task.ts';

// Its parser, for the specs that read a Pink Sheet (`@cds/ingest/sources/worldbank`).
export { parseWorldBankXlsx } from './parse.ts';

/** The World Bank's Commodity Price Data (the Pink Sheet): one monthly workbook. */
export const worldbank = {
  name: 'worldbank',
  mapping: worldbankMapping,
  catalog: WORLDBANK_CATALOG,
  identifiers: (def) => {
    const mapping = worldbankOf(def);
    return mapping ? { worldbank_series: mapping.series.map((w) => w.code) } : {};
  },
  credentials: [],
  inputs: [
    {
      name: 'worldbank',
      // The Pink Sheet is under 1 MB (its own bounds: parse.ts PINK_SHEET_LIMITS).
      file: {
        maxBytes: 8 * MiB,
        published: 'CMO-Historical-Data-Monthly.xlsx (the Pink Sheet)',
        // The workbook is read and its layout checked here, so a changed layout stops before anything is published.
        async open(chunks, opts) {
          try {
            return (
              await readWorldBankWorkbook(chunks, { file: opts.file, stats: opts.stats, catalog: opts.catalog })
            ).stream();
          } catch (err) {
            if (err instanceof WorldBankFileError || err instanceof InputBoundError)
              throw new SourceOpenError(err.message);
            throw err;
          }
        },
      },
      live: { none: 'worldbank: use sync --source worldbank (it finds the monthly file), or backfill --file' },
    },
  ],
  sync: {
    tasks: worldbankTasks,
    jobs: [
      {
        name: 'sync-worldbank',
        schedule: '5 12 2-8 * *',
        purpose: 'Pink Sheet (monthly, 2nd business day: the 2nd-6th; to the 8th catches a late posting)',
      },
    ],
    baseUrlSetting: 'WORLDBANK_PAGE_URL',
    probe: (env) => new URL(env.WORLDBANK_PAGE_URL ?? 'https://www.worldbank.org/en/research/commodity-markets'),
    liveSince: WORLDBANK_FIRST_DATE,
  },
  demoPart: { part: 'worldbank', replaces: (def) => (worldbankOf(def)?.series ?? []).map((s) => s.type) },
  prices: (def) =>
    (worldbankOf(def)?.series ?? []).map((w) => ({
      source: 'worldbank',
      series: w.code,
      frequency: w.frequency,
      unit: w.unit,
      basis: w.basis,
    })),
  snapshotStamps: worldbankSnapshotStamps,
} satisfies Source;
