import { MiB } from '../common/bounds.ts';
import { SourceOpenError } from '../common/errors.ts';
import type { Source } from '../types.ts';
import { NASS_CATALOG } from './catalog.ts';
import { nassMapping, nassOf } from './mapping.ts';
import { fetchNassQuickStats } from './fetch.ts';
import { parseNassCsv } from './parse.ts';
import { nassTasks } from './sync-task.ts';

/** USDA NASS Quick Stats: the CSV export and the API. */
export const nass = {
  name: 'nass',
  mapping: nassMapping,
  catalog: NASS_CATALOG,
  identifiers: (def) => ({ nass_items: (nassOf(def)?.items ?? []).map((i) => i.short_desc) }),
  credentials: [{ env: 'NASS_API_KEY', required: true }],
  inputs: [
    {
      name: 'nass',
      // A Quick Stats CSV export is capped at 50,000 rows (~30 MB).
      file: {
        maxBytes: 256 * MiB,
        published: 'Quick Stats CSV exports',
        open: (chunks, opts) => parseNassCsv(chunks, opts),
      },
      live: ({ since, env, stats, catalog }) => {
        const apiKey = env.NASS_API_KEY;
        if (!apiKey) throw new SourceOpenError('fetching from NASS Quick Stats needs an API key in NASS_API_KEY');
        return fetchNassQuickStats({
          apiKey,
          ...(since !== undefined ? { fromYear: Number(since.slice(0, 4)) } : {}),
          stats,
          catalog,
        });
      },
    },
  ],
  sync: {
    tasks: nassTasks,
    jobs: [
      {
        name: 'sync-nass-crop',
        schedule: '5 12 8-12 * *',
        purpose: 'Crop Production (monthly, 12:00 ET around the 8th-12th, with the WASDE)',
      },
      {
        name: 'sync-nass-quarter',
        schedule: '5 12 26-31 3,6,9 *',
        purpose: 'Prospective Plantings, Acreage, Grain Stocks (12:00 ET, last business day of Mar/Jun/Sep)',
      },
      {
        name: 'sync-nass-prices',
        schedule: '5 15 26-31 * *',
        purpose: 'Agricultural Prices, monthly prices received (15:00 ET, around the last business day of the month)',
      },
    ],
    baseUrlSetting: 'NASS_API_URL',
    liveSince: '2000-01-01',
  },
  demoPart: { part: 'nass', replaces: (def) => (nassOf(def)?.items ?? []).map((i) => i.type) },
  prices: (def) =>
    (nassOf(def)?.items ?? [])
      .filter((i) => i.type === 'price')
      .map((i) => ({ source: 'nass', series: i.short_desc, frequency: 'monthly', unit: i.unit, basis: i.basis })),
} satisfies Source;
