import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { documented } from './registry.ts';
import { priceBasisMeaning } from './sources.ts';

/** Upper snake case: letters/digits in words joined by single underscores, starting with a letter. */
export const COMMODITY_ID_PATTERN = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/**
 * The longest commodity id the catalog holds. A path's slug is bounded only by the URL: a
 * well-formed longer one names no commodity and is answered 404 without a database read.
 */
export const MAX_COMMODITY_ID_LENGTH = 64;
export const CommodityId = documented(z.string().min(1).max(MAX_COMMODITY_ID_LENGTH).regex(COMMODITY_ID_PATTERN), {
  id: 'CommodityId',
  description: 'Commodity identifier in UPPER_SNAKE_CASE, used as {slug} in paths.',
  examples: ['CRUDE_OIL_WTI'],
});

/** A strict YYYY-MM-DD string that is a real calendar date (2024-02-30 is rejected). */
export const IsoDate = documented(z.iso.date(), {
  id: 'Date',
  description: 'A calendar date, YYYY-MM-DD.',
  examples: ['2024-03-28'],
});

export const CATEGORIES = ['energy', 'metals', 'agriculture', 'softs'] as const;
export const Category = documented(z.enum(CATEGORIES), { id: 'Category', description: 'Commodity category.' });

/** Types a series request may ask for (the series endpoint's `type` enum). */
export const SERIES_TYPES = [
  'price',
  'volume',
  'open_interest',
  'production',
  'stocks',
  'yield',
  'planted_acres',
  'harvested_acres',
  'refinery_inputs',
  'ending_stocks',
] as const;
export const SeriesType = documented(z.enum(SERIES_TYPES), {
  id: 'SeriesType',
  description: 'A time series type served by GET /commodities/{slug}/series.',
});

export const COT_FORMATS = ['legacy', 'disaggregated', 'cit'] as const;
export const CotFormat = documented(z.enum(COT_FORMATS), {
  id: 'CotFormat',
  description:
    'COT report format: legacy, disaggregated, or cit (the Supplemental report: Commodity Index Trader positions).',
});

/** What a COT report counts: futures positions only, or futures and options combined (options delta-adjusted). */
export const COT_SCOPES = ['futures_only', 'futures_and_options'] as const;
export const CotScope = documented(z.enum(COT_SCOPES), {
  id: 'CotScope',
  description:
    'What a COT report counts: futures_only, or futures_and_options (futures plus delta-adjusted options, the ' +
    "CFTC's combined reports; the CIT supplement is published combined only).",
});

/**
 * The COT datasets: each a format in one scope, the unit that is stored, synced, announced and
 * listed in `available_series` (as `cot_<dataset>`). The futures-only datasets keep the format's
 * own name, so everything keyed before scopes existed (bucket ids, subjects, topics) is unchanged.
 */
export const COT_DATASETS = {
  legacy: { format: 'legacy', scope: 'futures_only' },
  disaggregated: { format: 'disaggregated', scope: 'futures_only' },
  legacy_combined: { format: 'legacy', scope: 'futures_and_options' },
  disaggregated_combined: { format: 'disaggregated', scope: 'futures_and_options' },
  cit: { format: 'cit', scope: 'futures_and_options' },
} as const satisfies Record<string, { format: (typeof COT_FORMATS)[number]; scope: (typeof COT_SCOPES)[number] }>;
export type CotDataset = keyof typeof COT_DATASETS;
export const COT_DATASET_NAMES = Object.keys(COT_DATASETS) as CotDataset[];

/** The scope a format is served in when a request names none: futures_only, and combined for cit (its only scope). */
export function defaultCotScope(format: (typeof COT_FORMATS)[number]): (typeof COT_SCOPES)[number] {
  return format === 'cit' ? 'futures_and_options' : 'futures_only';
}

/** The dataset of a format in a scope (a scope omitted: the format's default), or undefined when none is published (cit futures-only). */
export function cotDataset(
  format: (typeof COT_FORMATS)[number],
  scope: (typeof COT_SCOPES)[number] = defaultCotScope(format),
): CotDataset | undefined {
  return COT_DATASET_NAMES.find((d) => COT_DATASETS[d].format === format && COT_DATASETS[d].scope === scope);
}

/**
 * The dataset a COT batch, request or page reads: its format in its scope (absent: the format's
 * default). The one pair that is no dataset, cit futures-only, is refused before it gets here (by
 * CotQuery and the batch schema) and reads as cit.
 */
export function cotDatasetOf(x: {
  format: (typeof COT_FORMATS)[number];
  scope?: (typeof COT_SCOPES)[number] | undefined;
}): CotDataset {
  return cotDataset(x.format, x.scope) ?? x.format;
}

/** Descriptor types: the union of the series types and the COT datasets, `cot_<dataset>` (docs/decisions.md). */
const COT_SERIES_TYPES = [
  'cot_legacy',
  'cot_disaggregated',
  'cot_legacy_combined',
  'cot_disaggregated_combined',
  'cot_cit',
] as const satisfies readonly `cot_${CotDataset}`[];
/** The balance sheets of a commodity (GET /commodities/{slug}/supply-demand), as available_series lists them. */
export const SUPPLY_DEMAND_SERIES_TYPE = 'supply_demand';
export const AVAILABLE_SERIES_TYPES = [...SERIES_TYPES, ...COT_SERIES_TYPES, SUPPLY_DEMAND_SERIES_TYPE] as const;
export const AvailableSeriesType = documented(z.enum(AVAILABLE_SERIES_TYPES), {
  id: 'AvailableSeriesType',
  description:
    'A series a commodity offers: a time series type, or a COT dataset: cot_legacy / cot_disaggregated (futures ' +
    'only), cot_legacy_combined / cot_disaggregated_combined (futures and options combined), cot_cit (the ' +
    'Commodity Index Trader supplement, 13 agricultural markets), or supply_demand (USDA supply and demand balance sheets: first_date ' +
    'and last_date are the release dates of the first and newest edition held).',
});

/** The `available_series` type of a COT dataset. */
export function cotSeriesType(dataset: CotDataset): `cot_${CotDataset}` {
  return `cot_${dataset}`;
}

/** The COT dataset an `available_series` type names, or undefined for a time series type. */
export function cotDatasetOfType(type: string): CotDataset | undefined {
  const d = type.startsWith('cot_') ? type.slice(4) : undefined;
  return d !== undefined && d in COT_DATASETS ? (d as CotDataset) : undefined;
}

/**
 * The consistency checks run on every COT report (docs/decisions.md "COT consistency checks"). A
 * report that fails one is stored and served, and names it in `failed_checks`:
 * - `old_plus_other_equals_all`: the Old and Other crop-year columns add up to All, for open interest
 *   and every position, a spreading group as long + spreading and short + spreading (a spread across
 *   crop years is a long and a short in them); exactly in futures-only reports, within 1 contract per
 *   figure in combined ones, whose delta-adjusted options are rounded;
 * - `combined_oi_at_least_futures_only`: a combined report's open interest is not below the
 *   futures-only report's of the same market, date and format;
 * - `legacy_oi_equals_disaggregated_oi`: legacy and disaggregated open interest agree for the same
 *   market, date and scope.
 */
export const COT_CHECKS = [
  'old_plus_other_equals_all',
  'combined_oi_at_least_futures_only',
  'legacy_oi_equals_disaggregated_oi',
] as const;
export const CotCheck = documented(z.enum(COT_CHECKS), {
  id: 'CotCheck',
  description:
    'A consistency check on a COT report: old_plus_other_equals_all (Old + Other crop years = All, within 1 ' +
    'contract per figure in combined reports), combined_oi_at_least_futures_only, legacy_oi_equals_disaggregated_oi.',
});

/**
 * What a price number is (docs/sources.md "Price basis"): none of the free official sources
 * publishes futures OHLCV, so each price series says which kind of price it carries.
 */
export const PRICE_BASES = [
  'spot',
  'cash',
  'monthly_average',
  'received_by_farmers',
  'futures_settlement',
  'demo',
] as const;
const PRICE_BASIS_TEXTS = PRICE_BASES.map((b) => `\`${b}\` (${priceBasisMeaning(b)})`);
export const PriceBasis = documented(z.enum(PRICE_BASES), {
  id: 'PriceBasis',
  // each basis as the row of the source giving it says (sources.ts SOURCES priceBasis)
  description: `What a price series is: ${PRICE_BASIS_TEXTS.slice(0, -1).join(', ')} or ${PRICE_BASIS_TEXTS.at(-1)}.`,
});

export const FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;
export const Frequency = documented(z.enum(FREQUENCIES), { id: 'Frequency', description: 'Sampling frequency.' });

/** Rank of a frequency: a request may ask for a coarser (higher rank) frequency, never a finer one. */
export const FREQUENCY_RANK: Readonly<Record<Frequency, number>> = { daily: 0, weekly: 1, monthly: 2 };

export const TRANSFORMS = ['none', 'change', 'pct_change', 'cumulative'] as const;
export const Transform = documented(z.enum(TRANSFORMS), {
  id: 'Transform',
  description: 'none, change (v[t]-v[t-1]), pct_change (percent), cumulative (running sum).',
});

export const SORT_ORDERS = ['asc', 'desc'] as const;
export const SortOrder = documented(z.enum(SORT_ORDERS), { id: 'SortOrder', description: 'Sort direction.' });

/** `<currency>/<unit>`, for example USD/bbl or USc/bu. */
export const Unit = documented(
  z
    .string()
    .regex(/^[A-Za-z]{2,4}\/\S.*$/)
    .max(40),
  {
    id: 'Unit',
    description: 'Unit of price, shaped `<currency>/<unit>`, for example `USD/bbl`.',
    examples: ['USD/bbl'],
  },
);

/**
 * The fields that name and classify a commodity: the head of the catalog event's entry, and the whole
 * of the API's summary of it, so that what the catalog accepts the listing can always answer.
 */
export const commodityHeadFields = {
  id: CommodityId,
  name: z.string().min(1).max(200),
  symbol: z.string().min(1).max(20).optional(),
  category: Category,
  exchange: z.string().min(1).max(20).optional(),
  unit: Unit.optional(),
};

export const RequestId = documented(z.string().min(1).max(128), {
  id: 'RequestId',
  description: 'Unique request identifier for support and debugging; also sent as X-Request-Id.',
});

/**
 * API keys (docs/decisions.md "Keys"). Issued now: `cds_` + 30 random base62 characters (178 bits) +
 * 6 base62 characters of the CRC32 of everything before them, so secret scanners find a key by its
 * prefix and tell it from random text by its checksum (GitHub's token format). Issued before, and
 * still accepted: 40 lowercase hexadecimal characters. Both are 40 characters long.
 */
export const API_KEY_PREFIX = 'cds_';
export const API_KEY_LENGTH = 40;
/** Either shape; a `cds_` key must also carry its checksum (isWellFormedApiKey). Linear: no nesting. */
export const API_KEY_PATTERN = /^(?:cds_[0-9A-Za-z]{36}|[0-9a-f]{40})$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_RANDOM_CHARS = API_KEY_LENGTH - API_KEY_PREFIX.length - 6;

/** The 6 base62 characters (most significant first, zero-padded) of the CRC32 of `body`. */
function keyChecksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * True when `key` has one of the two shapes and, for a `cds_` key, the right checksum: the gateway
 * refuses anything else without a lookup. Constant work: the length is checked first.
 */
export function isWellFormedApiKey(key: string): boolean {
  if (key.length !== API_KEY_LENGTH || !API_KEY_PATTERN.test(key)) return false;
  if (!key.startsWith(API_KEY_PREFIX)) return true;
  return keyChecksum(key.slice(0, API_KEY_LENGTH - 6)) === key.slice(API_KEY_LENGTH - 6);
}

/** A new key from `random` (e.g. crypto.randomBytes): each character drawn without modulo bias. */
export function generateApiKey(random: (n: number) => Uint8Array): string {
  let body = API_KEY_PREFIX;
  while (body.length < API_KEY_PREFIX.length + KEY_RANDOM_CHARS) {
    for (const byte of random(KEY_RANDOM_CHARS)) {
      // 248 = 4 × 62: bytes from 248 up would favour the first 8 characters; they are drawn again.
      if (byte < 248 && body.length < API_KEY_PREFIX.length + KEY_RANDOM_CHARS) body += BASE62[byte % 62];
    }
  }
  return body + keyChecksum(body);
}

export const ApiKey = z.string().refine(isWellFormedApiKey, 'not an API key');

/** Hex SHA-256 digest (64 lowercase hex). */
export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

export type CommodityId = z.infer<typeof CommodityId>;
export type IsoDate = z.infer<typeof IsoDate>;
export type Category = z.infer<typeof Category>;
export type SeriesType = z.infer<typeof SeriesType>;
export type CotFormat = z.infer<typeof CotFormat>;
export type CotScope = z.infer<typeof CotScope>;
export type CotCheck = z.infer<typeof CotCheck>;
export type AvailableSeriesType = z.infer<typeof AvailableSeriesType>;
export type Frequency = z.infer<typeof Frequency>;
export type PriceBasis = z.infer<typeof PriceBasis>;
export type Transform = z.infer<typeof Transform>;
export type SortOrder = z.infer<typeof SortOrder>;
