import type { NassItemMapping, NassMapping } from './mapping.ts';

/** The NASS national monthly price received by farmers for a data item priced in `$ / <per>`. */
const nassPrice = (item: string, per: 'BU' | 'CWT' | 'LB'): NassItemMapping => ({
  short_desc: `${item} - PRICE RECEIVED, MEASURED IN $ / ${per}`,
  statisticcat_desc: 'PRICE RECEIVED',
  unit_desc: `$ / ${per}`,
  type: 'price',
  unit: `USD/${per.toLowerCase()}`,
  basis: 'received_by_farmers',
});

/** The five national NASS items of a field crop, from the data-item prefix of each statistic. */
function fieldCrop(
  commodity_desc: string,
  p: { production: string; yield: string; planted: string; harvested: string; stocks?: string },
  units: { production: string; yield: string },
  price?: NassItemMapping,
): { commodity_desc: string; items: NassItemMapping[] } {
  const items: NassItemMapping[] = [
    {
      short_desc: `${p.production} - PRODUCTION, MEASURED IN ${units.production}`,
      statisticcat_desc: 'PRODUCTION',
      unit_desc: units.production,
      type: 'production',
      unit: units.production.toLowerCase(),
    },
    {
      short_desc: `${p.yield} - YIELD, MEASURED IN ${units.yield}`,
      statisticcat_desc: 'YIELD',
      unit_desc: units.yield,
      type: 'yield',
      unit: units.yield.toLowerCase().replace(' / ', '/'),
    },
    {
      short_desc: `${p.planted} - ACRES PLANTED`,
      statisticcat_desc: 'AREA PLANTED',
      unit_desc: 'ACRES',
      type: 'planted_acres',
      unit: 'acres',
    },
    {
      short_desc: `${p.harvested} - ACRES HARVESTED`,
      statisticcat_desc: 'AREA HARVESTED',
      unit_desc: 'ACRES',
      type: 'harvested_acres',
      unit: 'acres',
    },
  ];
  if (p.stocks) {
    items.push({
      short_desc: `${p.stocks} - STOCKS, MEASURED IN ${units.production}`,
      statisticcat_desc: 'STOCKS',
      unit_desc: units.production,
      type: 'stocks',
      unit: units.production.toLowerCase(),
    });
  }
  if (price) items.push(price);
  return { commodity_desc, items };
}

/**
 * The Quick Stats data items of each commodity NASS feeds, by catalog id: `short_desc` strings (the
 * web export's "Data Item").
 */
export const NASS_CATALOG: Readonly<Record<string, NassMapping>> = {
  CORN: fieldCrop(
    'CORN',
    {
      production: 'CORN, GRAIN',
      yield: 'CORN, GRAIN',
      planted: 'CORN',
      harvested: 'CORN, GRAIN',
      stocks: 'CORN, GRAIN',
    },
    { production: 'BU', yield: 'BU / ACRE' },
    nassPrice('CORN, GRAIN', 'BU'),
  ),
  SOYBEANS: fieldCrop(
    'SOYBEANS',
    { production: 'SOYBEANS', yield: 'SOYBEANS', planted: 'SOYBEANS', harvested: 'SOYBEANS', stocks: 'SOYBEANS' },
    { production: 'BU', yield: 'BU / ACRE' },
    nassPrice('SOYBEANS', 'BU'),
  ),
  WHEAT_SRW: {
    commodity_desc: 'WHEAT',
    items: [
      {
        short_desc: 'WHEAT, WINTER, RED, SOFT - PRODUCTION, MEASURED IN BU',
        statisticcat_desc: 'PRODUCTION',
        unit_desc: 'BU',
        type: 'production',
        unit: 'bu',
      },
    ],
  },
  WHEAT_HRW: {
    commodity_desc: 'WHEAT',
    items: [
      {
        short_desc: 'WHEAT, WINTER, RED, HARD - PRODUCTION, MEASURED IN BU',
        statisticcat_desc: 'PRODUCTION',
        unit_desc: 'BU',
        type: 'production',
        unit: 'bu',
      },
    ],
  },
  WHEAT_HRS: { commodity_desc: 'WHEAT', items: [nassPrice('WHEAT, SPRING, (EXCL DURUM)', 'BU')] },
  OATS: fieldCrop(
    'OATS',
    { production: 'OATS', yield: 'OATS', planted: 'OATS', harvested: 'OATS' },
    { production: 'BU', yield: 'BU / ACRE' },
    nassPrice('OATS', 'BU'),
  ),
  ROUGH_RICE: fieldCrop(
    'RICE',
    { production: 'RICE', yield: 'RICE', planted: 'RICE', harvested: 'RICE' },
    { production: 'CWT', yield: 'LB / ACRE' },
    nassPrice('RICE', 'CWT'),
  ),
  // USDA AMS LM_CT150 (weekly 5-area steer price) is the fresher source, but no recorded answer of it
  // exists to prove the parse on, and the bundled snapshot can hold the NASS price: docs/sources.md.
  LIVE_CATTLE: { commodity_desc: 'CATTLE', items: [nassPrice('CATTLE, STEERS & HEIFERS, GE 500 LBS', 'CWT')] },
  CANOLA: { commodity_desc: 'CANOLA', items: [nassPrice('CANOLA', 'CWT')] },
  COTTON: fieldCrop(
    'COTTON',
    { production: 'COTTON, UPLAND', yield: 'COTTON, UPLAND', planted: 'COTTON, UPLAND', harvested: 'COTTON, UPLAND' },
    { production: '480 LB BALES', yield: 'LB / ACRE' },
  ),
};
