export * from './logger.ts';
export * from './metrics.ts';
export * from './service.ts';
export * from './tracing.ts';
