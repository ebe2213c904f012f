// --- catalog and source adapters (catalog/**, sources/**) ---------------------------------------
export * from './catalog/index.ts';
export * from './sources/index.ts';
// --- end catalog and source adapters ------------------------------------------------------------
