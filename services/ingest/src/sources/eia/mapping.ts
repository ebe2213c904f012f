import { Frequency, PriceBasis, SeriesType } from '@cds/contracts';
import { z } from 'zod';

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
