import { SourceUsageError } from '../common/errors.ts';
import type { Source } from '../types.ts';
import { AMS_CATALOG } from './catalog.ts';
import { amsMapping, amsOf } from './mapping.ts';
import { fetchAmsReports } from './fetch.ts';
import { AMS_MAX_BYTES, parseAmsJson } from './parse.ts';
import { AMS_REPORTS, amsReport } from './reports.ts';
import { amsTasks } from './sync-task.ts';

/** USDA AMS Market News: the LMR datamart's answers (Livestock Mandatory Reporting, FMMO class prices). */
export const ams = {
  name: 'ams',
  mapping: amsMapping,
  catalog: AMS_CATALOG,
  identifiers: (def) => {
    const mapping = amsOf(def);
    return mapping ? { ams_reports: mapping.series.map((a) => a.report) } : {};
  },
  credentials: [],
  inputs: [
    {
      name: 'ams',
      file: {
        maxBytes: AMS_MAX_BYTES,
        requires: [{ flag: 'report', hint: 'LM_CT150, LM_HG201 or FMMO_CLASS' }],
        takes: ['report'],
        flags: { report: 'the report the JSON file answers for (LM_CT150, LM_HG201, FMMO_CLASS)' },
        open: (chunks, opts) => {
          if (opts.report === undefined || !amsReport(opts.report))
            throw new SourceUsageError(
              `--report must be one of ${Object.keys(AMS_REPORTS).join(', ')} for --source ams`,
            );
          return parseAmsJson(chunks, {
            file: opts.file,
            stats: opts.stats,
            catalog: opts.catalog,
            report: opts.report,
          });
        },
      },
      // the LMR datamart needs no key
      live: ({ since, stats, catalog }) =>
        fetchAmsReports({ ...(since !== undefined ? { from: since } : {}), stats, catalog }),
    },
  ],
  sync: {
    tasks: amsTasks,
    jobs: [
      {
        name: 'sync-ams-daily',
        schedule: '5 11 * * 1-5',
        purpose: 'LM_HG201 prior-day slaughtered swine (LMR datamart, by 10:00 CT = 11:00 ET each business day)',
      },
      {
        name: 'sync-ams-milk',
        schedule: '5 17 1-6 * *',
        purpose: 'FMMO class prices of the previous month (announced on or before the 5th)',
      },
    ],
    baseUrlSetting: 'AMS_API_URL',
    probe: (env) => new URL('/services/v1.1/reports', env.AMS_API_URL ?? 'https://mpr.datamart.ams.usda.gov'),
    liveSince: '2020-01-01',
  },
  demoPart: { part: 'ams', replaces: (def) => (amsOf(def)?.series ?? []).map((s) => s.type) },
  prices: (def) =>
    (amsOf(def)?.series ?? [])
      .filter((a) => a.type === 'price')
      .map((a) => ({ source: 'ams', series: a.report, frequency: a.frequency, unit: a.unit, basis: a.basis })),
} satisfies Source;
