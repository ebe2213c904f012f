import { parquetReadObjects } from 'hyparquet';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bulkColumns, cotRow, seriesRow } from './rows.ts';
import { writeCsvGz, writeParquet } from './writers.ts';

const priceColumns = bulkColumns('price');
const prices = [
  seriesRow(
    'CRUDE_OIL_WTI',
    'price',
    { d: '2025-01-02', v: 71.5, o: 70, h: 72.25, l: 69.75, c: 71.5, vol: 1200 },
    {
      unit: 'USD/bbl',
      source: 'eia:RWTC',
    },
  ),
  // A point without OHLCV, a unit with a comma (quoted in CSV), no source.
  seriesRow('GOLD', 'price', { d: '2025-01-03', v: -0.5 }, { unit: 'USD/oz, troy' }),
];

describe('bulk file rows', () => {
  it('a price file has the API point columns between commodity and unit/source; other series only date and value', () => {
    expect(priceColumns.map((c) => c.name)).toEqual([
      'commodity',
      'date',
      'value',
      'open',
      'high',
      'low',
      'close',
      'volume',
      'unit',
      'source',
    ]);
    expect(bulkColumns('stocks').map((c) => c.name)).toEqual(['commodity', 'date', 'value', 'unit', 'source']);
    expect(seriesRow('CORN', 'stocks', { d: '2024-06-01', v: 3, o: 1 }, {})).toEqual({
      commodity: 'CORN',
      date: '2024-06-01',
      value: 3,
      unit: undefined,
      source: undefined,
    });
  });

  it('a COT row is the CSV row of the report: groups flattened, net computed, a missing group zeros', () => {
    const row = cotRow(
      {
        commodity_id: 'CORN',
        format: 'legacy',
        report_date: '2025-01-07',
        open_interest: 1000,
        groups: { commercial: { long: 300, short: 500 }, non_commercial: { long: 400, short: 100, spreading: 50 } },
        source: 'cftc:legacy:002602',
      },
      'legacy',
    );
    expect(Object.keys(row).filter((k) => row[k] !== undefined)).toEqual(
      bulkColumns('cot_legacy')
        .map((c) => c.name)
        .filter((n) => n !== 'exchange' && n !== 'last_updated'),
    );
    expect(row).toMatchObject({
      commercial_net: -200,
      non_commercial_spreading: 50,
      non_commercial_net: 300,
      non_reportable_long: 0,
      non_reportable_net: 0,
    });
  });
});

describe('COT bulk files per dataset', () => {
  const report = {
    commodity_id: 'CORN',
    report_date: '2025-01-07',
    open_interest: 1000,
    groups: {
      commercial: { long: 300, short: 500 },
      non_commercial: { long: 400, short: 100, spreading: 50 },
      index_traders: { long: 250, short: 20 },
      non_reportable: { long: 10, short: 30 },
    },
  };

  it("a combined dataset's rows carry their scope after the format; a futures-only one's have no scope column", () => {
    const columns = bulkColumns('cot_legacy_combined').map((c) => c.name);
    expect(columns.slice(0, 6)).toEqual(['report_date', 'commodity', 'format', 'scope', 'exchange', 'open_interest']);
    expect(bulkColumns('cot_legacy').map((c) => c.name)).not.toContain('scope');
    const row = cotRow({ ...report, format: 'legacy', scope: 'futures_and_options' }, 'legacy_combined');
    expect(row).toMatchObject({ format: 'legacy', scope: 'futures_and_options', commercial_net: -200 });
    expect(Object.keys(row).filter((k) => row[k] !== undefined)).toEqual(
      columns.filter((n) => n !== 'exchange' && n !== 'source' && n !== 'last_updated'),
    );
    expect(cotRow({ ...report, format: 'legacy' }, 'legacy')).not.toHaveProperty('scope');
    expect(bulkColumns('cot_disaggregated_combined').map((c) => c.name)).toContain('scope');
  });

  it('a CIT row has its four groups, index traders included, and its scope', () => {
    const columns = bulkColumns('cot_cit').map((c) => c.name);
    const row = cotRow({ ...report, format: 'cit', scope: 'futures_and_options' }, 'cit');
    expect(Object.keys(row).filter((k) => row[k] !== undefined)).toEqual(
      columns.filter((n) => n !== 'exchange' && n !== 'source' && n !== 'last_updated'),
    );
    expect(row).toMatchObject({
      format: 'cit',
      scope: 'futures_and_options',
      commercial_net: -200,
      non_commercial_spreading: 50,
      index_traders_long: 250,
      index_traders_net: 230,
      non_reportable_net: -20,
    });
    expect(bulkColumns('cot_cit').find((c) => c.name === 'scope')?.type).toBe('string');
  });
});

describe('writeCsvGz', () => {
  it('decompresses to the CSV of the rows: header, CRLF, numbers as JSON prints them, empty for absent', () => {
    const text = gunzipSync(writeCsvGz(priceColumns, prices)).toString('utf8');
    expect(text).toBe(
      'commodity,date,value,open,high,low,close,volume,unit,source\r\n' +
        'CRUDE_OIL_WTI,2025-01-02,71.5,70,72.25,69.75,71.5,1200,USD/bbl,eia:RWTC\r\n' +
        'GOLD,2025-01-03,-0.5,,,,,,"USD/oz, troy",\r\n',
    );
  });

  it('gives the same bytes for the same rows (the sha256 in the manifest is stable)', () => {
    expect(Buffer.from(writeCsvGz(priceColumns, prices)).equals(Buffer.from(writeCsvGz(priceColumns, prices)))).toBe(
      true,
    );
  });
});

describe('writeParquet', () => {
  it('reads back with hyparquet to the same rows (absent values as null)', async () => {
    const bytes = writeParquet(priceColumns, prices);
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const rows = await parquetReadObjects({ file });
    expect(rows).toEqual(prices.map((r) => Object.fromEntries(priceColumns.map((c) => [c.name, r[c.name] ?? null]))));
  });

  it('writes a COT file whose rows read back with every position', async () => {
    const columns = bulkColumns('cot_disaggregated');
    const rows = [
      cotRow(
        {
          commodity_id: 'GOLD',
          format: 'disaggregated',
          report_date: '2025-02-04',
          exchange: 'COMEX',
          open_interest: 500_000,
          groups: { managed_money: { long: 120_000, short: 30_000, spreading: 15_000 } },
          last_updated: '2025-02-07T20:30:00.000Z',
        },
        'disaggregated',
      ),
    ];
    const bytes = writeParquet(columns, rows);
    const back = await parquetReadObjects({ file: bytes.buffer as ArrayBuffer });
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({
      commodity: 'GOLD',
      report_date: '2025-02-04',
      exchange: 'COMEX',
      open_interest: 500_000,
      managed_money_net: 90_000,
      swap_dealer_long: 0,
      source: null,
    });
  });
});
