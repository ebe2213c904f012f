import { Frequency, PriceBasis, SeriesType } from '@cds/contracts';
import { z } from 'zod';
import { mappingReader } from '../../catalog/index.ts';

/** A commodity's AMS mapping (catalog `sources.ams`): the Market News reports and datamart slugs that feed its series. */
export const amsMapping = z.strictObject({
  series: z.array(
    z.strictObject({
      report: z.string().min(1),
      slug: z.string().min(1),
      type: SeriesType,
      frequency: Frequency,
      unit: z.string().min(1),
      basis: PriceBasis.optional(),
    }),
  ),
});

/** A USDA AMS market report (LMR, FMMO class prices) mapped onto a commodity's series. */
export type AmsMapping = z.infer<typeof amsMapping>['series'][number];
/** A commodity's AMS mapping (its series). */
export type AmsCatalogMapping = z.infer<typeof amsMapping>;
/** The commodity's AMS mapping, if it has one. */
export const amsOf = mappingReader('ams', amsMapping);
