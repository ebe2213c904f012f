import { describe, expect, it } from 'vitest';
import { checkBulkFile } from './plan-rules.ts';

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

  it('leaves a name that is no bulk file to the query service (its 404)', () => {
    expect(checkBulkFile('free', 'secrets.txt')).toBeUndefined();
  });
});
