import { MiB } from '../common/bounds.ts';
import { SourceOpenError } from '../common/errors.ts';
import type { Source } from '../types.ts';
import { nassMapping } from './mapping.ts';
import { fetchNassQuickStats } from './fetch.ts';
import { parseNassCsv } from './parse.ts';
import { nassTasks } from './sync-task.ts';

/** USDA NASS Quick Stats: the CSV export and the API. */
export const nass = {
  name: 'nass',
  mapping: nassMapping,
  credentials: [{ env: 'NASS_API_KEY', setting: 'nassApiKey', required: true }],
  inputs: [
    {
      name: 'nass',
      // A Quick Stats CSV export is capped at 50,000 rows (~30 MB).
      file: { maxBytes: 256 * MiB, open: (chunks, opts) => parseNassCsv(chunks, opts) },
      live: ({ since, env, stats }) => {
        const apiKey = env.NASS_API_KEY;
        if (!apiKey) throw new SourceOpenError('fetching from NASS Quick Stats needs an API key in NASS_API_KEY');
        return fetchNassQuickStats({
          apiKey,
          ...(since !== undefined ? { fromYear: Number(since.slice(0, 4)) } : {}),
          stats,
        });
      },
    },
  ],
  sync: { tasks: nassTasks, baseUrlSetting: 'NASS_API_URL', liveSince: '2000-01-01' },
  demoPart: { part: 'nass', replaces: (def) => (def.sources.nass?.items ?? []).map((i) => i.type) },
  prices: (def) =>
    (def.sources.nass?.items ?? [])
      .filter((i) => i.type === 'price')
      .map((i) => ({ source: 'nass', series: i.short_desc, frequency: 'monthly', unit: i.unit, basis: i.basis })),
} satisfies Source;
