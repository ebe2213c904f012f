import { SeriesType } from '@cds/contracts';
import { z } from 'zod';
import { mappingReader } from '../../catalog/index.ts';

/** A commodity's demo parameters (catalog `sources.demo`): its price walk, volume, open interest and fundamentals. */
export const demoMapping = z.strictObject({
  start_price: z.number().positive(),
  volatility: z.number().nonnegative(),
  volume: z.number().nonnegative(),
  open_interest: z.number().positive(),
  fundamentals: z.array(
    z.strictObject({
      type: SeriesType,
      frequency: z.enum(['weekly', 'monthly', 'annual']),
      base: z.number(),
      unit: z.string().min(1),
      seasonality: z.number().min(0).max(1).optional(),
    }),
  ),
});

/** How the demo generator draws a commodity. */
export type DemoParams = z.infer<typeof demoMapping>;
/** A fundamental series the demo generator produces for a commodity. */
export type DemoFundamental = DemoParams['fundamentals'][number];
/** The commodity's demo parameters, if it has them. */
export const demoOf = mappingReader('demo', demoMapping);
