export * from './holidays.ts';
export * from './releases.ts';
export { parseCron, type CronSpec } from './cron.ts';
export { SYNC_SCHEDULES, type SyncSchedule } from './jobs.ts';
