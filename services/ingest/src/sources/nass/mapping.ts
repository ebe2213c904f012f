import { PriceBasis, SeriesType } from '@cds/contracts';
import { z } from 'zod';

/** A commodity's NASS mapping (catalog `sources.nass`): its commodity_desc and the Quick Stats data items it reads. */
export const nassMapping = z.strictObject({
  commodity_desc: z.string().min(1),
  items: z.array(
    z.strictObject({
      short_desc: z.string().min(1),
      statisticcat_desc: z.string().min(1),
      unit_desc: z.string().min(1),
      type: SeriesType,
      unit: z.string().min(1),
      basis: PriceBasis.optional(),
    }),
  ),
});
