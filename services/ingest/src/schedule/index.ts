// The release rules and holidays live in @cds/schedule (the gateway's /status uses them too);
// re-exported here so `@cds/ingest/schedule` keeps serving the chart spec and the sync code.
export * from '@cds/schedule';
export { parseCron, type CronSpec } from './cron.ts';
export { SYNC_SCHEDULES, type SyncSchedule } from './jobs.ts';
