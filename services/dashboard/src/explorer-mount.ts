import { createExplorer } from './explorer/index.ts';
import type { ExplorerMount } from './explorer/page.ts';

/** The data explorer module (src/explorer/), with its assets read once, as the app mounts it. */
export function loadExplorer(): ExplorerMount {
  return createExplorer();
}
