import { describe, expect, it } from 'vitest';
import { parseCommodities, parseTypes, readEndpointForm, topicsNotInPlan, urlShapeProblem } from './endpoint-form.ts';

describe('the webhook endpoint form', () => {
  it('reads the fields of a parsed form body; a repeated single field reads as empty', () => {
    expect(
      readEndpointForm({ url: ' https://a.example/x ', commodities: 'all', types_mode: 'some', types: 'price' }),
    ).toEqual({ url: 'https://a.example/x', commodities: 'all', typesMode: 'some', types: ['price'], enabled: false });
    expect(readEndpointForm({ url: ['https://a', 'https://b'], types: ['price', 7, 'stocks'], enabled: 'on' })).toEqual(
      {
        url: '',
        commodities: '',
        typesMode: 'all',
        types: ['price', 'stocks'],
        enabled: true,
      },
    );
    expect(readEndpointForm(undefined)).toMatchObject({ url: '', types: [] });
  });

  it('takes "all" or nothing as every commodity, and a comma list in any case and spacing', () => {
    expect(parseCommodities('')).toEqual({ ids: null });
    expect(parseCommodities(' ALL ')).toEqual({ ids: null });
    expect(parseCommodities('corn , Gold,crude_oil_wti')).toEqual({ ids: ['CORN', 'GOLD', 'CRUDE_OIL_WTI'] });
    expect(parseCommodities('CORN,')).toMatchObject({ problem: expect.stringContaining('empty entry') });
    expect(parseCommodities('CORN__X')).toMatchObject({ problem: expect.stringContaining('is not a commodity id') });
    expect(parseCommodities('1CORN')).toMatchObject({ problem: expect.stringContaining('is not a commodity id') });
    expect(parseCommodities(`A${'B'.repeat(64)}`)).toMatchObject({
      problem: expect.stringContaining('not a commodity id'),
    });
  });

  it('keeps types in the form order and refuses what the plan lacks', () => {
    expect(parseTypes({ typesMode: 'all', types: ['bogus'] }, 'free')).toEqual({ types: null });
    expect(parseTypes({ typesMode: 'some', types: ['stocks', 'price', 'price'] }, 'free')).toEqual({
      types: ['price', 'stocks'],
    });
    expect(parseTypes({ typesMode: 'some', types: ['cot_legacy'] }, 'professional')).toEqual({ types: ['cot_legacy'] });
    expect(parseTypes({ typesMode: 'some', types: ['cot_disaggregated'] }, 'professional')).toMatchObject({
      problem: expect.stringContaining('The professional plan does not include disaggregated COT reports.'),
    });
    expect([...topicsNotInPlan('free').keys()]).toEqual([
      'cot_legacy',
      'cot_disaggregated',
      'cot_legacy_combined',
      'cot_disaggregated_combined',
      'cot_cit',
    ]);
    expect(topicsNotInPlan('business').size).toBe(0);
    // The combined datasets and the CIT supplement follow their layout's plan rule.
    expect(parseTypes({ typesMode: 'some', types: ['cot_cit', 'cot_legacy_combined'] }, 'professional')).toEqual({
      types: ['cot_legacy_combined', 'cot_cit'],
    });
    expect([...topicsNotInPlan('professional')]).toEqual([
      ['cot_disaggregated', 'The professional plan does not include disaggregated COT reports.'],
      ['cot_disaggregated_combined', 'The professional plan does not include disaggregated COT reports.'],
    ]);
    expect(topicsNotInPlan('free').get('cot_cit')).toBe(
      'The free plan does not include the COT supplement (CIT) reports.',
    );
  });

  it('checks the URL form before any address check', () => {
    expect(urlShapeProblem('https://hooks.example.com/cds')).toBeNull();
    expect(urlShapeProblem('https://hooks.example.com:8443/cds?x=1')).toBeNull();
    expect(urlShapeProblem('hooks.example.com/cds')).toContain('not a valid URL');
    expect(urlShapeProblem('HTTP://hooks.example.com')).toContain('(not http://)');
    expect(urlShapeProblem('javascript:alert(1)')).toContain('must start with https://');
    expect(urlShapeProblem('https://:pw@hooks.example.com')).toContain('passwords');
  });
});
