import { z } from 'zod';

/** A commodity's Pink Sheet mapping (catalog `sources.worldbank`): series codes of `Monthly Prices`, monthly averages. */
export const worldbankMapping = z.strictObject({
  series: z.array(
    z.strictObject({
      code: z.string().min(1),
      source_unit: z.string().min(1),
      unit: z.string().min(1),
      type: z.literal('price'),
      frequency: z.literal('monthly'),
      basis: z.literal('monthly_average'),
    }),
  ),
});
