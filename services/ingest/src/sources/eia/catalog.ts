import type { EiaMapping, EiaSeriesMapping } from './mapping.ts';

const eia = (
  id: string,
  route: string,
  type: EiaSeriesMapping['type'],
  frequency: EiaSeriesMapping['frequency'],
  unit: string,
): EiaSeriesMapping => ({ id, route, type, frequency, unit, ...(type === 'price' ? { basis: 'spot' as const } : {}) });

/**
 * The EIA series of each commodity EIA feeds, by catalog id: the series ids of the EIA API v2
 * `series` facet (the same ids as the dnav CSV downloads).
 */
export const EIA_CATALOG: Readonly<Record<string, EiaMapping>> = {
  CRUDE_OIL_WTI: {
    series: [
      eia('RWTC', 'petroleum/pri/spt', 'price', 'daily', 'USD/bbl'),
      eia('WCESTUS1', 'petroleum/stoc/wstk', 'stocks', 'weekly', 'thousand bbl'),
      eia('WCRRIUS2', 'petroleum/pnp/wiup', 'refinery_inputs', 'weekly', 'thousand bbl/d'),
      eia('WCRFPUS2', 'petroleum/sum/sndw', 'production', 'weekly', 'thousand bbl/d'),
    ],
  },
  CRUDE_OIL_BRENT: { series: [eia('RBRTE', 'petroleum/pri/spt', 'price', 'daily', 'USD/bbl')] },
  NATURAL_GAS: {
    series: [
      eia('RNGWHHD', 'natural-gas/pri/fut', 'price', 'daily', 'USD/MMBtu'),
      eia('NW2_EPG0_SWO_R48_BCF', 'natural-gas/stor/wkly', 'stocks', 'weekly', 'Bcf'),
      eia('N9070US2', 'natural-gas/prod/sum', 'production', 'monthly', 'MMcf'),
    ],
  },
  HEATING_OIL: {
    series: [
      eia('EER_EPD2F_PF4_Y35NY_DPG', 'petroleum/pri/spt', 'price', 'daily', 'USD/gal'),
      eia('WDISTUS1', 'petroleum/stoc/wstk', 'stocks', 'weekly', 'thousand bbl'),
    ],
  },
  GASOLINE_RBOB: {
    series: [
      eia('EER_EPMRU_PF4_Y35NY_DPG', 'petroleum/pri/spt', 'price', 'daily', 'USD/gal'),
      eia('WGTSTUS1', 'petroleum/stoc/wstk', 'stocks', 'weekly', 'thousand bbl'),
    ],
  },
};
