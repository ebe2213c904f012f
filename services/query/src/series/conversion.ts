import {
  MEASURE_NAMES,
  MEASURES,
  RATE_BASE_CURRENCY,
  BUSHEL_POUNDS,
  measureNamed,
  measureSize,
  moneyText,
  parseMoney,
  parseUnit,
  unitText,
  type MeasureName,
  type Money,
  type ParsedUnit,
  type SeriesType,
  type UnitConversion,
} from '@cds/contracts';
import { InvalidParameterError } from '@cds/http';

/**
 * What `currency` and `unit` on a series ask (docs/conversion.md), checked against the series and
 * the currencies that have rates: the physical factor and its working, and which currencies the
 * exchange-rate part converts between. Every refusal is a 400 naming the parameter.
 */
export interface ConversionPlan {
  fromUnit: string;
  toUnit: string;
  fromCurrency?: string;
  toCurrency?: string;
  /** The physical (and cents-to-units) factor every value is multiplied by, before any exchange rate. */
  factor: number;
  /** With `unit`, or cents to whole units: that factor and its working. */
  unit?: UnitConversion;
  /** With a currency other than the series': the two currencies (EUR has no rate series: 1). */
  currency?: { from: string; to: string };
}

export interface ConversionAsk {
  commodityId: string;
  type: SeriesType;
  /** The series' unit as stored (`USD/bu`, `USc/lb`, `thousand bbl/d`), undefined when unknown. */
  seriesUnit: string | undefined;
  currency: string | undefined;
  unit: string | undefined;
  /** The currencies with a rate series (EUR is always convertible). */
  ratedCurrencies: readonly string[];
}

const MEASURE_LIST = MEASURE_NAMES.join(', ');
const BUSHELS = 'corn and sorghum 56 lb, wheat and soybeans 60 lb, oats 32 lb';

/** `36.7437`: a factor as the working writes it (6 significant digits, no exponent for the usual sizes). */
export function workingNumber(x: number): string {
  return String(Number(x.toPrecision(6)));
}

function measuresOf(dimension: string): string {
  return MEASURE_NAMES.filter((m) => MEASURES[m].dimension === dimension).join(', ');
}

/** How a measure's size comes about, for the working: `bu of 60 lb`, `lb (0.45359237 kg)`. */
function measureNote(m: MeasureName, commodityId: string): string {
  if (m === 'bu') return `bu of ${BUSHEL_POUNDS[commodityId]} lb (0.45359237 kg/lb)`;
  return MEASURES[m].name;
}

function requireSize(m: MeasureName, ask: ConversionAsk, whose: string): number {
  const size = measureSize(m, ask.commodityId);
  if (size !== undefined) return size;
  throw new InvalidParameterError(
    'unit',
    `invalid 'unit': ${ask.commodityId} has no bushel weight (${whose}); bushels are kept for ${BUSHELS}. ` +
      `Ask for a mass instead: ${measuresOf('mass').replace(', bu', '')}`,
  );
}

/** The `unit` parameter taken apart: its money (when `<money>/<measure>`) and its measure. */
function parseUnitParam(text: string): { money?: Money; measure: MeasureName } {
  const slash = text.indexOf('/');
  const money = slash > 0 ? parseMoney(text.slice(0, slash)) : undefined;
  const measureText = slash > 0 ? text.slice(slash + 1) : text;
  const measure = measureNamed(measureText);
  if (measure === undefined) {
    throw new InvalidParameterError(
      'unit',
      `invalid 'unit': '${measureText}' is not a measure this service converts; use one of ${MEASURE_LIST}, ` +
        'or <currency>/<measure> on a price (USD/t, USc/bu)',
    );
  }
  return money === undefined ? { measure } : { money, measure };
}

/** The physical part: factor and working from the series' measure to the asked one (and cents ↔ units on a price). */
function unitPart(ask: ConversionAsk, series: ParsedUnit, fromUnit: string, asked: string) {
  const target = parseUnitParam(asked);
  if (series.measure === undefined) {
    throw new InvalidParameterError(
      'unit',
      `invalid 'unit': the '${ask.type}' series of ${ask.commodityId} is in ${fromUnit}, which has no measure this ` +
        `service converts (${MEASURE_LIST}); leave unit out`,
    );
  }
  if (series.money === undefined && target.money !== undefined) {
    throw new InvalidParameterError(
      'unit',
      `invalid 'unit': the '${ask.type}' series of ${ask.commodityId} is a quantity (${fromUnit}), not a price; ` +
        `ask for a measure alone, e.g. ${MEASURES[target.measure].name}`,
    );
  }
  const from = MEASURES[series.measure];
  const to = MEASURES[target.measure];
  if (from.dimension !== to.dimension) {
    throw new InvalidParameterError(
      'unit',
      `invalid 'unit': the '${ask.type}' series of ${ask.commodityId} is in ${fromUnit}, a ${from.dimension}; ` +
        `${to.name} is a ${to.dimension}. Ask for one of ${measuresOf(from.dimension)}`,
    );
  }
  const fromSize = requireSize(series.measure, ask, `its unit is ${fromUnit}`);
  const toSize = requireSize(target.measure, ask, `asked for ${to.name}`);
  const ratio = toSize / fromSize;
  const working: string[] = [];
  let factor: number;
  if (series.money !== undefined) {
    factor = ratio;
    if (series.measure !== target.measure) {
      working.push(
        `1 ${measureNote(target.measure, ask.commodityId)} = ${workingNumber(ratio)} ` +
          `${measureNote(series.measure, ask.commodityId)}: price per ${to.name} = price per ${from.name} × ${workingNumber(ratio)}`,
      );
    }
  } else {
    factor = 1 / ratio;
    if (series.measure !== target.measure) {
      working.push(
        `1 ${measureNote(series.measure, ask.commodityId)} = ${workingNumber(1 / ratio)} ` +
          `${measureNote(target.measure, ask.commodityId)}: quantity in ${to.name} = quantity in ${from.name} × ${workingNumber(1 / ratio)}`,
      );
    }
  }
  return { target, factor, working };
}

/** The money of the answer: the unit's when it names one, else the series' (whole units once another currency is asked). */
function targetMoney(ask: ConversionAsk, seriesMoney: Money, asked: Money | undefined): Money {
  if (asked !== undefined) {
    if (ask.currency !== undefined && asked.currency !== ask.currency) {
      throw new InvalidParameterError(
        'unit',
        `invalid 'unit': its money ${moneyText(asked)} is not the currency asked (${ask.currency}); ` +
          `write ${ask.currency}/<measure>, or the measure alone`,
      );
    }
    return asked;
  }
  if (ask.currency === undefined || ask.currency === seriesMoney.currency) return seriesMoney;
  return { currency: ask.currency, divisor: 1 };
}

function refuseCurrency(ask: ConversionAsk, fromUnit: string): Money {
  if (ask.type !== 'price') {
    throw new InvalidParameterError(
      'currency',
      `invalid 'currency': the '${ask.type}' series of ${ask.commodityId} is not a price (${fromUnit}); ` +
        'currency converts prices only: leave it out, or ask for type=price',
    );
  }
  throw new InvalidParameterError(
    'currency',
    `invalid 'currency': the price of ${ask.commodityId} is in ${fromUnit}, which names no currency; leave currency out`,
  );
}

function requireRates(ask: ConversionAsk, currency: string, whose: string, param: 'currency' | 'unit'): void {
  if (currency === RATE_BASE_CURRENCY || ask.ratedCurrencies.includes(currency)) return;
  const known = [RATE_BASE_CURRENCY, ...ask.ratedCurrencies.filter((c) => c !== RATE_BASE_CURRENCY)];
  throw new InvalidParameterError(
    param,
    `invalid '${param}': ${whose}, ${currency}, has no exchange rates here; currencies with rates: ${known.join(', ')}`,
  );
}

/**
 * Checks `currency` and `unit` against the series and says what converts: the unit part (with
 * `unit`) and the currency part (a currency other than the series'). Undefined when neither is asked.
 */
export function planConversion(ask: ConversionAsk): ConversionPlan | undefined {
  if (ask.currency === undefined && ask.unit === undefined) return undefined;
  const fromUnit = ask.seriesUnit ?? 'an unknown unit';
  const series = parseUnit(ask.seriesUnit ?? '');
  const seriesMoney = ask.type === 'price' ? series.money : undefined;
  if (ask.currency !== undefined && seriesMoney === undefined) refuseCurrency(ask, fromUnit);
  if (ask.currency !== undefined) requireRates(ask, ask.currency, 'the currency asked', 'currency');
  const unit = ask.unit === undefined ? undefined : unitPart(ask, series, fromUnit, ask.unit);
  const plan: ConversionPlan = { fromUnit, toUnit: fromUnit, factor: 1 };
  let factor = unit?.factor ?? 1;
  const working = unit?.working ?? [];
  // the series' measure as written, or the one asked (unitText writes a converted measure by its name)
  const toParts: ParsedUnit = { ...series, measure: unit?.target.measure };
  if (seriesMoney === undefined) {
    plan.toUnit = unitText({ ...toParts, money: undefined });
  } else {
    const money = targetMoney(ask, seriesMoney, unit?.target.money);
    if (money.currency !== seriesMoney.currency) {
      const param = ask.currency === undefined ? 'unit' : 'currency';
      if (param === 'unit') requireRates(ask, money.currency, 'the currency of the unit asked', 'unit');
      requireRates(ask, seriesMoney.currency, "the series' currency", param);
    }
    if (money.divisor !== seriesMoney.divisor) {
      factor *= money.divisor / seriesMoney.divisor;
      working.push(`1 USD = 100 USc: ${money.divisor === 1 ? '÷' : '×'} 100`);
    }
    plan.toUnit = unitText({ ...toParts, money });
    plan.fromCurrency = seriesMoney.currency;
    plan.toCurrency = money.currency;
    if (money.currency !== seriesMoney.currency) plan.currency = { from: seriesMoney.currency, to: money.currency };
  }
  plan.factor = factor;
  if (unit !== undefined || factor !== 1) {
    plan.unit = {
      from: fromUnit,
      to: plan.toUnit,
      factor,
      working: working.length === 0 ? 'the same unit: × 1' : working.join('; '),
    };
  }
  return plan;
}
