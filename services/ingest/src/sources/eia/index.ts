import { MiB } from '../common/bounds.ts';
import { SourceOpenError } from '../common/errors.ts';
import type { Source } from '../types.ts';
import { EIA_CATALOG } from './catalog.ts';
import { eiaMapping, eiaOf } from './mapping.ts';
import { fetchEiaSeries } from './fetch.ts';
import { parseEiaCsv } from './parse-csv.ts';
import { eiaTasks } from './sync-task.ts';

/** The U.S. Energy Information Administration: the dnav CSV downloads and the API v2. */
export const eia = {
  name: 'eia',
  mapping: eiaMapping,
  catalog: EIA_CATALOG,
  identifiers: (def) => ({ eia_series: (eiaOf(def)?.series ?? []).map((s) => s.id) }),
  credentials: [{ env: 'EIA_API_KEY', required: true }],
  inputs: [
    {
      name: 'eia',
      // An EIA history CSV is under 1 MB.
      file: {
        maxBytes: 64 * MiB,
        published: 'EIA series downloads (CSV with the EIA preamble) or API v2 JSON',
        flags: { series: "the EIA series id when the file's preamble does not name it" },
        open: (chunks, opts) => parseEiaCsv(chunks, opts),
        // a file without the EIA preamble (a `Date,Value` CSV) is named after its series: RWTC.csv
        snapshotFlags: (fileName) => ({ series: fileName.split('.')[0]! }),
      },
      live: ({ since, env, stats, catalog }) => {
        const apiKey = env.EIA_API_KEY;
        if (!apiKey)
          throw new SourceOpenError('fetching from EIA needs an API key in EIA_API_KEY (free at eia.gov/opendata)');
        return fetchEiaSeries({ apiKey, ...(since !== undefined ? { start: since } : {}), stats, catalog });
      },
    },
  ],
  sync: {
    tasks: eiaTasks,
    jobs: [
      { name: 'sync-eia-wpsr', schedule: '35 10 * * 3', purpose: 'WPSR, Wednesdays 10:30 ET' },
      {
        name: 'sync-eia-wpsr-shifted',
        schedule: '5 11 * * 4',
        purpose: 'WPSR moved to Thursday 11:00 ET by a Mon-Wed federal holiday',
      },
      { name: 'sync-eia-daily', schedule: '0 18 * * 1-5', purpose: 'daily spot prices, weekdays' },
    ],
    baseUrlSetting: 'EIA_API_URL',
    liveSince: '1986-01-01',
  },
  demoPart: { part: 'eia', replaces: (def) => (eiaOf(def)?.series ?? []).map((s) => s.type) },
  prices: (def) =>
    (eiaOf(def)?.series ?? [])
      .filter((s) => s.type === 'price')
      .map((s) => ({ source: 'eia', series: s.id, frequency: s.frequency, unit: s.unit, basis: s.basis })),
} satisfies Source;
