import { z } from 'zod';
import { documented } from './registry.ts';

/**
 * Currency and unit conversion of a series (docs/conversion.md): `currency` and `unit` on GET
 * /commodities/{slug}/series. The physical factors live here, one table for the query service, the
 * clients' documentation and the explorer's selectors; the exchange rates are series the ingest
 * publishes like any other (one per quoted currency, euro reference rates), read with the same
 * point-in-time view as the series they convert.
 */

// --- exchange rates as series --------------------------------------------------------------------

/** The currency every reference rate is quoted against: a rate is units of a currency per one euro. */
export const RATE_BASE_CURRENCY = 'EUR';

/** The series id of a currency's reference rate: `FX_EUR_USD` holds USD per one EUR, type `price`, unit `USD/EUR`. */
export function rateSeriesId(currency: string): string {
  return `FX_${RATE_BASE_CURRENCY}_${currency}`;
}

/** The currency of a rate series id, or undefined when the id is not one. */
export function currencyOfRateSeries(id: string): string | undefined {
  const m = /^FX_EUR_([A-Z]{3})$/.exec(id);
  return m?.[1];
}

/** The unit of a rate series: units of the currency per one euro (`USD/EUR`). */
export function rateUnit(currency: string): string {
  return `${currency}/${RATE_BASE_CURRENCY}`;
}

/**
 * The currencies the euro reference rates quote today (and the euro itself), for selectors and
 * documentation. What an answer accepts is decided on the data: any currency with a rate series.
 */
export const QUOTED_CURRENCIES = [
  'EUR',
  'USD',
  'JPY',
  'CZK',
  'DKK',
  'GBP',
  'HUF',
  'PLN',
  'RON',
  'SEK',
  'CHF',
  'ISK',
  'NOK',
  'TRY',
  'AUD',
  'BRL',
  'CAD',
  'CNY',
  'HKD',
  'IDR',
  'ILS',
  'INR',
  'KRW',
  'MXN',
  'MYR',
  'NZD',
  'PHP',
  'SGD',
  'THB',
  'ZAR',
] as const;

/** A daily point with no rate on its own date uses the latest earlier one at most this many days back. */
export const MAX_RATE_CARRY_DAYS = 5;

/** A currency code as the parameter takes it (ISO 4217 letters). Whether rates exist for it is checked on the data. */
export const CURRENCY_PATTERN = /^[A-Z]{3}$/;

// --- physical units --------------------------------------------------------------------------------

export const DIMENSIONS = ['mass', 'volume', 'energy'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** A measure: its dimension and its size in the dimension's base (kg, m³, GJ); a bushel's size depends on the crop. */
export interface Measure {
  /** How answers write it, in `meta.unit` and `meta.conversion`. */
  name: string;
  dimension: Dimension;
  /** Size in kg, m³ or GJ; absent for the bushel (BUSHEL_POUNDS). */
  size?: number;
  /** Other spellings accepted in a `unit` parameter or found in a source's unit. */
  aliases: readonly string[];
}

const POUND_KG = 0.45359237;

/** Every measure `unit` converts between, by its parameter name. */
export const MEASURES = {
  t: { name: 't', dimension: 'mass', size: 1000, aliases: ['mt', 'metric ton', 'tonne'] },
  kg: { name: 'kg', dimension: 'mass', size: 1, aliases: [] },
  g: { name: 'g', dimension: 'mass', size: 0.001, aliases: [] },
  lb: { name: 'lb', dimension: 'mass', size: POUND_KG, aliases: [] },
  cwt: { name: 'cwt', dimension: 'mass', size: 100 * POUND_KG, aliases: [] },
  short_ton: { name: 'short ton', dimension: 'mass', size: 2000 * POUND_KG, aliases: ['short ton'] },
  troy_oz: { name: 'troy oz', dimension: 'mass', size: 0.0311034768, aliases: ['troy oz', 'ozt'] },
  bu: { name: 'bu', dimension: 'mass', aliases: ['bushel'] },
  bbl: { name: 'bbl', dimension: 'volume', size: 0.158987294928, aliases: ['barrel'] },
  gal: { name: 'gal', dimension: 'volume', size: 0.003785411784, aliases: ['gallon'] },
  m3: { name: 'm3', dimension: 'volume', size: 1, aliases: ['m³', 'cubic metre', 'cubic meter'] },
  MMBtu: { name: 'MMBtu', dimension: 'energy', size: 1.05505585262, aliases: ['mmbtu'] },
  GJ: { name: 'GJ', dimension: 'energy', size: 1, aliases: ['gj'] },
} as const satisfies Record<string, Measure>;
export type MeasureName = keyof typeof MEASURES;
export const MEASURE_NAMES = Object.keys(MEASURES) as MeasureName[];

/**
 * Pounds per bushel, the USDA standard weights, by commodity id: corn and sorghum 56 lb, wheat and
 * soybeans 60 lb, oats 32 lb. A commodity not listed has no bushel.
 */
export const BUSHEL_POUNDS: Readonly<Record<string, number>> = {
  CORN: 56,
  SORGHUM: 56,
  WHEAT: 60,
  WHEAT_SRW: 60,
  WHEAT_HRW: 60,
  WHEAT_HRS: 60,
  SOYBEANS: 60,
  OATS: 32,
};

/** The measure a name or alias stands for, or undefined. */
export function measureNamed(text: string): MeasureName | undefined {
  for (const key of MEASURE_NAMES) {
    const m: Measure = MEASURES[key];
    if (key === text || m.name === text || m.aliases.includes(text)) return key;
  }
  return undefined;
}

/** The size of a measure in its dimension's base for a commodity, or undefined (a bushel of a crop without a weight). */
export function measureSize(measure: MeasureName, commodityId: string): number | undefined {
  if (measure === 'bu') {
    const pounds = BUSHEL_POUNDS[commodityId];
    return pounds === undefined ? undefined : pounds * POUND_KG;
  }
  const m: Measure = MEASURES[measure];
  return m.size;
}

/** Money as a unit states it: a currency, in its whole units or (USc, US cents) hundredths. */
export interface Money {
  currency: string;
  /** 100 for cents (`USc`), 1 for whole units. */
  divisor: 1 | 100;
}

/**
 * A unit string taken apart. A price unit is `<money>/<measure>` (`USD/bu`, `USc/lb`, `CAD/t`); a
 * quantity is `[thousand ]<measure>[/<per>]` (`bu`, `thousand bbl`, `bu/acre`, `thousand bbl/d`).
 * `measure` is undefined when the unit has none this table converts (`acres`, `Bcf`, `1000 bd ft`).
 */
export interface ParsedUnit {
  money?: Money;
  /** `thousand ` and the like, kept as written. */
  scale: string;
  measure?: MeasureName;
  /** The text of the measure as written (kept when it is not converted). */
  measureText: string;
  /** `/acre`, `/d`: kept as written. */
  per: string;
}

/** Parses a money token: an ISO currency, or `USc` (US cents). */
export function parseMoney(text: string): Money | undefined {
  if (text === 'USc') return { currency: 'USD', divisor: 100 };
  if (CURRENCY_PATTERN.test(text)) return { currency: text, divisor: 1 };
  return undefined;
}

/** Writes money as a unit does. */
export function moneyText(money: Money): string {
  if (money.divisor === 100) return money.currency === 'USD' ? 'USc' : `${money.currency} cents`;
  return money.currency;
}

/** Takes a series' unit apart (see ParsedUnit). */
export function parseUnit(unit: string): ParsedUnit {
  const slash = unit.indexOf('/');
  if (slash > 0) {
    const money = parseMoney(unit.slice(0, slash));
    if (money !== undefined) {
      const rest = unit.slice(slash + 1);
      return { money, scale: '', measure: measureNamed(rest), measureText: rest, per: '' };
    }
  }
  const scaled = /^(thousand |million |billion )?(.*?)(\/(?:acre|d|day|ha))?$/.exec(unit);
  const scale = scaled?.[1] ?? '';
  const body = scaled?.[2] ?? unit;
  const per = scaled?.[3] ?? '';
  return { scale, measure: measureNamed(body), measureText: body, per };
}

/** Writes a unit back from its parts. */
export function unitText(p: ParsedUnit): string {
  const measure = p.measure === undefined ? p.measureText : MEASURES[p.measure].name;
  if (p.money !== undefined) return `${moneyText(p.money)}/${measure}`;
  return `${p.scale}${measure}${p.per}`;
}

/**
 * The `unit` parameter: a measure (`t`, `kg`, `troy_oz`, `bu`, `m3`, `GJ`…), or a price unit
 * `<money>/<measure>` whose money is `USc` (US cents) or a currency (`USD/t`, `USc/bu`, `EUR/t`: the
 * currency then need not be given again, and must agree with `currency` when it is).
 */
export const UnitParam = z
  .string()
  .min(1)
  .max(40)
  .regex(/^(?:(?:[A-Z]{3}|USc)\/)?[A-Za-z0-9_ ³]+$/, {
    message: `must be a measure (${MEASURE_NAMES.join(', ')}) or <currency>/<measure>, e.g. USD/t or USc/bu`,
  });

// --- what an answer says about it ---------------------------------------------------------------

export const CONVERSION_RATE_RULES = ['daily', 'weekly_average', 'monthly_average'] as const;
export type ConversionRateRule = (typeof CONVERSION_RATE_RULES)[number];

const UnitAndCurrency = z.object({
  unit: z.string().max(40).optional().meta({ description: "The series' unit (the answer's meta.unit)." }),
  currency: z
    .string()
    .regex(CURRENCY_PATTERN)
    .optional()
    .meta({ description: 'The currency of a price (absent on a quantity).' }),
});

export const UnitConversion = documented(
  z.object({
    from: z.string().max(40),
    to: z.string().max(40),
    factor: z.number().positive().meta({ description: 'Each value (and open/high/low/close) is multiplied by it.' }),
    working: z.string().max(400).meta({
      description: 'How the factor comes about, e.g. `1 t = 36.7437 bu of 60 lb (0.45359237 kg/lb)`.',
    }),
  }),
  { id: 'UnitConversion', description: 'The physical (and cents-to-units) part of a conversion.' },
);

export const CurrencyConversion = documented(
  z.object({
    from: z.string().regex(CURRENCY_PATTERN),
    to: z.string().regex(CURRENCY_PATTERN),
    rates: z
      .array(z.string().max(40))
      .max(2)
      .meta({
        description:
          'The reference-rate series used (`USD/EUR`, `CAD/EUR`: units per one euro); two when the conversion ' +
          'goes through the euro cross (to ÷ from), none between a currency and itself.',
      }),
    rule: z.enum(CONVERSION_RATE_RULES).meta({
      description:
        'Which rate each point uses: daily (that day’s rate, or the latest earlier one at most 5 days back; ' +
        'a carried point’s fx_rate_date says which), weekly_average (the average of the daily rates of the 7 days ' +
        'ending on the point’s date) or monthly_average (the average of the daily rates of the point’s month).',
    }),
    carried: z.int().min(0).meta({ description: 'Points that used an earlier day’s rate (daily rule).' }),
    missing: z.int().min(0).meta({
      description: 'Points whose value is null: no rate within 5 days (daily) or none in the period (averages).',
    }),
    source: z.string().max(200).meta({ description: 'Where the rates come from (provenance, e.g. `ecb:USD`).' }),
    attribution: z.string().max(300),
    note: z.string().max(400).meta({
      description: 'Converted values are derived data, not statistics published by the source of the rates.',
    }),
  }),
  { id: 'CurrencyConversion', description: 'The exchange-rate part of a conversion.' },
);

export const Conversion = documented(
  z.object({
    from: UnitAndCurrency,
    to: UnitAndCurrency,
    unit: UnitConversion.optional(),
    currency: CurrencyConversion.optional(),
  }),
  {
    id: 'Conversion',
    description:
      'With currency or unit: the working of the conversion, from what the source published to what is served. ' +
      'Conversion happens on the observations themselves, before resampling and transforms.',
  },
);
export type Conversion = z.infer<typeof Conversion>;
export type UnitConversion = z.infer<typeof UnitConversion>;
export type CurrencyConversion = z.infer<typeof CurrencyConversion>;
