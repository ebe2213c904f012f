export { createKeyRows, isKeyId, type KeyRow, type KeyRows } from './key-rows.ts';
export { registerKeyRoutes } from './routes.ts';
