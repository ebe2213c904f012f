import { z } from 'zod';
import { documented } from './registry.ts';
import {
  AvailableSeriesType,
  CommodityId,
  commodityHeadFields,
  COT_CHECKS,
  CotCheck,
  CotScope,
  Frequency,
  IsoDate,
  PriceBasis,
  RequestId,
  SeriesType,
  Transform,
} from './primitives.ts';
import { CITED, identifierShape, SOURCE_IDENTIFIERS } from './sources.ts';
import { Conversion } from './conversion.ts';
import { SupplyDemandRegion } from './supply-demand.ts';

const nonNegativeInt = z.int().min(0);

/**
 * Provenance fields, optional beside the spec's: where the numbers came from and when the newest
 * of them was ingested.
 */
const provenance = {
  source: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({
      description:
        `Where the numbers come from: ${Object.values(SOURCE_IDENTIFIERS)
          .map((row) => `${row.provenance}, `)
          .join('')}` +
        'or `demo` for generated demonstration data that comes from no official source. Absent when unknown.',
    }),
  last_updated: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({
      description:
        'When the newest of these numbers was ingested by this service (RFC 3339), not when the source published ' +
        'them. Absent when unknown.',
    }),
};

/**
 * When a number was published and first seen (docs/point-in-time.md): optional, absent on data
 * stored before versions were kept. Not CSV columns (csv.ts leaves them out).
 */
const publication = {
  published_at: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({
      description:
        'When the source published this version (RFC 3339): the release that carried it, from the source when it ' +
        `says (${CITED.statedPublication}) or from the release calendar ` +
        '(published_at_estimated). A resampled or transformed point carries the latest of the observations it ' +
        'comes from.',
    }),
  first_seen_at: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'When this service first ingested that release (RFC 3339).' }),
  published_at_estimated: z
    .boolean()
    .optional()
    .meta({
      description:
        'Present (true) when published_at is estimated (a release calendar, or the ingest time) rather than ' +
        'stated by the source.',
    }),
};

/** The publication fields of a point or report: never CSV columns (the CSV keeps its columns). */
export const PUBLICATION_FIELDS = ['published_at', 'first_seen_at', 'published_at_estimated', 'revisions'] as const;

/** What a series' numbers are and how to cite them, beside the provenance of series descriptors and meta. */
const seriesTerms = {
  price_basis: PriceBasis.optional().meta({
    description:
      'Price series only: what the numbers are (`spot`, `cash`, `monthly_average`, `received_by_farmers`, ' +
      '`futures_settlement`, `demo`; docs/sources.md). Absent on other series types and when unknown.',
  }),
  attribution: z
    .string()
    .max(300)
    .optional()
    .meta({
      description:
        `The source's name and the terms of its data, as its licence asks to cite it (e.g. \`${CITED.attribution}\`). ` +
        'Absent when `source` is.',
    }),
};

export const CommodityIdentifiers = documented(
  z.object(
    identifierShape(
      () => z.array(z.string()),
      (schema, row) => schema.meta({ description: row.description }),
    ),
  ),
  {
    id: 'CommodityIdentifiers',
    description:
      "The commodity's identifiers at its official sources, so any number can be checked against the source a " +
      '`source` field names.',
  },
);

export const CommoditySummary = documented(z.object(commodityHeadFields), {
  id: 'CommoditySummary',
  description: 'A commodity as listed by GET /commodities.',
});

export const SeriesDescriptor = documented(
  z
    .object({
      type: AvailableSeriesType,
      frequency: Frequency,
      first_date: IsoDate,
      last_date: IsoDate,
      ...seriesTerms,
      ...provenance,
      first_published_at: z.iso
        .datetime({ offset: true })
        .optional()
        .meta({
          description:
            'The earliest publication this service holds of the series (RFC 3339): the earliest as_of it answers. ' +
            'Absent when it holds no point-in-time data for it yet.',
        }),
      regions: z
        .array(SupplyDemandRegion)
        .optional()
        .meta({
          description:
            'supply_demand only: the regions the commodity has balance sheets for (the region parameter of ' +
            'GET /commodities/{slug}/supply-demand), sorted.',
        }),
    })
    .refine((d) => d.first_date <= d.last_date, {
      message: 'first_date must not be after last_date',
      path: ['first_date'],
    }),
  { id: 'SeriesDescriptor', description: 'A data series offered for a commodity, with its date range.' },
);

export const CommodityDetail = documented(
  CommoditySummary.extend({
    description: z.string().max(4000).optional(),
    contract_size: z.string().max(200).optional(),
    tick_size: z.number().positive().optional(),
    available_series: z.array(SeriesDescriptor).optional(),
    identifiers: CommodityIdentifiers.optional(),
    price_note: z
      .string()
      .max(1000)
      .optional()
      .meta({
        description:
          'Present when the commodity has no price series because no free official source publishes one, ' +
          'saying why and what comes closest.',
      }),
  }),
  { id: 'CommodityDetail', description: 'A commodity with contract details and every series it offers.' },
);

const pointValues = {
  value: z.number(),
  open: z.number().optional(),
  high: z.number().optional(),
  low: z.number().optional(),
  close: z.number().optional(),
  volume: nonNegativeInt.optional(),
};

export const SeriesRevision = documented(z.object({ ...pointValues, ...publication }), {
  id: 'SeriesRevision',
  description: 'An earlier version of an observation (include=revisions), with the release that published it.',
});

export const TimeSeriesPoint = documented(
  z.object({
    date: IsoDate,
    ...pointValues,
    value: z
      .number()
      .nullable()
      .meta({
        description:
          'The closing price, or the transformed value. null only with currency: the point had no exchange rate ' +
          '(meta.conversion.currency.missing counts them).',
      }),
    fx_rate: z
      .number()
      .positive()
      .optional()
      .meta({
        description:
          'With currency: the rate this point was converted with (units of the target currency per unit of the ' +
          "source's; through the euro cross when neither is the euro). Absent when the value is null.",
      }),
    fx_rate_date: IsoDate.optional().meta({
      description:
        "With currency on a daily series, when the point's own date has no rate: the date of the rate used, the " +
        'latest earlier one at most 5 days back (carried). Absent when the rate is of the point’s own date.',
    }),
    ...publication,
    revisions: z
      .array(SeriesRevision)
      .optional()
      .meta({
        description:
          'With include=revisions: the versions of this observation before the one shown, oldest first (empty when ' +
          'it was never revised; with as_of, those published by then).',
      }),
  }),
  {
    id: 'TimeSeriesPoint',
    description:
      'One observation. value is the closing price, or the transformed value when a transform is applied; ' +
      'open/high/low/close/volume appear on untransformed price series only.',
  },
);

const pointInTimeMeta = {
  as_of: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'With as_of: the instant the answer is as of (RFC 3339, UTC).' }),
};

export const SeriesMeta = documented(
  z.object({
    commodity_id: CommodityId,
    type: SeriesType,
    frequency: Frequency,
    unit: z.string().max(40).optional(),
    transform: Transform,
    count: nonNegativeInt,
    request_id: RequestId,
    ...seriesTerms,
    ...provenance,
    ...pointInTimeMeta,
    first_release: z
      .literal(true)
      .optional()
      .meta({ description: 'With first_release=true: each point is the first published version.' }),
    conversion: Conversion.optional(),
  }),
  { id: 'SeriesMeta', description: 'Metadata of a series response.' },
);

const netIsLongMinusShort = (g: { long: number; short: number; net: number }) => g.net === g.long - g.short;
const netMessage = { message: 'net must equal long - short', path: ['net'] };

export const PositionGroup = documented(
  z.object({ long: nonNegativeInt, short: nonNegativeInt, net: z.int() }).refine(netIsLongMinusShort, netMessage),
  {
    id: 'PositionGroup',
    description: 'Positions of a trader group without spreading. net = long - short.',
  },
);

export const PositionGroupWithSpreading = documented(
  z
    .object({ long: nonNegativeInt, short: nonNegativeInt, spreading: nonNegativeInt, net: z.int() })
    .refine(netIsLongMinusShort, netMessage),
  {
    id: 'PositionGroupWithSpreading',
    description: 'Positions of a trader group that also holds spreads. net = long - short.',
  },
);

export const NetOnlyPositionGroup = documented(
  z.object({ long: nonNegativeInt, short: nonNegativeInt, net: z.int() }).refine(netIsLongMinusShort, netMessage),
  {
    id: 'NetOnlyPositionGroup',
    description: 'Non-reportable positions (the net only variant): long, short and net = long - short.',
  },
);

const reportBase = {
  report_date: IsoDate,
  commodity: CommodityId,
  exchange: z.string().min(1).max(20).optional(),
  open_interest: nonNegativeInt,
  scope: CotScope.optional().meta({
    description:
      'What the report counts: futures_only, or futures_and_options (the combined reports and the CIT supplement). ' +
      'Every report of an answer has the scope the request asked for (scope; default futures_only, combined for cit).',
  }),
  failed_checks: z
    .array(CotCheck)
    .min(1)
    .max(COT_CHECKS.length)
    .optional()
    .meta({
      description:
        'The consistency checks this report failed (docs/decisions.md "COT consistency checks"); absent when it ' +
        'passed every check that could be run. A report that fails is served as the CFTC published it.',
    }),
  ...provenance,
  ...publication,
};

// --- COT analytics (opt-in with include=…; docs/decisions.md "COT analytics") -----------------

const changeInt = z.int();
const ChangeOf = documented(z.object({ long: changeInt, short: changeInt, net: changeInt }), {
  id: 'CotGroupChange',
  description: "Change of a group's long, short and net since the previous report (this minus previous).",
});
const ChangeOfWithSpreading = documented(
  z.object({ long: changeInt, short: changeInt, spreading: changeInt, net: changeInt }),
  {
    id: 'CotGroupChangeWithSpreading',
    description: "Change of a group's long, short, spreading and net since the previous report (this minus previous).",
  },
);
const pct = z.number().min(0);
const PctOf = documented(z.object({ long: pct, short: pct }), {
  id: 'CotGroupPctOfOi',
  description:
    "A group's long and short as a percent of open interest: round(100 × value / open_interest, 1), half away " +
    `from zero (as ${CITED.cotPercentages}, bar one published cell: docs/decisions.md). Can exceed 100 only if the source does.`,
});
const PctOfWithSpreading = documented(z.object({ long: pct, short: pct, spreading: pct }), {
  id: 'CotGroupPctOfOiWithSpreading',
  description:
    "A group's long, short and spreading as a percent of open interest: round(100 × value / open_interest, 1), " +
    `half away from zero (as ${CITED.cotPercentages}, bar one published cell: docs/decisions.md).`,
});
const indexValue = z.number().min(0).max(100).nullable();

const changesDescription =
  'Present with include=changes, except on the first report of the commodity in this format. Each value is this ' +
  "report's minus the previous report's (the previous report of the same commodity and format, even when it lies " +
  'outside the requested dates or page); net = long - short, so its change is the change of long minus that of short. ' +
  'Example: previous commercial long 100, short 250; this report 120, 240 → {long: 20, short: -10, net: 30}.';
const pctDescription =
  'Present with include=pct_of_oi when open_interest is above 0. Example: long 123,456 of open interest 400,000 → 30.9 ' +
  '(30.864); 0.05 % would print 0.1 (half away from zero).';
const indexDescription =
  'Present with include=cot_index when the commodity has at least index_weeks reports in this format up to and ' +
  "including this one (absent before). For each group: (net - min) / (max - min) × 100 over the group's net in those " +
  'index_weeks reports, rounded to one decimal half away from zero; null when max = min (every net in the window is ' +
  'the same). Example: nets 10, 30, 20 with index_weeks 3 → (20 - 10) / (30 - 10) × 100 = 50.';

function analytics<P extends z.ZodRawShape, S extends z.ZodRawShape, I extends z.ZodRawShape>(
  name: string,
  changes: P,
  pctOfOi: S,
  index: I,
) {
  return {
    changes: documented(z.strictObject({ open_interest: changeInt, ...changes }), {
      id: `${name}CotChanges`,
      description: changesDescription,
    }).optional(),
    pct_of_oi: documented(z.strictObject(pctOfOi), { id: `${name}CotPctOfOi`, description: pctDescription }).optional(),
    cot_index: documented(z.strictObject(index), { id: `${name}CotIndex`, description: indexDescription }).optional(),
  };
}

const legacyAnalytics = analytics(
  'Legacy',
  { commercial: ChangeOf, non_commercial: ChangeOfWithSpreading, non_reportable: ChangeOf },
  { commercial: PctOf, non_commercial: PctOfWithSpreading, non_reportable: PctOf },
  { commercial: indexValue, non_commercial: indexValue, non_reportable: indexValue },
);

const disaggregatedAnalytics = analytics(
  'Disaggregated',
  {
    producer_merchant: ChangeOf,
    swap_dealer: ChangeOfWithSpreading,
    managed_money: ChangeOfWithSpreading,
    other_reportable: ChangeOfWithSpreading,
  },
  {
    producer_merchant: PctOf,
    swap_dealer: PctOfWithSpreading,
    managed_money: PctOfWithSpreading,
    other_reportable: PctOfWithSpreading,
  },
  { producer_merchant: indexValue, swap_dealer: indexValue, managed_money: indexValue, other_reportable: indexValue },
);

/** A legacy report carries exactly commercial, non_commercial and non_reportable. */
export const LegacyCotReport = documented(
  z.strictObject({
    ...reportBase,
    format: z.literal('legacy'),
    commercial: PositionGroup,
    non_commercial: PositionGroupWithSpreading,
    non_reportable: NetOnlyPositionGroup,
    ...legacyAnalytics,
  }),
  { id: 'LegacyCotReport', description: 'A Commitments of Traders report in the legacy format.' },
);

/** A disaggregated report carries exactly producer_merchant, swap_dealer, managed_money, other_reportable. */
export const DisaggregatedCotReport = documented(
  z.strictObject({
    ...reportBase,
    format: z.literal('disaggregated'),
    producer_merchant: PositionGroup,
    swap_dealer: PositionGroupWithSpreading,
    managed_money: PositionGroupWithSpreading,
    other_reportable: PositionGroupWithSpreading,
    ...disaggregatedAnalytics,
  }),
  { id: 'DisaggregatedCotReport', description: 'A Commitments of Traders report in the disaggregated format.' },
);

const citAnalytics = analytics(
  'Cit',
  { commercial: ChangeOf, non_commercial: ChangeOfWithSpreading, index_traders: ChangeOf, non_reportable: ChangeOf },
  { commercial: PctOf, non_commercial: PctOfWithSpreading, index_traders: PctOf, non_reportable: PctOf },
  { commercial: indexValue, non_commercial: indexValue, index_traders: indexValue, non_reportable: indexValue },
);

/**
 * A CIT supplement report (futures and options combined) carries exactly commercial and
 * non_commercial (both excluding the index traders: the CFTC's NoCIT columns), index_traders and
 * non_reportable.
 */
export const CitCotReport = documented(
  z.strictObject({
    ...reportBase,
    format: z.literal('cit'),
    commercial: PositionGroup.meta({ description: 'Commercial positions excluding index traders (NoCIT).' }),
    non_commercial: PositionGroupWithSpreading.meta({
      description: 'Non-commercial positions excluding index traders (NoCIT).',
    }),
    index_traders: PositionGroup.meta({ description: 'Commodity Index Trader positions.' }),
    non_reportable: NetOnlyPositionGroup,
    ...citAnalytics,
  }),
  {
    id: 'CitCotReport',
    description:
      'A Commodity Index Trader supplement report (the CFTC Supplemental report, futures and options combined).',
  },
);

export const CotReport = documented(
  z.discriminatedUnion('format', [LegacyCotReport, DisaggregatedCotReport, CitCotReport]),
  {
    id: 'CotReport',
    description: 'A positioning (COT) report; the groups present depend on format.',
  },
);

const pagination = {
  page: z.int().min(1),
  per_page: z.int().min(1).max(100),
  total: nonNegativeInt,
  total_pages: nonNegativeInt,
};
const totalPagesRule: [
  (m: { total: number; per_page: number; total_pages: number }) => boolean,
  { message: string; path: string[] },
] = [
  (m) => m.total_pages === Math.ceil(m.total / m.per_page),
  { message: 'total_pages must be ceil(total / per_page)', path: ['total_pages'] },
];

export const PaginationMeta = documented(z.object({ ...pagination, request_id: RequestId }).refine(...totalPagesRule), {
  id: 'PaginationMeta',
  description: 'Pagination of a list response. total_pages = ceil(total / per_page).',
});

export const CotMeta = documented(
  z.object({ ...pagination, ...pointInTimeMeta, request_id: RequestId }).refine(...totalPagesRule),
  {
    id: 'CotMeta',
    description: 'Pagination of the COT reports (total_pages = ceil(total / per_page)) and, with as_of, its instant.',
  },
);

export const RequestMeta = documented(z.object({ request_id: RequestId }), {
  id: 'RequestMeta',
  description: 'Metadata of a single-resource response.',
});

export const CommodityListResponse = documented(z.object({ data: z.array(CommoditySummary), meta: PaginationMeta }), {
  id: 'CommodityListResponse',
});
export const CommodityDetailResponse = documented(z.object({ data: CommodityDetail, meta: RequestMeta }), {
  id: 'CommodityDetailResponse',
});
export const SeriesResponse = documented(z.object({ data: z.array(TimeSeriesPoint), meta: SeriesMeta }), {
  id: 'SeriesResponse',
});
export const CotResponse = documented(z.object({ data: z.array(CotReport), meta: CotMeta }), {
  id: 'CotResponse',
});

export type CommoditySummary = z.infer<typeof CommoditySummary>;
export type CommodityDetail = z.infer<typeof CommodityDetail>;
export type CommodityIdentifiers = z.infer<typeof CommodityIdentifiers>;
export type SeriesDescriptor = z.infer<typeof SeriesDescriptor>;
export type TimeSeriesPoint = z.infer<typeof TimeSeriesPoint>;
export type SeriesMeta = z.infer<typeof SeriesMeta>;
export type PositionGroup = z.infer<typeof PositionGroup>;
export type PositionGroupWithSpreading = z.infer<typeof PositionGroupWithSpreading>;
export type LegacyCotReport = z.infer<typeof LegacyCotReport>;
export type DisaggregatedCotReport = z.infer<typeof DisaggregatedCotReport>;
export type CitCotReport = z.infer<typeof CitCotReport>;
export type CotReport = z.infer<typeof CotReport>;
export type PaginationMeta = z.infer<typeof PaginationMeta>;
export type CotMeta = z.infer<typeof CotMeta>;
export type SeriesRevision = z.infer<typeof SeriesRevision>;
export type CommodityListResponse = z.infer<typeof CommodityListResponse>;
export type CommodityDetailResponse = z.infer<typeof CommodityDetailResponse>;
export type SeriesResponse = z.infer<typeof SeriesResponse>;
export type CotResponse = z.infer<typeof CotResponse>;
