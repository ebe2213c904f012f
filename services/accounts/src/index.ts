export {
  createKeyCommands,
  hashKey,
  type AccountView,
  type ClosedAccount,
  type CreatedKey,
  type KeyCommandDeps,
  type KeyCommands,
} from './commands.ts';
export { startKeyLog, type KeyLog, type KeyLogLogger } from './key-log.ts';
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
} from './model.ts';
export { createAdminAuth, registerAdminRoutes } from './routes.ts';
