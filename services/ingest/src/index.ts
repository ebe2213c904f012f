// --- catalog and source adapters (catalog/**, sources/**) ---------------------------------------
export * from './catalog/index.ts';
export * from './sources/index.ts';
// --- end catalog and source adapters ------------------------------------------------------------
// --- runtime: publishing pipeline, sync, local environment file (publish/**, sync/**) -----------
export * from './publish/index.ts';
export * from './sync/index.ts';
export { LocalEnv, LOCAL_ENV_PATH, readLocalEnv } from './local-env.ts';
// --- end runtime ----------------------------------------------------------------------------------
