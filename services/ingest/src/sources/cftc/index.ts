import { COT_DATASETS, type CotDataset } from '@cds/contracts';
import { MiB } from '../common/bounds.ts';
import type { Source } from '../types.ts';
import { CFTC_CATALOG } from './catalog.ts';
import { cftcMapping, cftcOf } from './mapping.ts';
import { cftcSnapshotStamp } from './snapshot.ts';
import { fetchCftcCot } from './fetch.ts';
import { parseCftcCotCsv } from './parse-annual.ts';
import { cftcTasks } from './sync-task.ts';

// Its parsers, for the specs and benches that read COT files (`@cds/ingest/sources/cftc`).
export {
  parseCftcCitCsv,
  parseCftcCotCsv,
  parseCftcDisaggregatedCombinedCsv,
  parseCftcDisaggregatedCsv,
  parseCftcLegacyCombinedCsv,
  parseCftcLegacyCsv,
} from './parse-annual.ts';
export { parseCftcSocrataJson } from './parse-socrata.ts';

// A year of the legacy text file is ~20 MB, the 1986-2016 history a few hundred MB.
const maxBytes = 1024 * MiB;

/** The inputs: each a COT dataset (a format in a scope) and the annual file the CFTC publishes it in. */
const INPUTS = [
  {
    name: 'cftc-legacy',
    dataset: 'legacy',
    published: "the CFTC's legacy futures-only annual files (annual.txt of deacot<year>.zip)",
  },
  {
    name: 'cftc-disaggregated',
    dataset: 'disaggregated',
    published: 'the disaggregated futures-only annual files (f_year.txt of fut_disagg_txt_<year>.zip)',
  },
  {
    name: 'cftc-legacy-combined',
    dataset: 'legacy_combined',
    published: 'the legacy futures-and-options combined annual files (annualof.txt of deahistfo<year>.zip)',
  },
  {
    name: 'cftc-disaggregated-combined',
    dataset: 'disaggregated_combined',
    published: 'the disaggregated futures-and-options combined annual files (c_year.txt of com_disagg_txt_<year>.zip)',
  },
  {
    name: 'cftc-cit',
    dataset: 'cit',
    published:
      "the Supplemental report's annual files, Commodity Index Traders (annualci.txt of dea_cit_txt_<year>.zip)",
  },
] as const satisfies readonly { name: string; dataset: CotDataset; published: string }[];

/**
 * The CFTC Commitments of Traders: one source with five inputs, the legacy and the disaggregated
 * report, futures only and futures and options combined, and the CIT supplement
 * (`--source cftc-legacy|cftc-disaggregated|cftc-legacy-combined|cftc-disaggregated-combined|cftc-cit`),
 * synced together (`sync --source cftc`), all published under the `cftc:` provenance. One object
 * keeps the sync, which asks every dataset per commodity under one status, whole.
 */
export const cftc = {
  name: 'cftc',
  mapping: cftcMapping,
  catalog: CFTC_CATALOG,
  identifiers: (def) => ({ cftc_contract_codes: cftcOf(def)?.codes ?? [] }),
  credentials: [{ env: 'CFTC_APP_TOKEN', required: false }],
  inputs: INPUTS.map(({ name, dataset, published }) => {
    const { format, scope } = COT_DATASETS[dataset];
    return {
      name,
      file: {
        maxBytes,
        published,
        open: (chunks, opts) => parseCftcCotCsv(chunks, { ...opts, format, scope }),
      },
      live: ({ since, env, stats, catalog }) =>
        fetchCftcCot({
          format,
          scope,
          ...(since !== undefined ? { from: since } : {}),
          ...(env.CFTC_APP_TOKEN ? { appToken: env.CFTC_APP_TOKEN } : {}),
          stats,
          catalog,
        }),
    };
  }),
  sync: {
    tasks: cftcTasks,
    jobs: [
      { name: 'sync-cftc', schedule: '35 15 * * 5', purpose: 'COT, Fridays 15:30 ET' },
      {
        name: 'sync-cftc-shifted',
        schedule: '35 15 * * 1-4',
        purpose: 'COT moved to Monday (or later) by a Wed-Fri federal holiday; catch-up otherwise',
      },
    ],
    baseUrlSetting: 'CFTC_API_URL',
    probe: (env) =>
      new URL('/resource/6dca-aqww.json?$limit=1', env.CFTC_API_URL ?? 'https://publicreporting.cftc.gov'),
    // An app token lifts Socrata's throttling: four requests a second instead of one.
    http: (keys) =>
      keys.CFTC_APP_TOKEN ? { minIntervalMs: 250, headers: { 'X-App-Token': keys.CFTC_APP_TOKEN } } : {},
  },
  demoPart: {
    part: 'cot',
    replaces: (def) => ((cftcOf(def)?.codes.length ?? 0) > 0 ? ['open_interest'] : []),
    contractCode: (def) => cftcOf(def)?.codes[0],
  },
  snapshotStamps: () => cftcSnapshotStamp,
} satisfies Source;
