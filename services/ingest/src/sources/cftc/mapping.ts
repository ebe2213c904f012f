import { z } from 'zod';
import { mappingReader } from '../../catalog/index.ts';

/**
 * A commodity's CFTC mapping (catalog `sources.cftc`): its CFTC_Contract_Market_Code values, shared
 * by every report, and `cit` when the market is one of the CIT supplement's (13 agricultural markets).
 */
export const cftcMapping = z.strictObject({ codes: z.array(z.string().min(1)), cit: z.literal(true).optional() });

/** A commodity's CFTC mapping. */
export type CftcMapping = z.infer<typeof cftcMapping>;
/** The commodity's CFTC mapping, if it has one. */
export const cftcOf = mappingReader('cftc', cftcMapping);
