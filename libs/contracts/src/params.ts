import { z } from 'zod';
import { documented } from './registry.ts';
import { CURRENCY_PATTERN, MEASURE_NAMES, UnitParam } from './conversion.ts';
import {
  Category,
  COMMODITY_ID_PATTERN,
  CotFormat,
  CotScope,
  Frequency,
  IsoDate,
  SeriesType,
  SortOrder,
  Transform,
} from './primitives.ts';

/**
 * A whole-number query parameter: digits only (no sign, exponent, decimals or spaces), so
 * `1e309`, `1.5`, `+1` and `` are rejected as values of the wrong shape rather than coerced.
 */
export function integerParam(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  // z.int() has its own bound (2^53 - 1) and message: past it, the message is still ours.
  return z
    .string()
    .regex(/^[0-9]{1,16}$/, message)
    .transform(Number)
    .pipe(z.int(message).min(min, message).max(max, message));
}

/**
 * Upper bound on `page`: the largest whole number a JSON number carries exactly (2^53 - 1), so any
 * page a client can write is answered, past the last one with an empty `data` (docs/decisions.md).
 * The page never becomes a database skip: pages are cut from bounded reads in the query service.
 */
export const MAX_PAGE = Number.MAX_SAFE_INTEGER;
export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;
export const MAX_SERIES_LIMIT = 10_000;
export const MAX_SEARCH_LENGTH = 100;

export const page = integerParam(1, MAX_PAGE)
  .default(1)
  .meta({ description: 'Page number, from 1. A page past the last one is 200 with an empty data array.' });
export const perPage = integerParam(1, MAX_PER_PAGE)
  .default(DEFAULT_PER_PAGE)
  .meta({ description: 'Page size, 1 to 100.' });
const dateParam = (what: string, rule = '') =>
  IsoDate.optional().meta({ description: `${what} (inclusive), YYYY-MM-DD.${rule}` });

const AS_OF_DATE = /^\d{4}-\d{2}-\d{2}$/;
const AS_OF_DATE_TIME = z.iso.datetime({ offset: true });

/**
 * The instant an `as_of` value names, as `toISOString()` text (the form of every stored instant):
 * a date `YYYY-MM-DD` is the end of that day in UTC (`YYYY-MM-DDT23:59:59.999Z`), an RFC 3339
 * date-time (`Z` or an offset) its instant. Undefined for anything else.
 */
export function parseAsOf(raw: string): string | undefined {
  if (AS_OF_DATE.test(raw)) return IsoDate.safeParse(raw).success ? `${raw}T23:59:59.999Z` : undefined;
  if (!AS_OF_DATE_TIME.safeParse(raw).success) return undefined;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/**
 * The shape of an `as_of` in the OpenAPI document (a date, or a date-time with Z or an offset), so
 * generated clients and testers send date-like values; whether the date exists, and the rules
 * that need the clock or the data, are checked on the server.
 */
export const AS_OF_PATTERN = (() => {
  // Exactly the dates parseAsOf takes (Gregorian: no 0000-00-00, no 2023-02-30) and the times it
  // takes (hours 00-23, minutes and seconds 00-59, offsets up to ±23:59): what fits is not refused
  // for its shape.
  const year = '[0-9]{4}';
  const leapYear = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';
  const monthDay =
    '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))';
  const date = `(?:${year}-${monthDay}|${leapYear}-02-29)`;
  const time = 'T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])';
  return `^${date}(?:${time})?$`;
})();

const AS_OF_MESSAGE = 'must be a date YYYY-MM-DD or an RFC 3339 date-time such as 2025-03-07T20:30:00Z';

/** `as_of`: parsed to the instant it names (parseAsOf); the rules that need the clock or the data are the handlers'. */
export const asOf = z
  .string()
  .transform((raw, ctx) => {
    const at = parseAsOf(raw);
    if (at === undefined) {
      ctx.addIssue({ code: 'custom', message: AS_OF_MESSAGE });
      return z.NEVER;
    }
    return at;
  })
  .optional();

export const asOfDescription =
  'Point in time: answer with what had been published at this instant (docs/point-in-time.md). A date ' +
  'YYYY-MM-DD means the end of that day in UTC; an RFC 3339 date-time (with Z or an offset) its instant. ' +
  'Observations first published later are absent; revised ones show the version in force then. meta.as_of ' +
  'echoes the instant. A malformed value, an instant after the request, or one before the first publication ' +
  'this service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.';

function startNotAfterEnd(q: { start_date?: string | undefined; end_date?: string | undefined }, ctx: z.RefinementCtx) {
  if (q.start_date !== undefined && q.end_date !== undefined && q.start_date > q.end_date) {
    ctx.addIssue({ code: 'custom', path: ['start_date'], message: 'start_date must not be after end_date' });
  }
}

export const ListCommoditiesQuery = documented(
  z.strictObject({
    category: Category.optional().meta({ description: 'Only commodities of this category.' }),
    search: z.string().max(MAX_SEARCH_LENGTH, `must be at most ${MAX_SEARCH_LENGTH} characters`).optional().meta({
      description: 'Case-insensitive literal substring of the name or symbol, up to 100 characters; empty: no filter.',
    }),
    sort_order: SortOrder.default('asc').meta({ description: 'Sort by id, asc (default) or desc.' }),
    page,
    per_page: perPage,
  }),
  { title: 'ListCommoditiesQuery' },
);

export const CommodityPathParams = z.strictObject({
  // The shape of an id without its length bound: a well-formed slug of any length is a 404 when the
  // catalog does not list it, never a 400 (only a malformed one is).
  slug: z
    .string()
    .min(1)
    .regex(COMMODITY_ID_PATTERN)
    .meta({
      description: 'Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.',
      examples: ['CRUDE_OIL_WTI'],
    }),
});

export const SeriesQuery = documented(
  z
    .strictObject({
      type: SeriesType.meta({ description: 'The series type (required).' }),
      // A rule beyond the schema, told to the contract tester (test/contract.e2e.spec.ts).
      start_date: dateParam(
        'First date; default one year before end_date',
        ' After end_date (given, or today by default) is a 400 naming start_date.',
      ),
      end_date: dateParam('Last date; default today (UTC)'),
      // A rule beyond the schema (it depends on the data), told to the contract tester too.
      frequency: Frequency.optional().meta({
        description:
          "Resample to this frequency; default the series' native one. Finer than native is a 400 naming frequency.",
      }),
      transform: Transform.default('none').meta({ description: 'Transform applied after resampling.' }),
      limit: integerParam(1, MAX_SERIES_LIMIT)
        .optional()
        .meta({ description: 'Maximum number of points, 1 to 10000, applied after sorting.' }),
      sort_order: SortOrder.default('asc').meta({ description: 'Sort by date.' }),
      as_of: asOf.meta({
        description:
          `${asOfDescription} Without end_date, end_date defaults to the date of as_of (UTC), so start_date to ` +
          'one year before it.',
        type: 'string',
        pattern: AS_OF_PATTERN,
        examples: ['2022-01-31', '2025-03-07T20:31:00Z'],
      }),
      first_release: z
        .enum(['true', 'false'])
        .transform((v) => v === 'true')
        .optional()
        .meta({
          description:
            'true: the first published version of every observation (with as_of: the first one published by ' +
            'then) instead of the newest. meta.first_release echoes it.',
          type: 'boolean',
        }),
      // A rule beyond the schema (the native frequency depends on the data), told to the contract tester too.
      include: z
        .enum(['revisions'])
        .optional()
        .meta({
          description:
            'revisions: each point carries `revisions`, its earlier versions (oldest first) with their ' +
            'published_at. Only at the native frequency and with transform=none; otherwise a 400 naming include.',
        }),
      // Rules beyond the schema (which currencies have rates, which units fit the commodity), told to the contract tester too.
      currency: z
        .string()
        .regex(CURRENCY_PATTERN, { message: 'must be a currency code of three capital letters, e.g. EUR' })
        .optional()
        .meta({
          description:
            'Convert prices to this currency (ISO 4217): any currency with euro reference rates, EUR, or USD. Each ' +
            "point uses the rate of its own date (daily), or the average of its week's or month's daily rates; with " +
            'as_of, the rates published by then. meta.conversion shows the working. A currency without rates is a ' +
            '400 naming currency, and so is currency on a series that is not a price.',
          examples: ['EUR'],
        }),
      unit: UnitParam.optional().meta({
        description:
          `Convert to this physical unit: ${MEASURE_NAMES.join(', ')} (bushels: corn and sorghum 56 lb, wheat and ` +
          'soybeans 60 lb, oats 32 lb), or a price unit <currency>/<measure> such as USD/t or USc/bu (US cents). ' +
          'A unit of another kind than the series (gold in bushels) is a 400 naming unit.',
        examples: ['t', 'USc/bu'],
      }),
    })
    .superRefine(startNotAfterEnd)
    .superRefine((q, ctx) => {
      if (q.include === 'revisions' && q.transform !== 'none') {
        ctx.addIssue({
          code: 'custom',
          path: ['include'],
          message: 'include=revisions needs transform=none (revisions are of the observations themselves)',
        });
      }
    }),
  { title: 'SeriesQuery' },
);

/** The opt-in analytics of a COT report (docs/decisions.md, "COT analytics"). */
export const COT_INCLUDES = ['changes', 'pct_of_oi', 'cot_index'] as const;
export type CotInclude = (typeof COT_INCLUDES)[number];
export const DEFAULT_INDEX_WEEKS = 156;
export const MIN_INDEX_WEEKS = 26;
export const MAX_INDEX_WEEKS = 520;

/** Every accepted `include` value, spelled out (each ordering of distinct names), for the OpenAPI document. */
function orderings(names: readonly string[]): string[] {
  if (names.length === 0) return [];
  return names.flatMap((n, i) => {
    const rest = names.filter((_, j) => j !== i);
    return [n, ...orderings(rest).map((o) => `${n},${o}`)];
  });
}
const INCLUDE_PATTERN = `^(${orderings(COT_INCLUDES).join('|')})$`;

/** `include`: a comma-separated list of distinct known analytics, none empty; parsed to that list. */
const cotInclude = z
  .string()
  .transform((raw, ctx) => {
    const names = raw.split(',');
    const seen = new Set<CotInclude>();
    for (const name of names) {
      if (!(COT_INCLUDES as readonly string[]).includes(name)) {
        ctx.addIssue({
          code: 'custom',
          message:
            name === ''
              ? `must be a comma-separated list of ${COT_INCLUDES.join(', ')} without empty entries`
              : `unknown value '${name.slice(0, 40)}': must be a comma-separated list of ${COT_INCLUDES.join(', ')}`,
        });
        return z.NEVER;
      }
      if (seen.has(name as CotInclude)) {
        ctx.addIssue({ code: 'custom', message: `'${name}' is listed twice` });
        return z.NEVER;
      }
      seen.add(name as CotInclude);
    }
    return COT_INCLUDES.filter((n) => seen.has(n));
  })
  .optional()
  .meta({
    description:
      'Opt-in analytics added to each report: a comma-separated list of distinct values from changes, pct_of_oi, ' +
      'cot_index (for example changes,pct_of_oi). An unknown, repeated or empty value is a 400 naming include. ' +
      'Without include the reports carry none of them.',
    type: 'string',
    pattern: INCLUDE_PATTERN,
  });

export const CotQuery = documented(
  z
    .strictObject({
      format: CotFormat.default('legacy').meta({
        description:
          'Report format: legacy, disaggregated, or cit (the Commodity Index Trader supplement, published for 13 ' +
          "agricultural markets: another commodity's cit is a 404 naming format; available_series lists cot_cit " +
          'where it is served).',
      }),
      scope: CotScope.optional().meta({
        description:
          'futures_only (the default for legacy and disaggregated) or futures_and_options (the combined reports; ' +
          'the only scope of cit, its default). The two are never mixed in one answer. cit with futures_only is a ' +
          '400 naming scope.',
      }),
      start_date: dateParam('Earliest report date', ' After end_date is a 400 naming start_date.'),
      end_date: dateParam('Latest report date'),
      sort_order: SortOrder.default('desc').meta({ description: 'Sort by report_date, desc by default.' }),
      page,
      per_page: perPage,
      include: cotInclude,
      index_weeks: integerParam(MIN_INDEX_WEEKS, MAX_INDEX_WEEKS)
        .default(DEFAULT_INDEX_WEEKS)
        .meta({
          description:
            'Window of cot_index in reports (weeks), 26 to 520, default 156 (three years). Used only with ' +
            'include=cot_index; accepted and ignored otherwise.',
        }),
      as_of: asOf.meta({
        description: `${asOfDescription} The analytics are computed over the reports of that view.`,
        type: 'string',
        pattern: AS_OF_PATTERN,
        examples: ['2025-03-07T20:31:00Z'],
      }),
    })
    .superRefine(startNotAfterEnd)
    .superRefine((q, ctx) => {
      if (q.format === 'cit' && q.scope === 'futures_only') {
        ctx.addIssue({
          code: 'custom',
          path: ['scope'],
          message:
            'the CIT supplement is published for futures and options combined only: omit scope or use futures_and_options',
        });
      }
    }),
  { title: 'CotQuery' },
);

export type ListCommoditiesQuery = z.infer<typeof ListCommoditiesQuery>;
export type SeriesQuery = z.infer<typeof SeriesQuery>;
export type CotQuery = z.infer<typeof CotQuery>;
export type CommodityPathParams = z.infer<typeof CommodityPathParams>;

/** Query parameter names allowed on every endpoint besides their own (the key, for quick testing). */
export const ALWAYS_ALLOWED_QUERY_PARAMS = ['api_key'] as const;

/** The detail takes no query parameters (besides the always-allowed ones). */
export const CommodityDetailQuery = z.strictObject({});

/** What a malformed path parameter is told (the message of its 400), by name. */
export const PATH_PARAM_RULES = {
  slug: 'a commodity id is UPPER_SNAKE_CASE, for example GOLD',
} as const;
