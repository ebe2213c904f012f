import type { AmsCatalogMapping } from './mapping.ts';

/** The USDA AMS market reports of each commodity AMS prices, by catalog id. */
export const AMS_CATALOG: Readonly<Record<string, AmsCatalogMapping>> = {
  LEAN_HOGS: {
    series: [{ report: 'LM_HG201', slug: '2511', type: 'price', frequency: 'daily', unit: 'USD/cwt', basis: 'cash' }],
  },
  MILK_CLASS_III: {
    series: [
      { report: 'FMMO_CLASS', slug: '3355', type: 'price', frequency: 'monthly', unit: 'USD/cwt', basis: 'cash' },
    ],
  },
};
