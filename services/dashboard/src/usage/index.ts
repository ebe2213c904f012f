export { registerUsageRoutes } from './routes.ts';
export { createUsageReader, dayToDate, type Usage, type UsageReader } from './usage-reader.ts';
