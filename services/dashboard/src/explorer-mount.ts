import type { ExplorerMount } from './app.ts';

/**
 * The data explorer module (src/explorer/, built separately), adapted to the mount the app takes;
 * undefined while the module is absent, so the page shows a placeholder.
 */
export function loadExplorer(): Promise<ExplorerMount | undefined> {
  return Promise.resolve(undefined);
}
