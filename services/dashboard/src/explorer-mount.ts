import type { ExplorerMount } from './app.ts';
import { registerExplorerAssets, renderExplorer } from './explorer/index.ts';

/** The data explorer module (src/explorer/), adapted to the mount the app takes. */
export function loadExplorer(): ExplorerMount {
  return { render: renderExplorer, registerAssets: registerExplorerAssets };
}
