import type { Source } from '../types.ts';
import { DEMO_CATALOG } from './catalog.ts';
import { demoMapping } from './mapping.ts';

/**
 * Generated demonstration data (`ingest backfill --demo`, generate.ts): every series of the
 * catalog, marked `source: "demo"`; `--without` leaves out each part another source's data replaces
 * (their `demoPart`).
 */
export const demo = {
  name: 'demo',
  mapping: demoMapping,
  catalog: DEMO_CATALOG,
  credentials: [],
  inputs: [],
} satisfies Source;
