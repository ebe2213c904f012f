import { z } from 'zod';
import { mappingReader } from '../../catalog/index.ts';

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

/** A World Bank Pink Sheet series (sheet `Monthly Prices`, its code in row 7): a monthly average `price`. */
export type WorldBankMapping = z.infer<typeof worldbankMapping>['series'][number];
/** A commodity's Pink Sheet mapping (its series). */
export type WorldBankCatalogMapping = z.infer<typeof worldbankMapping>;
/** The commodity's Pink Sheet mapping, if it has one. */
export const worldbankOf = mappingReader('worldbank', worldbankMapping);
