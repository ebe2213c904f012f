export * from './holidays.ts';
export * from './releases.ts';
export * from './freshness.ts';
export * from './max-age.ts';
export * from './cot-stamp.ts';
export * from './utc-day.ts';
