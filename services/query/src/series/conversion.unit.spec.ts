import { describe, expect, it } from 'vitest';
import { InvalidParameterError } from '@cds/http';
import { planConversion, type ConversionAsk } from './conversion.ts';
import { convertPoints, crossRates, rateOf, type ConversionCounts } from './rates.ts';

const ask = (over: Partial<ConversionAsk>): ConversionAsk => ({
  commodityId: 'WHEAT',
  type: 'price',
  seriesUnit: 'USD/bu',
  currency: undefined,
  unit: undefined,
  ratedCurrencies: ['CAD', 'GBP', 'JPY', 'USD'],
  ...over,
});

function refusal(a: ConversionAsk): { param: string | undefined; message: string } {
  try {
    planConversion(a);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidParameterError);
    const e = err as InvalidParameterError;
    return { param: e.param, message: e.message };
  }
  throw new Error('not refused');
}

describe('planConversion: units', () => {
  it('converts a price per bushel to per tonne with the crop’s bushel weight, and says how', () => {
    const wheat = planConversion(ask({ unit: 't' }))!;
    // 1 t = 1000 / (60 × 0.45359237) bu = 36.7437 bu: a price per t is 36.7437 times the price per bu
    expect(wheat.factor).toBeCloseTo(1000 / (60 * 0.45359237), 10);
    expect(wheat.toUnit).toBe('USD/t');
    expect(wheat.unit?.working).toContain('1 t = 36.7437 bu of 60 lb (0.45359237 kg/lb)');
    const corn = planConversion(ask({ commodityId: 'CORN', unit: 't' }))!;
    expect(corn.factor).toBeCloseTo(1000 / (56 * 0.45359237), 10);
    const oats = planConversion(ask({ commodityId: 'OATS', unit: 't' }))!;
    expect(oats.factor).toBeCloseTo(1000 / (32 * 0.45359237), 10);
    expect(wheat.currency).toBeUndefined();
  });

  it('converts quantities the other way (bushels to tonnes divides), keeping scale and per parts', () => {
    const p = planConversion(ask({ commodityId: 'CORN', type: 'production', seriesUnit: 'thousand bu', unit: 't' }))!;
    expect(p.factor).toBeCloseTo((56 * 0.45359237) / 1000, 12);
    expect(p.toUnit).toBe('thousand t');
    const y = planConversion(ask({ commodityId: 'CORN', type: 'yield', seriesUnit: 'bu/acre', unit: 'kg' }))!;
    expect(y.toUnit).toBe('kg/acre');
    const crude = planConversion(
      ask({ commodityId: 'CRUDE_OIL_WTI', type: 'production', seriesUnit: 'thousand bbl/d', unit: 'm3' }),
    )!;
    expect(crude.factor).toBeCloseTo(0.158987294928, 12);
    expect(crude.toUnit).toBe('thousand m3/d');
  });

  it('cents and dollars, troy ounces and grams, MMBtu and GJ, cwt and t', () => {
    const cents = planConversion(ask({ commodityId: 'CORN', seriesUnit: 'USc/bu', unit: 'USD/bu' }))!;
    expect(cents.factor).toBe(0.01);
    expect(cents.toUnit).toBe('USD/bu');
    const toCents = planConversion(ask({ commodityId: 'CORN', unit: 'USc/bu' }))!;
    expect(toCents.factor).toBe(100);
    const gold = planConversion(ask({ commodityId: 'GOLD', seriesUnit: 'USD/troy oz', unit: 'g' }))!;
    expect(gold.factor).toBeCloseTo(0.001 / 0.0311034768, 12);
    expect(gold.toUnit).toBe('USD/g');
    const gas = planConversion(ask({ commodityId: 'NATURAL_GAS', seriesUnit: 'USD/MMBtu', unit: 'GJ' }))!;
    expect(gas.factor).toBeCloseTo(1 / 1.05505585262, 12);
    const hogs = planConversion(ask({ commodityId: 'LEAN_HOGS', seriesUnit: 'USD/cwt', unit: 't' }))!;
    expect(hogs.factor).toBeCloseTo(1000 / (100 * 0.45359237), 10);
  });

  it('a cents price asked in another currency becomes whole units of it', () => {
    const p = planConversion(ask({ commodityId: 'CORN', seriesUnit: 'USc/bu', currency: 'EUR' }))!;
    expect(p.factor).toBe(0.01);
    expect(p.toUnit).toBe('EUR/bu');
    expect(p.currency).toEqual({ from: 'USD', to: 'EUR' });
    expect(p.unit?.working).toContain('100');
  });

  it('refuses what does not fit, naming unit and saying what would work', () => {
    const bushelGold = refusal(ask({ commodityId: 'GOLD', seriesUnit: 'USD/troy oz', unit: 'bu' }));
    expect(bushelGold.param).toBe('unit');
    expect(bushelGold.message).toMatch(/bushel/);
    const crudeTonnes = refusal(ask({ commodityId: 'CRUDE_OIL_WTI', seriesUnit: 'USD/bbl', unit: 't' }));
    expect(crudeTonnes).toMatchObject({ param: 'unit' });
    expect(crudeTonnes.message).toContain('bbl, gal, m3');
    expect(refusal(ask({ unit: 'furlong' })).message).toContain('t, kg, g');
    expect(refusal(ask({ type: 'production', seriesUnit: 'bu', unit: 'USD/t' })).message).toMatch(/quantity/);
    expect(refusal(ask({ currency: 'EUR', unit: 'USD/t' })).message).toMatch(/not the currency asked/);
    expect(refusal(ask({ type: 'planted_acres', seriesUnit: 'acres', unit: 't' })).param).toBe('unit');
    expect(refusal(ask({ type: 'stocks', seriesUnit: 'Bcf', unit: 'm3' })).param).toBe('unit');
    expect(refusal(ask({ commodityId: 'LUMBER', seriesUnit: 'USD/1000 bd ft', unit: 't' })).param).toBe('unit');
  });

  it('refuses a currency without rates (listing those with), on a quantity, or on a unit without money', () => {
    const unknown = refusal(ask({ currency: 'XYZ' }));
    expect(unknown.param).toBe('currency');
    expect(unknown.message).toContain('EUR, CAD, GBP, JPY, USD');
    expect(refusal(ask({ type: 'production', seriesUnit: 'bu', currency: 'EUR' }))).toMatchObject({
      param: 'currency',
    });
    expect(refusal(ask({ seriesUnit: 'index', currency: 'EUR' })).param).toBe('currency');
    expect(refusal(ask({ seriesUnit: 'CHF/t', currency: 'EUR' })).message).toContain(
      "the series' currency, CHF, has no exchange rates",
    );
    expect(refusal(ask({ unit: 'XYZ/t' }))).toMatchObject({
      param: 'unit',
      message: expect.stringContaining('XYZ, has no exchange rates') as unknown,
    });
  });

  it('a currency alone keeps the measure as written; the same currency converts nothing', () => {
    expect(planConversion(ask({ seriesUnit: 'USD/mt', currency: 'EUR' }))).toMatchObject({
      toUnit: 'EUR/mt',
      factor: 1,
      currency: { from: 'USD', to: 'EUR' },
    });
    const same = planConversion(ask({ currency: 'USD' }))!;
    expect(same.currency).toBeUndefined();
    expect(same.unit).toBeUndefined();
    expect(planConversion(ask({}))).toBeUndefined();
  });
});

const usd = [
  { d: '2026-04-01', v: 1.1 },
  { d: '2026-04-02', v: 1.2 },
  { d: '2026-04-07', v: 1.3 },
  { d: '2026-04-30', v: 1.4 },
];
const cad = [
  { d: '2026-04-01', v: 1.5 },
  { d: '2026-04-02', v: 1.6 },
  { d: '2026-04-07', v: 1.7 },
  { d: '2026-04-30', v: 1.8 },
];

describe('rates: the rate of each point', () => {
  it('daily: the day’s rate, else the latest earlier one at most 5 days back; day 6 has none', () => {
    const toUsd = crossRates(undefined, usd);
    expect(rateOf(toUsd, '2026-04-02', 'daily')).toEqual({ rate: 1.2, date: '2026-04-02' });
    expect(rateOf(toUsd, '2026-04-06', 'daily')).toEqual({ rate: 1.2, date: '2026-04-02' });
    expect(rateOf(toUsd, '2026-04-07', 'daily')).toEqual({ rate: 1.3, date: '2026-04-07' });
    expect(rateOf(toUsd, '2026-04-12', 'daily')).toEqual({ rate: 1.3, date: '2026-04-07' }); // 5 days back
    expect(rateOf(toUsd, '2026-04-13', 'daily')).toBeUndefined(); // 6 days back
    expect(rateOf(toUsd, '2026-03-31', 'daily')).toBeUndefined(); // before the first rate
  });

  it('from USD to EUR divides by the USD rate; the euro cross divides the two rates of each day', () => {
    expect(rateOf(crossRates(usd, undefined), '2026-04-01', 'daily')?.rate).toBeCloseTo(1 / 1.1, 12);
    const cadToUsd = crossRates(cad, usd);
    expect(rateOf(cadToUsd, '2026-04-07', 'daily')?.rate).toBeCloseTo(1.3 / 1.7, 12);
    // a day only one of them has is not a cross rate
    const partial = crossRates([{ d: '2026-04-01', v: 2 }], [{ d: '2026-04-02', v: 3 }]);
    expect(partial.dates).toEqual([]);
  });

  it('monthly: the average of the month’s daily cross rates; weekly: of the 7 days ending on the point', () => {
    const cadToUsd = crossRates(cad, usd);
    const days = usd.map((u, i) => u.v / cad[i]!.v);
    const mean = days.reduce((a, b) => a + b, 0) / days.length;
    expect(rateOf(cadToUsd, '2026-04-01', 'monthly_average')?.rate).toBeCloseTo(mean, 12);
    // averaging the cross, not crossing the averages
    expect(mean).not.toBeCloseTo(1.25 / 1.65, 6);
    // 2026-04-03..2026-04-09 holds 04-07 only; 2026-04-01..2026-04-07 all three
    const toUsd = crossRates(undefined, usd);
    expect(rateOf(toUsd, '2026-04-09', 'weekly_average')?.rate).toBe(1.3);
    expect(rateOf(toUsd, '2026-04-07', 'weekly_average')?.rate).toBeCloseTo((1.1 + 1.2 + 1.3) / 3, 12);
    expect(rateOf(toUsd, '2026-04-27', 'weekly_average')).toBeUndefined();
    expect(rateOf(toUsd, '2026-05-01', 'monthly_average')).toBeUndefined();
  });

  it('converts values and OHLC, counts carried and missing points, drops OHLC where there is no rate', () => {
    const counts: ConversionCounts = { carried: 0, missing: 0 };
    const out = convertPoints(
      [
        { d: '2026-04-02', v: 10, o: 9, h: 11, l: 8, c: 10, vol: 5 },
        { d: '2026-04-06', v: 10 },
        { d: '2026-04-13', v: 10, o: 9, h: 11, l: 8, c: 10, vol: 5 },
      ],
      2,
      crossRates(undefined, usd),
      'daily',
      counts,
    );
    expect(out[0]).toMatchObject({ v: 24, o: 21.6, h: 26.4, l: 19.2, c: 24, vol: 5, fx: 1.2 });
    // the rate of the point's own date: no date said; a carried one says its date
    expect(out[0]).not.toHaveProperty('fxDate');
    expect(out[1]).toMatchObject({ v: 24, fx: 1.2, fxDate: '2026-04-02' });
    expect(out[2]!.v).toBeNaN();
    expect(out[2]).toEqual({ d: '2026-04-13', v: Number.NaN, vol: 5 });
    expect(counts).toEqual({ carried: 1, missing: 1 });
  });

  it('gives a kept point the same converted object while its factor and rate stay (its rendering is kept too)', () => {
    const kept = [{ d: '2026-04-02', v: 10 }];
    const cross = crossRates(undefined, usd);
    const first = convertPoints(kept, 2, cross, 'daily');
    expect(convertPoints(kept, 2, cross, 'daily')[0]).toBe(first[0]);
    expect(convertPoints(kept, 3, cross, 'daily')[0]).not.toBe(first[0]);
    const otherRate = crossRates(undefined, [{ d: '2026-04-02', v: 1.3 }]);
    expect(convertPoints(kept, 3, otherRate, 'daily')[0]).toMatchObject({ v: 39, fx: 1.3 });
  });
});
