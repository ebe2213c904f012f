// --- catalog and source adapters (catalog/**, sources/**) ---------------------------------------
export * from './catalog/index.ts';
export * from './sources/index.ts';
// --- end catalog and source adapters ------------------------------------------------------------
// --- runtime: publishing pipeline, admin API, local environment file (publish/**, admin/**) ----
export * from './publish/index.ts';
export * from './admin/index.ts';
export * from './sync/index.ts';
export { buildApp, type AppDeps } from './admin/app.ts';
export { LocalEnv, LOCAL_ENV_PATH, readLocalEnv } from './local-env.ts';
// --- end runtime ----------------------------------------------------------------------------------
