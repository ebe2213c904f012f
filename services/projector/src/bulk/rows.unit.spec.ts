import type { SupplyDemandBucketDoc } from '@cds/read-models';
import { parquetReadObjects } from 'hyparquet';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bulkColumns, rowDate, supplyDemandRows } from './rows.ts';
import { writeCsvGz, writeParquet } from './writers.ts';

// US corn 2026/27 as the May and June 2026 WASDE editions published it (released 12:00 New York):
// ending stocks 1,957 then 1,960 million bushels, the area planted unchanged since May.
const MAY = '2026-05-12T16:00:00.000Z';
const JUNE = '2026-06-11T16:00:00.000Z';
const sheet: SupplyDemandBucketDoc = {
  _id: 'CORN:united_states:2026/27',
  commodity_id: 'CORN',
  region: 'united_states',
  marketing_year: '2026/27',
  figures: [
    { k: 'area_planted|Million Acres', a: 'area_planted', u: 'Million Acres', v: 95.3, s: 'projection', r: 0 },
    { k: 'avg_farm_price|$/bu', a: 'avg_farm_price', u: '$/bu', v: 4.4, s: 'projection', r: 0 },
    { k: 'ending_stocks|Million Bushels', a: 'ending_stocks', u: 'Million Bushels', v: 1960, s: 'projection', r: 1 },
    // a figure without its release (never written so): left out, not given a made-up edition
    { k: 'imports|Million Bushels', a: 'imports', u: 'Million Bushels', v: 25, s: 'projection' },
  ],
  revised: [
    { k: 'ending_stocks|Million Bushels', a: 'ending_stocks', u: 'Million Bushels', v: 1957, s: 'projection', r: 0 },
  ],
  releases: [
    { p: MAY, f: MAY, lo: 'area_planted|Million Acres', hi: 'imports|Million Bushels' },
    { p: JUNE, f: JUNE, lo: 'area_planted|Million Acres', hi: 'imports|Million Bushels' },
  ],
  source: 'wasde:wasde0626.xml',
  _meta: { position: 2, version: 1 },
};

describe('supply_demand bulk rows', () => {
  const columns = bulkColumns('supply_demand');

  it('has one row per figure in force, with its unit and the edition that published that version', () => {
    expect(columns.map((c) => [c.name, c.type])).toEqual([
      ['commodity', 'string'],
      ['region', 'string'],
      ['marketing_year', 'string'],
      ['attribute', 'string'],
      ['value', 'number'],
      ['unit', 'string'],
      ['edition', 'string'],
      ['published_at', 'string'],
      ['status', 'string'],
    ]);
    const rows = supplyDemandRows(sheet);
    expect(rows.map((r) => [r.attribute, r.value, r.unit, r.edition])).toEqual([
      ['area_planted', 95.3, 'Million Acres', '2026-05'],
      ['avg_farm_price', 4.4, '$/bu', '2026-05'],
      ['ending_stocks', 1960, 'Million Bushels', '2026-06'],
    ]);
    expect(rows[2]).toEqual({
      commodity: 'CORN',
      region: 'united_states',
      marketing_year: '2026/27',
      attribute: 'ending_stocks',
      value: 1960,
      unit: 'Million Bushels',
      edition: '2026-06',
      published_at: JUNE,
      status: 'projection',
    });
    // the recent file keeps a row by its publication day
    expect(rows.map(rowDate)).toEqual(['2026-05-12', '2026-05-12', '2026-06-11']);
  });

  it('writes CSV and Parquet files that read back to the same figures', async () => {
    const rows = supplyDemandRows(sheet);
    const csv = gunzipSync(writeCsvGz(columns, rows)).toString('utf8').split('\r\n');
    expect(csv[0]).toBe('commodity,region,marketing_year,attribute,value,unit,edition,published_at,status');
    expect(csv[3]).toBe(`CORN,united_states,2026/27,ending_stocks,1960,Million Bushels,2026-06,${JUNE},projection`);
    const bytes = writeParquet(columns, rows);
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const back = await parquetReadObjects({ file });
    expect(back.map((r) => [r.attribute, r.value, r.unit, r.edition])).toEqual(
      rows.map((r) => [r.attribute, r.value, r.unit, r.edition]),
    );
  });
});
