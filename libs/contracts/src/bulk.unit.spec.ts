import { describe, expect, it } from 'vitest';
import { bulkFileName, bulkFilePlans, licenceOf, parseBulkFileName } from './bulk.ts';

describe('bulk file names and plans', () => {
  it('round-trips a name and rejects anything else', () => {
    const name = { dataset: 'cot_legacy', span: 'recent', format: 'csv.gz' } as const;
    expect(bulkFileName(name)).toBe('cot_legacy.recent.csv.gz');
    expect(parseBulkFileName('cot_legacy.recent.csv.gz')).toEqual(name);
    expect(parseBulkFileName('price.full.parquet')).toEqual({ dataset: 'price', span: 'full', format: 'parquet' });
    for (const bad of [
      'price.full.csv',
      'price.all.parquet',
      'gold.full.parquet',
      '../price.full.parquet',
      'price.fullXcsv.gz',
    ]) {
      expect(parseBulkFileName(bad)).toBeUndefined();
    }
  });

  it('Free: recent files only, no COT; Professional: no disaggregated COT; Business and Enterprise: everything', () => {
    expect(bulkFilePlans('price', 'recent')).toEqual(['free', 'professional', 'business', 'enterprise']);
    expect(bulkFilePlans('price', 'full')).toEqual(['professional', 'business', 'enterprise']);
    expect(bulkFilePlans('cot_legacy', 'recent')).toEqual(['professional', 'business', 'enterprise']);
    expect(bulkFilePlans('cot_disaggregated', 'full')).toEqual(['business', 'enterprise']);
  });

  it('supply_demand: the plans of a series (every plan reads the endpoint, Free the last 12 months)', () => {
    expect(bulkFilePlans('supply_demand', 'recent')).toEqual(['free', 'professional', 'business', 'enterprise']);
    expect(bulkFilePlans('supply_demand', 'full')).toEqual(['professional', 'business', 'enterprise']);
    expect(parseBulkFileName('supply_demand.recent.csv.gz')).toEqual({
      dataset: 'supply_demand',
      span: 'recent',
      format: 'csv.gz',
    });
    expect(licenceOf('wasde:wasde0626.xml')).toMatch(/public domain/i);
  });

  it('names the licence of a source by its prefix', () => {
    expect(licenceOf('worldbank:GOLD')).toMatch(/CC BY 4.0/);
    expect(licenceOf('eia:RWTC')).toMatch(/Public domain/);
    expect(licenceOf(undefined)).toBeUndefined();
  });
});
