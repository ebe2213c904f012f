import { supplyDemandBucketId } from '@cds/contracts';
import type { SupplyDemandBucketDoc } from '@cds/read-models';
import type { Collection, Document } from 'mongodb';
import type { SupplyDemandSheetsQuery } from './port.ts';
import type { Run } from './run.ts';

/**
 * Reading balance sheets (the supply_demand read model: one document per commodity, region and
 * marketing year, `_id` `<commodity>:<region>:<YYYY/YY>`). A marketing year's sheet is one `_id`;
 * a region's sheets share the `_id` prefix `<commodity>:<region>:`, and `_id` text order is
 * marketing-year order.
 */

/** The `_id` range of a region's sheets: from its prefix up to the next text after every id that has it. */
export function sheetIdRange(commodityId: string, region: string): { $gte: string; $lt: string } {
  const prefix = supplyDemandBucketId(commodityId, region, '');
  // ':' (0x3a) then ';' (0x3b): every id with the prefix sorts before the prefix with ';' in its place
  return { $gte: prefix, $lt: `${prefix.slice(0, -1)};` };
}

const newestFirst = (a: SupplyDemandBucketDoc, b: SupplyDemandBucketDoc): number =>
  a.marketing_year < b.marketing_year ? 1 : a.marketing_year > b.marketing_year ? -1 : 0;

/** MongoDB: one `_id` lookup, or the region's `_id` range on the `_id` index, newest marketing year first. */
export async function mongoSupplyDemandSheets(
  coll: Collection<Document>,
  q: SupplyDemandSheetsQuery,
  run: Run,
): Promise<SupplyDemandBucketDoc[]> {
  const filter =
    q.marketingYear === undefined
      ? { _id: sheetIdRange(q.commodityId, q.region) }
      : { _id: supplyDemandBucketId(q.commodityId, q.region, q.marketingYear) };
  const docs = await run('read balance sheets', (o) =>
    coll
      .find<SupplyDemandBucketDoc>(filter as never, { ...o, projection: { _meta: 0 } })
      .sort({ _id: -1 })
      .toArray(),
  );
  return docs.sort(newestFirst);
}

/**
 * The first calendar year of the oldest marketing year the FerretDB adapter looks for: WASDE began
 * in 1973, its first tables reaching back a year or two (docs/architecture.md, "supply_demand").
 */
export const FIRST_MARKETING_YEAR = 1970;
/** Sheets looked up at once by the FerretDB adapter. */
const PROBES_AT_ONCE = 16;

/** The marketing year `YYYY/YY` beginning in `year`. */
export function marketingYearOf(year: number): string {
  return `${year}/${String((year + 1) % 100).padStart(2, '0')}`;
}

/**
 * FerretDB 1.x answers only `{_id: <string>}` filters without decoding the whole collection, so a
 * region's sheets are read by `_id`, one per marketing year from two years after `now`'s down to
 * FIRST_MARKETING_YEAR, PROBES_AT_ONCE at a time (a few dozen lookups of a millisecond or two).
 * `find(ids)` reads the documents of the ids (null where none).
 */
export async function probedSupplyDemandSheets(
  q: SupplyDemandSheetsQuery,
  now: number,
  find: (ids: string[]) => Promise<(SupplyDemandBucketDoc | null)[]>,
): Promise<SupplyDemandBucketDoc[]> {
  if (q.marketingYear !== undefined) {
    const [doc] = await find([supplyDemandBucketId(q.commodityId, q.region, q.marketingYear)]);
    return doc === null || doc === undefined ? [] : [doc];
  }
  const out: SupplyDemandBucketDoc[] = [];
  for (let top = new Date(now).getUTCFullYear() + 2; top >= FIRST_MARKETING_YEAR; top -= PROBES_AT_ONCE) {
    const years: number[] = [];
    for (let y = top; y > top - PROBES_AT_ONCE && y >= FIRST_MARKETING_YEAR; y--) years.push(y);
    // a table kept by calendar year (the U.S. meats) names its sheets `YYYY`
    const ids = years.flatMap((y) => [marketingYearOf(y), String(y)]);
    const found = await find(ids.map((y) => supplyDemandBucketId(q.commodityId, q.region, y)));
    for (const doc of found) if (doc !== null) out.push(doc);
  }
  return out.sort(newestFirst);
}
