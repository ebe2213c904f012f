export {
  createKeyCommands,
  hashKey,
  type AccountView,
  type ClosedAccount,
  type CreatedKey,
  type KeyCommandDeps,
  type KeyCommands,
} from './commands/index.ts';
export { startKeyLog, type KeyLog, type KeyLogLogger } from './keys/key-log.ts';
export {
  activeKeysOf,
  applyKeyEvent,
  createKeysModel,
  keyMetadata,
  keysOf,
  type AccountState,
  type KeyMetadata,
  type KeysModel,
  type KeyState,
} from './keys/model.ts';
export { createAdminAuth, registerAdminRoutes } from './api/routes.ts';
export { buildApp, type AppDeps } from './api/app.ts';
