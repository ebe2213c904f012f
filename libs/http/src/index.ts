export * from './errors.ts';
export * from './error-handler.ts';
export * from './request-id.ts';
export * from './catalog-ids.ts';
export * from './lazy-child-logger.ts';
export * from './params.ts';
export * from './conditional.ts';
export * from './negotiate.ts';
