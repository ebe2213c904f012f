import type { SyncSourceName } from '@cds/contracts';
import { SYNCED } from '../sources/registry.ts';
import type { SyncJob } from '../sources/types.ts';

/**
 * The CronJobs that run `ingest sync` (charts/commodity-data values `ingestJobs.schedules`, time
 * zone America/New_York): each synced source's jobs (its sync part's `jobs`), in the contracts'
 * order of the sources. A cron line cannot express a holiday shift, so each source's job fires at
 * every candidate slot a few minutes after the release (the usual day and the days a holiday can
 * move it to); sync is incremental, so a run that finds nothing new publishes nothing, and a missed
 * run is caught up by the next one. The schedule spec checks that these lines cover every release
 * the release rules compute for 2026 and 2027, and the chart spec that the chart runs these lines.
 */
export interface SyncSchedule extends SyncJob {
  source: SyncSourceName;
}

export const SYNC_SCHEDULES: readonly SyncSchedule[] = SYNCED.flatMap(({ name, sync }) =>
  sync.jobs.map((job) => ({ ...job, source: name })),
);
