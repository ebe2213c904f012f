import { z } from 'zod';

/** A commodity's CFTC mapping (catalog `sources.cftc`): its CFTC_Contract_Market_Code values, shared by both report formats. */
export const cftcMapping = z.strictObject({ codes: z.array(z.string().min(1)) });
