/**
 * The CronJobs that run `ingest sync` (charts/commodity-data values `ingestJobs.schedules`, time
 * zone America/New_York). A cron line cannot express a holiday shift, so each source's job fires at
 * every candidate slot a few minutes after the release (the usual day and the days a holiday can
 * move it to); sync is incremental, so a run that finds nothing new publishes nothing, and a missed
 * run is caught up by the next one. The schedule spec checks that these lines cover every release
 * the release rules compute for 2026 and 2027.
 */
export interface SyncSchedule {
  name: string;
  schedule: string;
  source: 'cftc' | 'eia' | 'nass' | 'ams' | 'worldbank';
  /** What the slot is for. */
  purpose: string;
}

export const SYNC_SCHEDULES: readonly SyncSchedule[] = [
  { name: 'sync-cftc', schedule: '35 15 * * 5', source: 'cftc', purpose: 'COT, Fridays 15:30 ET' },
  {
    name: 'sync-cftc-shifted',
    schedule: '35 15 * * 1-4',
    source: 'cftc',
    purpose: 'COT moved to Monday (or later) by a Wed-Fri federal holiday; catch-up otherwise',
  },
  { name: 'sync-eia-wpsr', schedule: '35 10 * * 3', source: 'eia', purpose: 'WPSR, Wednesdays 10:30 ET' },
  {
    name: 'sync-eia-wpsr-shifted',
    schedule: '5 11 * * 4',
    source: 'eia',
    purpose: 'WPSR moved to Thursday 11:00 ET by a Mon-Wed federal holiday',
  },
  { name: 'sync-eia-daily', schedule: '0 18 * * 1-5', source: 'eia', purpose: 'daily spot prices, weekdays' },
  {
    name: 'sync-nass-crop',
    schedule: '5 12 8-12 * *',
    source: 'nass',
    purpose: 'Crop Production (monthly, 12:00 ET around the 8th-12th, with the WASDE)',
  },
  {
    name: 'sync-nass-quarter',
    schedule: '5 12 26-31 3,6,9 *',
    source: 'nass',
    purpose: 'Prospective Plantings, Acreage, Grain Stocks (12:00 ET, last business day of Mar/Jun/Sep)',
  },
  {
    name: 'sync-worldbank',
    schedule: '5 12 2-8 * *',
    source: 'worldbank',
    purpose: 'Pink Sheet (monthly, 2nd business day: the 2nd-6th; to the 8th catches a late posting)',
  },
  {
    name: 'sync-nass-prices',
    schedule: '5 15 26-31 * *',
    source: 'nass',
    purpose: 'Agricultural Prices, monthly prices received (15:00 ET, around the last business day of the month)',
  },
  {
    name: 'sync-ams-daily',
    schedule: '5 11 * * 1-5',
    source: 'ams',
    purpose: 'LM_HG201 prior-day slaughtered swine (LMR datamart, by 10:00 CT = 11:00 ET each business day)',
  },
  {
    name: 'sync-ams-milk',
    schedule: '5 17 1-6 * *',
    source: 'ams',
    purpose: 'FMMO class prices of the previous month (announced on or before the 5th)',
  },
];
