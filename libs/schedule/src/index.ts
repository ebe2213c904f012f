export * from './holidays.ts';
export * from './releases.ts';
export * from './supply-demand.ts';
export * from './year.ts';
export * from './freshness.ts';
export * from './max-age.ts';
export * from './cot-stamp.ts';
export * from './utc-day.ts';
