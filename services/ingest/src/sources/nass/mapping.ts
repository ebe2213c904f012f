import { PriceBasis, SeriesType } from '@cds/contracts';
import { z } from 'zod';
import { mappingReader } from '../../catalog/index.ts';

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

/** A commodity's NASS mapping. */
export type NassMapping = z.infer<typeof nassMapping>;
/** A NASS Quick Stats data item (short_desc, the web export's "Data Item") mapped onto a series. */
export type NassItemMapping = NassMapping['items'][number];
/** The commodity's NASS mapping, if it has one. */
export const nassOf = mappingReader('nass', nassMapping);
