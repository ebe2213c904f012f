import { describe, expect, it } from 'vitest';
import { checkBulkFile, checkPlan } from './plan-rules.ts';

describe('checkBulkFile', () => {
  it('lets each plan download what the manifest lists for it', () => {
    expect(checkBulkFile('free', 'price.recent.csv.gz')).toBeUndefined();
    expect(checkBulkFile('professional', 'cot_legacy.full.parquet')).toBeUndefined();
    expect(checkBulkFile('business', 'cot_disaggregated.full.parquet')).toBeUndefined();
    expect(checkBulkFile('enterprise', 'stocks.full.csv.gz')).toBeUndefined();
  });

  it('refuses (403 forbidden) full history and COT to Free, disaggregated COT to Professional', () => {
    const refusal = (plan: 'free' | 'professional', file: string) => {
      const err = checkBulkFile(plan, file);
      return err === undefined ? undefined : { status: err.statusCode, code: err.code, message: err.message };
    };
    expect(refusal('free', 'price.full.parquet')).toEqual({
      status: 403,
      code: 'forbidden',
      message: expect.stringContaining('price.recent.parquet'),
    });
    expect(refusal('free', 'cot_legacy.recent.csv.gz')).toMatchObject({ code: 'forbidden' });
    expect(refusal('professional', 'cot_disaggregated.recent.csv.gz')).toMatchObject({
      message: expect.stringContaining('Business'),
    });
  });

  it('gates the bulk files of the combined and CIT datasets by their layout', () => {
    expect(checkBulkFile('professional', 'cot_cit.full.parquet')).toBeUndefined();
    expect(checkBulkFile('professional', 'cot_legacy_combined.recent.csv.gz')).toBeUndefined();
    expect(checkBulkFile('business', 'cot_disaggregated_combined.full.parquet')).toBeUndefined();
    expect(checkBulkFile('free', 'cot_cit.recent.csv.gz')).toMatchObject({
      statusCode: 403,
      code: 'forbidden',
      message: expect.stringContaining('Professional'),
    });
    expect(checkBulkFile('professional', 'cot_disaggregated_combined.recent.csv.gz')).toMatchObject({
      statusCode: 403,
      message: expect.stringContaining('Business'),
    });
  });

  it('leaves a name that is no bulk file to the query service (its 404)', () => {
    expect(checkBulkFile('free', 'secrets.txt')).toBeUndefined();
  });
});

describe("checkPlan: as_of and the Free tier's history window", () => {
  const today = '2026-11-27';
  const refusal = (plan: 'free' | 'business', route: 'series' | 'cot', query: Record<string, unknown>) => {
    const err = checkPlan(plan, route, query, today);
    return err === undefined ? undefined : { status: err.statusCode, code: err.code, param: err.param };
  };

  it('lets Free read as of an instant within its 12 months, given a start_date within them too', () => {
    expect(refusal('free', 'series', { type: 'price', as_of: '2026-06-30', start_date: '2026-01-01' })).toBeUndefined();
    expect(
      refusal('free', 'series', { type: 'price', as_of: '2025-11-27T00:00:00Z', start_date: '2025-11-27' }),
    ).toBeUndefined();
  });

  it('refuses Free an as_of before its window with 403 historical_limit naming as_of', () => {
    const expected = { status: 403, code: 'historical_limit', param: 'as_of' };
    expect(refusal('free', 'series', { type: 'price', as_of: '2025-11-26', start_date: '2025-12-01' })).toEqual(
      expected,
    );
    // An instant counts by its UTC date: 23:30 on the 26th at -01:00 is the 27th in UTC.
    expect(refusal('free', 'series', { as_of: '2025-11-26T22:00:00Z', start_date: '2025-12-01' })).toEqual(expected);
    expect(refusal('free', 'series', { as_of: '2025-11-26T23:30:00-01:00', start_date: '2025-12-01' })).toBeUndefined();
    expect(refusal('free', 'cot', { as_of: '2020-01-01' })).toMatchObject({ status: 403 });
  });

  it('defaults the end (so the start) from as_of: an old as_of without dates reaches back too far', () => {
    expect(refusal('free', 'series', { type: 'price', as_of: '2026-06-30' })).toEqual({
      status: 403,
      code: 'historical_limit',
      param: 'start_date',
    });
    expect(refusal('free', 'series', { type: 'price', as_of: '2026-06-30', end_date: '2026-11-27' })).toBeUndefined();
  });

  it('refuses COT by layout: cit and legacy in either scope need Professional, disaggregated in either Business', () => {
    const pro = (query: Record<string, unknown>) => checkPlan('professional', 'cot', query, today);
    expect(refusal('free', 'cot', { format: 'cit' })).toEqual({ status: 403, code: 'forbidden', param: undefined });
    expect(checkPlan('free', 'cot', { format: 'cit' }, today)?.message).toContain('Professional');
    expect(pro({ format: 'cit' })).toBeUndefined();
    expect(pro({ format: 'legacy', scope: 'futures_and_options' })).toBeUndefined();
    expect(pro({ format: 'disaggregated', scope: 'futures_and_options' })?.message).toContain('Business');
    expect(refusal('business', 'cot', { format: 'disaggregated', scope: 'futures_and_options' })).toBeUndefined();
    // An unknown format is the query service's 400 to name.
    expect(refusal('free', 'cot', { format: 'weekly' })).toBeUndefined();
  });

  it('leaves a malformed as_of to the query service, and paid plans unlimited', () => {
    expect(refusal('free', 'series', { type: 'price', as_of: 'yesterday' })).toBeUndefined();
    expect(refusal('business', 'series', { type: 'price', as_of: '2001-01-01' })).toBeUndefined();
    expect(refusal('business', 'cot', { as_of: '2001-01-01' })).toBeUndefined();
  });
});

describe("checkPlan: supply and demand, the Free tier's editions of its last 12 months", () => {
  // The window from 2025-11-27: the editions since, which carry the marketing years from 2024/25.
  const today = '2026-11-27';
  const refusal = (plan: 'free' | 'professional', query: Record<string, unknown>) => {
    const err = checkPlan(plan, 'supplyDemand', query, today);
    return err === undefined ? undefined : { status: err.statusCode, code: err.code, param: err.param };
  };

  it('lets every plan read the figures in force, and Free the marketing years its editions carry', () => {
    expect(refusal('free', {})).toBeUndefined();
    expect(refusal('free', { marketing_year: '2024/25' })).toBeUndefined();
    expect(refusal('free', { marketing_year: '2026/27', as_of: '2025-11-27' })).toBeUndefined();
    expect(refusal('professional', { marketing_year: '1999/00', as_of: '2011-01-01' })).toBeUndefined();
  });

  it('refuses Free a marketing year older than the window year minus one, naming marketing_year', () => {
    expect(refusal('free', { marketing_year: '2023/24' })).toEqual({
      status: 403,
      code: 'historical_limit',
      param: 'marketing_year',
    });
    const err = checkPlan('free', 'supplyDemand', { marketing_year: '2023/24' }, today);
    expect(err?.message).toContain('2024/25');
  });

  it('refuses Free an as_of before the window naming as_of (the day before it, by its UTC date)', () => {
    expect(refusal('free', { as_of: '2025-11-26' })).toEqual({ status: 403, code: 'historical_limit', param: 'as_of' });
    expect(refusal('free', { as_of: '2025-11-26T23:59:59Z', marketing_year: '2026/27' })).toMatchObject({
      param: 'as_of',
    });
  });

  it('leaves a marketing year of the wrong shape to the query service (its 400)', () => {
    expect(refusal('free', { marketing_year: '1999/01' })).toBeUndefined();
    expect(refusal('free', { marketing_year: 2023 })).toBeUndefined();
  });
});
