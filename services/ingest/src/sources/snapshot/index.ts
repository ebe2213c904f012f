import type { Source } from '../types.ts';

/**
 * The bundled snapshot of real data (`ingest backfill --snapshot <dir>`, read by
 * `src/snapshot/read.ts`): its records keep the provenance of the source each came from.
 */
export const snapshot = { name: 'snapshot', credentials: [], inputs: [] } satisfies Source;
