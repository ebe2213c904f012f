import {
  CotReportsBatch,
  DisaggregatedCotRecord,
  LegacyCotRecord,
  MAX_POINTS_PER_EVENT,
  MAX_REPORTS_PER_EVENT,
  SeriesPointRecord,
  SeriesPointsBatch,
} from '@cds/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { CompiledSchema } from './compiled-schema.ts';
import {
  fastCotReportsBatch,
  fastDisaggregatedCotRecord,
  fastLegacyCotRecord,
  fastSeriesPointRecord,
  fastSeriesPointsBatch,
} from './contracts.ts';

// The compiled validators must accept exactly what the zod schemas accept (zod is the contract),
// and give the same canonical data (keys in the schema's order) for what they accept.

type Obj = Record<string, unknown>;

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** Real calendar dates over the whole YYYY range (leap days, year 0000, 9999-12-31 included). */
const realDate = fc
  .date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
/** Date-shaped strings that are often not real dates (month 0/13/14, day 0/29-32 anywhere). */
const dateShaped = fc
  .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 14 }), fc.integer({ min: 0, max: 32 }))
  .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`);
const badDate = fc.oneof(
  dateShaped,
  fc.constantFrom('2023-02-29', '1900-02-29', '2024-02-30', '2024-04-31', '2024-1-05', '24-01-05', ' 2024-01-05'),
  fc.constantFrom('2024-01-05T00:00:00Z', '2024-01-05\n', '２０２４-01-05', ''),
  fc.string(),
  fc.integer(),
);

/** Strings around a 20-character limit: astral characters, lone surrogates (lengths count code points). */
const shortText = fc.oneof(
  fc.string({ minLength: 1, maxLength: 20 }),
  fc.integer({ min: 0, max: 22 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 0, max: 22 }).map((n) => '😀'.repeat(n)),
  fc.integer({ min: 0, max: 22 }).map((n) => '\uD83D'.repeat(n)),
  fc.integer({ min: 0, max: 22 }).map((n) => 'a\uDE00'.repeat(n)),
  fc.string({ unit: 'binary', maxLength: 22 }),
);

const count = fc.oneof(fc.nat(), fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER));
const badCount = fc.oneof(
  fc.integer({ min: -1000, max: -1 }),
  fc.double({ noInteger: true }),
  fc.constantFrom(NaN, Infinity, -Infinity, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, 1.5, '5', null, true, {}, []),
);
const anyValue = fc.oneof(fc.string(), fc.double(), fc.constant(null), fc.boolean(), fc.object(), fc.array(fc.nat()));

const group = (sides: readonly string[]) => fc.record(Object.fromEntries(sides.map((s) => [s, count])));

const LEGACY_GROUPS = {
  commercial: ['long', 'short'],
  non_commercial: ['long', 'short', 'spreading'],
  non_reportable: ['long', 'short'],
} as const;
const DISAGG_GROUPS = {
  producer_merchant: ['long', 'short'],
  swap_dealer: ['long', 'short', 'spreading'],
  managed_money: ['long', 'short', 'spreading'],
  other_reportable: ['long', 'short', 'spreading'],
} as const;

function cotRecord(groups: Record<string, readonly string[]>, date: fc.Arbitrary<string> = realDate) {
  const fields: Record<string, fc.Arbitrary<unknown>> = {
    report_date: date,
    exchange: shortText,
    contract_code: shortText,
    open_interest: count,
    ...Object.fromEntries(Object.entries(groups).map(([g, sides]) => [g, group(sides)])),
  };
  return fc.record(fields, { requiredKeys: ['report_date', 'open_interest', ...Object.keys(groups)] });
}

const price = fc.oneof(fc.integer({ min: -5, max: 10 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }));
const badNumber = fc.oneof(fc.constantFrom(NaN, Infinity, -Infinity, '1', null, true), fc.object());

function seriesPoint(date: fc.Arbitrary<string> = realDate) {
  return fc.record(
    { date, value: price, open: price, high: price, low: price, close: price, volume: count },
    { requiredKeys: ['date', 'value'] },
  );
}

/** One change that may make a valid-looking value invalid (or leave it valid: zod decides). */
function mutate(value: Obj, paths: string[][], bad: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const keys = paths.filter((p) => p.length > 0);
  const at = (o: Obj, path: string[]): Obj => path.slice(0, -1).reduce((cur, k) => cur[k] as Obj, o);
  const objectPaths = keys.filter((p) => {
    const v = at(value, p)[p.at(-1)!];
    return v !== null && typeof v === 'object';
  });
  return fc.oneof(
    // drop a key (required or optional)
    fc.constantFrom(...keys).map((path) => {
      const copy = structuredClone(value);
      delete at(copy, path)[path.at(-1)!];
      return copy;
    }),
    // an unknown key at the top or in a nested object
    fc.tuple(fc.constantFrom<string[]>([], ...objectPaths), fc.string(), anyValue).map(([path, name, v]) => {
      const copy = structuredClone(value);
      const target = path.reduce((cur, k) => cur[k] as Obj, copy);
      target[name] = v;
      return copy;
    }),
    // a bad value for one key
    fc.constantFrom(...keys).chain((path) => {
      const leaf = path.at(-1)!;
      const arb = bad[leaf] ?? anyValue;
      return arb.map((v) => {
        const copy = structuredClone(value);
        at(copy, path)[leaf] = v;
        return copy;
      });
    }),
    // an undefined value (an optional key may be present as undefined)
    fc.constantFrom(...keys).map((path) => {
      const copy = structuredClone(value);
      at(copy, path)[path.at(-1)!] = undefined;
      return copy;
    }),
    // not an object at all
    anyValue,
  );
}

function leafPaths(o: Obj, prefix: string[] = []): string[][] {
  return Object.entries(o).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? [[...prefix, k], ...leafPaths(v as Obj, [...prefix, k])]
      : [[...prefix, k]],
  );
}

/** Same entries, keys in a random order (the canonical output must not depend on it). */
function shuffled(o: unknown, seed: number): unknown {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return o;
  const entries = Object.entries(o as Obj);
  const order = entries.map((e, i) => [((i + 1) * 2654435761 * (seed + 1)) % 4294967296, e] as const);
  order.sort((a, b) => a[0] - b[0]);
  return Object.fromEntries(order.map(([, [k, v]]) => [k, shuffled(v, seed + 1)]));
}

const tally = { accepted: 0, refused: 0 };

function expectAgreement<S extends z.ZodType>(compiled: CompiledSchema<z.output<S>>, schema: S, value: unknown): void {
  const reference = schema.safeParse(value);
  expect(compiled.check(value), JSON.stringify(reference.error?.issues ?? 'accepted by zod')).toBe(reference.success);
  const ours = compiled.safeParse(value);
  expect(ours.success).toBe(reference.success);
  if (reference.success && ours.success) {
    tally.accepted++;
    expect(JSON.stringify(ours.data)).toBe(JSON.stringify(reference.data));
  } else tally.refused++;
}

const BAD_LEAVES = {
  report_date: badDate,
  date: badDate,
  exchange: fc.oneof(fc.constant(''), fc.constant('x'.repeat(21)), fc.constant('😀'.repeat(21)), fc.integer()),
  contract_code: fc.oneof(fc.constant(''), fc.constant('y'.repeat(21)), fc.constant(null)),
  open_interest: badCount,
  long: badCount,
  short: badCount,
  spreading: badCount,
  volume: badCount,
  value: badNumber,
  open: badNumber,
  high: badNumber,
  low: badNumber,
  close: badNumber,
};

// thousands of zod parses per property: generous timeouts for a loaded 2-core machine (no timing asserted)
describe('compiled record validators accept exactly what the zod schemas accept', { timeout: 120_000 }, () => {
  const cases = [
    ['LegacyCotRecord', fastLegacyCotRecord, LegacyCotRecord, cotRecord(LEGACY_GROUPS)],
    ['DisaggregatedCotRecord', fastDisaggregatedCotRecord, DisaggregatedCotRecord, cotRecord(DISAGG_GROUPS)],
    ['SeriesPointRecord', fastSeriesPointRecord, SeriesPointRecord, seriesPoint()],
  ] as const;

  for (const [name, compiled, schema, arb] of cases) {
    it(`${name}: generated records, keys in any order`, () => {
      fc.assert(
        fc.property(arb, fc.nat(), (record, seed) => {
          expectAgreement(compiled, schema as z.ZodType, shuffled(record, seed));
        }),
        { numRuns: 1500 },
      );
    });

    it(`${name}: generated records with one mutation`, () => {
      fc.assert(
        fc.property(
          arb.chain((r) => mutate(r as Obj, leafPaths(r as Obj), BAD_LEAVES)),
          (value) => {
            expectAgreement(compiled, schema as z.ZodType, value);
          },
        ),
        { numRuns: 3000 },
      );
    });
  }

  it('date-shaped strings: the compiled pattern is zod’s calendar rule', () => {
    fc.assert(
      fc.property(fc.oneof(realDate, dateShaped, badDate), (date) => {
        expectAgreement(fastSeriesPointRecord, SeriesPointRecord, { date, value: 1 });
      }),
      { numRuns: 3000 },
    );
  });

  it('OHLC consistency is enforced as the contract refines it', () => {
    const small = fc.integer({ min: 0, max: 4 });
    fc.assert(
      fc.property(
        fc.record(
          { date: realDate, value: small, open: small, high: small, low: small, close: small },
          { requiredKeys: ['date', 'value'] },
        ),
        (p) => {
          expectAgreement(fastSeriesPointRecord, SeriesPointRecord, p);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('both outcomes were exercised', () => {
    expect(tally.accepted).toBeGreaterThan(1000);
    expect(tally.refused).toBeGreaterThan(1000);
  });
});

describe('compiled batch validators accept exactly what the zod schemas accept', { timeout: 120_000 }, () => {
  const commodity = fc.oneof(
    fc.constantFrom('CORN', 'CRUDE_OIL_WTI', 'GOLD'),
    fc.constantFrom('corn', 'CORN__X', '_CORN', '', 'C'.repeat(65), 'A1_B2'),
    fc.string({ maxLength: 8 }),
  );
  const period = fc.oneof(
    fc.integer({ min: 1990, max: 2030 }).map(String),
    fc.constantFrom('2024-01', '2024-12', '2024-13', '2024-00', '24', '2024-1', ''),
  );

  it('SeriesPointsBatch: period, duplicate and foreign dates, bad points, unknown keys', () => {
    const batch = fc
      .record({
        commodity_id: commodity,
        series_type: fc.constantFrom('price', 'volume', 'stocks', 'bogus'),
        frequency: fc.constantFrom('daily', 'weekly', 'monthly', 'hourly'),
        unit: fc.oneof(fc.constant(undefined), fc.constantFrom('USD/bbl', '', 'u'.repeat(41))),
        year: fc.integer({ min: 2022, max: 2024 }),
        monthly: fc.boolean(),
        days: fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 0, maxLength: 30 }),
        points: fc.array(seriesPoint(), { maxLength: 30 }),
        periodOverride: fc.option(period, { nil: undefined }),
        extra: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
      })
      .map((b) => {
        const p = b.periodOverride ?? (b.monthly ? `${b.year}-03` : String(b.year));
        const start = Date.UTC(b.year, b.monthly ? 2 : 0, 1);
        const points = b.points.map((pt, i) => ({
          ...pt,
          date: new Date(start + (b.days[i] ?? i) * 86_400_000).toISOString().slice(0, 10),
        }));
        return {
          commodity_id: b.commodity_id,
          series_type: b.series_type,
          frequency: b.frequency,
          ...(b.unit !== undefined ? { unit: b.unit } : {}),
          period: p,
          points,
          ...(b.extra !== undefined ? { [b.extra]: 1 } : {}),
        };
      });
    fc.assert(
      fc.property(batch, fc.nat(), (b, seed) => {
        expectAgreement(fastSeriesPointsBatch, SeriesPointsBatch, shuffled(b, seed));
      }),
      { numRuns: 1500 },
    );
  });

  it('CotReportsBatch: both formats, format/record mismatch, duplicate dates, unknown keys', () => {
    const batch = fc
      .record({
        commodity_id: commodity,
        format: fc.constantFrom('legacy', 'disaggregated', 'other'),
        reports: fc.oneof(
          fc.array(cotRecord(LEGACY_GROUPS, fc.constantFrom('2024-01-02', '2024-01-09', '2024-01-16', '2024-02-30')), {
            maxLength: 8,
          }),
          fc.array(cotRecord(DISAGG_GROUPS, fc.constantFrom('2024-01-02', '2024-01-09', '2024-01-16')), {
            maxLength: 8,
          }),
        ),
        period: fc.option(period, { nil: undefined }),
      })
      .map((b) => ({
        commodity_id: b.commodity_id,
        format: b.format,
        reports: b.reports,
        ...(b.period !== undefined ? { period: b.period } : {}),
      }));
    fc.assert(
      fc.property(batch, (b) => {
        expectAgreement(fastCotReportsBatch, CotReportsBatch, b);
      }),
      { numRuns: 1500 },
    );
  });

  it('size limits: empty batches and one record over the cap', () => {
    const reports = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        report_date: new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
        open_interest: 1,
        commercial: { long: 1, short: 1 },
        non_commercial: { long: 1, short: 1, spreading: 0 },
        non_reportable: { long: 0, short: 0 },
      }));
    for (const n of [0, 1, MAX_REPORTS_PER_EVENT, MAX_REPORTS_PER_EVENT + 1]) {
      expectAgreement(fastCotReportsBatch, CotReportsBatch, {
        commodity_id: 'CORN',
        format: 'legacy',
        reports: reports(n),
      });
    }
    const points = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ date: `2024-01-${pad(1 + (i % 28), 2)}`, value: i }));
    for (const n of [0, 1, MAX_POINTS_PER_EVENT + 1]) {
      expectAgreement(fastSeriesPointsBatch, SeriesPointsBatch, {
        commodity_id: 'CORN',
        series_type: 'price',
        frequency: 'daily',
        period: '2024',
        points: points(n),
      });
    }
  });
});

describe('compiled validators and the publication fields (published_at, published_at_estimated)', () => {
  const instants = [
    '2025-03-07T20:30:00.000Z',
    '2025-03-07T20:30:00Z',
    '2025-03-07T15:30:00-05:00',
    '2025-03-07T15:30:00.5+01:00',
    '2025-03-07',
    '2025-03-07 20:30:00Z',
    '2025-13-07T20:30:00Z',
    '2025-03-07T25:30:00Z',
    'yesterday',
    '',
    1741379400000,
    null,
  ];
  const flags = [true, false, 'true', 1, null];
  const batch = {
    commodity_id: 'GOLD',
    series_type: 'price',
    frequency: 'monthly',
    period: '2025',
    points: [{ date: '2025-01-31', value: 1 }],
  };
  const report = {
    report_date: '2025-03-04',
    open_interest: 1,
    commercial: { long: 1, short: 2 },
    non_commercial: { long: 3, short: 4, spreading: 5 },
    non_reportable: { long: 6, short: 7 },
  };

  it('accept and refuse them as zod does, on a series batch and on a COT report', () => {
    for (const published_at of instants)
      for (const published_at_estimated of flags) {
        const stamp = { published_at, published_at_estimated };
        expectAgreement(fastSeriesPointsBatch, SeriesPointsBatch, { ...batch, ...stamp });
        expectAgreement(fastLegacyCotRecord, LegacyCotRecord, { ...report, ...stamp });
      }
    expect(fastSeriesPointsBatch.check({ ...batch, published_at: instants[0], published_at_estimated: true })).toBe(
      true,
    );
    expect(fastLegacyCotRecord.check({ ...report, published_at: 'yesterday' })).toBe(false);
  });
});

describe('compiled validators on refusal', () => {
  it('return zod’s issues (the same message a rejected row always had)', () => {
    const bad = { date: '2024-01-02', value: 2, open: 3, high: 2.5, low: 1 };
    const ours = fastSeriesPointRecord.safeParse(bad);
    const reference = SeriesPointRecord.safeParse(bad);
    expect(ours.success).toBe(false);
    expect(ours.success ? [] : ours.error.issues).toEqual(reference.error?.issues);
  });
});
