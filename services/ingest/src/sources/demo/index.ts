import type { Source } from '../types.ts';
import { demoMapping } from './mapping.ts';

/**
 * Generated demonstration data (`ingest backfill --demo`, generate.ts): every series of the
 * catalog, marked `source: "demo"`; `--without` leaves out each part another source's data replaces
 * (their `demoPart`).
 */
export const demo = { name: 'demo', mapping: demoMapping, credentials: [], inputs: [] } satisfies Source;
