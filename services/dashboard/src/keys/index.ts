export { createKeyRows, isKeyId, type KeyRows } from './key-rows.ts';
export { registerKeyRoutes } from './routes.ts';
