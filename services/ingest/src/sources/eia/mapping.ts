import { Frequency, PriceBasis, SeriesType } from '@cds/contracts';
import { z } from 'zod';
import { mappingReader } from '../../catalog/index.ts';

/** A commodity's EIA mapping (catalog `sources.eia`): each series id, its API v2 route and what it is. */
export const eiaMapping = z.strictObject({
  series: z.array(
    z.strictObject({
      id: z.string().min(1),
      route: z.string().min(1),
      type: SeriesType,
      frequency: Frequency,
      unit: z.string().min(1),
      basis: PriceBasis.optional(),
    }),
  ),
});

/** A commodity's EIA mapping. */
export type EiaMapping = z.infer<typeof eiaMapping>;
/** An EIA series (API v2 `series` facet / CSV download) mapped onto one of a commodity's series. */
export type EiaSeriesMapping = EiaMapping['series'][number];
/** The commodity's EIA mapping, if it has one. */
export const eiaOf = mappingReader('eia', eiaMapping);
