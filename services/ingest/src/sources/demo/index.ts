import type { Source } from '../types.ts';

/**
 * Generated demonstration data (`ingest backfill --demo`, generate.ts): every series of the
 * catalog, marked `source: "demo"`; `--without` leaves out each part another source's data replaces
 * (their `demoPart`).
 */
export const demo = { name: 'demo', credentials: [], inputs: [] } satisfies Source;
