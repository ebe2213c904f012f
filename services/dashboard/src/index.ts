export { buildApp, type DashboardDeps, type ExplorerMount } from './app.ts';
export { DashboardConfig } from './config.ts';
