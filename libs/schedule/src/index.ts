export * from './holidays.ts';
export * from './releases.ts';
export * from './freshness.ts';
export * from './max-age.ts';
