import { SeriesType } from '@cds/contracts';
import { z } from 'zod';

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
