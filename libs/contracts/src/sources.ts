import type { z } from 'zod';

/**
 * The public facts of every data source, one row each: what the API and the docs say about it.
 * A source's code lives in `services/ingest/src/sources/<name>/`, and the ingest registry
 * (`services/ingest/src/sources/registry.ts`) checks at type level that each registered source has
 * its row here. Every other list of sources (the sync status names, attributions, licences, the
 * release calendars in `@cds/schedule`) is derived from this table; docs/adding-a-source.md says
 * how to add one.
 */
export interface SourceFacts {
  /** How the API names it, e.g. in GET /status: `cftc` (CFTC Commitments of Traders). */
  title: string;
  /** How it asks to be cited (served with every series), when it is a publisher. */
  attribution?: string;
  /** The licence of its data (bulk files), when it is a publisher. */
  licence?: string;
  /** The licence line a snapshot manifest carries for it (data/snapshot/SOURCES.md). */
  snapshotLicence?: string;
  /**
   * Kept up to date by `ingest sync` on its publisher's release calendar (`@cds/schedule`
   * `SOURCE_CALENDARS`), its freshness reported by GET /status.
   */
  synced: boolean;
  /** The publisher's release calendar, for a synced source. */
  calendar?: SourceCalendar;
  /** The kind of price its price series are (PRICE_BASES), and what that means, as the API reference says it. */
  priceBasis?: { basis: string; meaning: string };
  /** Its datasets (GET /datasets, GET /releases): each report kind it publishes, for a publisher. */
  datasets?: readonly DatasetFacts[];
}

/**
 * Which stored data belong to a dataset: series by provenance prefix (`eia:`, `ams:LM_HG201`) and
 * optionally frequency and series type; the COT reports of one COT dataset; or the supply and demand
 * balance sheets.
 */
export type DatasetSelector =
  | { kind: 'series'; provenance: string; frequency?: 'daily' | 'weekly' | 'monthly'; seriesType?: string }
  | { kind: 'cot'; dataset: string }
  | { kind: 'supply_demand' };

/** One dataset of a source: a report kind the agency publishes on one calendar. */
export interface DatasetFacts {
  /** How the API names it: snake_case, starting with its source's name (`eia_spot_prices`). */
  id: string;
  /** What it is, as the status page titles it. */
  title: string;
  /**
   * The release rule of its calendar: the source's own rule unless told; `null` when no rule can
   * compute the agency's dates (its releases are then the ones observed, never late or missing).
   */
  rule?: ReleaseRule | null;
  /** The stored data it covers (the first selector that matches a batch wins, in table order). */
  select: readonly DatasetSelector[];
}

/**
 * The release rules `@cds/schedule` computes a publisher's releases with (RELEASE_RULES there):
 * the CFTC's weekly Commitments of Traders, EIA's Weekly Petroleum Status Report, NASS's
 * quarter-end reports, the World Bank's monthly Pink Sheet, AMS's daily LM_HG201 and USDA's monthly
 * World Agricultural Supply and Demand Estimates (12:00 New York on the dates of its published calendar), and
 * the ECB's euro foreign exchange reference rates (about 16:00 Frankfurt time on every TARGET day).
 */
export const RELEASE_RULES = [
  'cot-weekly',
  'wpsr-weekly',
  'quarter-end-reports',
  'pink-sheet-monthly',
  'lm-hg201-daily',
  'supply-demand-monthly',
  'fx-reference-daily',
] as const;
export type ReleaseRule = (typeof RELEASE_RULES)[number];

/** When a synced source publishes, and how late it may post. */
export interface SourceCalendar {
  /** The rule its releases follow. */
  rule: ReleaseRule;
  /**
   * How long after a release's scheduled time the synced data may still lack it before the source
   * counts as late: the CronJob runs 5 minutes after the release, a sync takes minutes, and the
   * publishers sometimes post late; two hours (CFTC: 17:30 ET on a Friday) leave room for a retry.
   */
  lateGraceHours: number;
  /** The newest observation date a release carries, as GET /status's reference says it. */
  dataDate?: string;
}

const PUBLIC_DOMAIN = 'Public domain (U.S. government work, 17 U.S.C. § 105)';

/** Every source, in the order the API lists them (GET /status) and `ingest sync` runs them. */
export const SOURCES = {
  cftc: {
    title: 'CFTC Commitments of Traders',
    attribution: 'U.S. Commodity Futures Trading Commission: Commitments of Traders (public domain)',
    licence: PUBLIC_DOMAIN,
    snapshotLicence: 'U.S. Commodity Futures Trading Commission: public domain (U.S. government work)',
    synced: true,
    calendar: { rule: 'cot-weekly', lateGraceHours: 2, dataDate: 'COT the Tuesday positions of its week' },
    datasets: [
      { id: 'cftc_legacy', title: 'COT legacy, futures only', select: [{ kind: 'cot', dataset: 'legacy' }] },
      {
        id: 'cftc_legacy_combined',
        title: 'COT legacy, futures and options combined',
        select: [{ kind: 'cot', dataset: 'legacy_combined' }],
      },
      {
        id: 'cftc_disaggregated',
        title: 'COT disaggregated, futures only',
        select: [{ kind: 'cot', dataset: 'disaggregated' }],
      },
      {
        id: 'cftc_disaggregated_combined',
        title: 'COT disaggregated, futures and options combined',
        select: [{ kind: 'cot', dataset: 'disaggregated_combined' }],
      },
      {
        id: 'cftc_cit',
        title: 'COT supplemental (Commodity Index Traders)',
        select: [{ kind: 'cot', dataset: 'cit' }],
      },
      {
        id: 'cftc_open_interest',
        title: 'COT open interest series',
        select: [{ kind: 'series', provenance: 'cftc:' }],
      },
    ],
  },
  eia: {
    title: 'U.S. Energy Information Administration',
    attribution: 'Source: U.S. Energy Information Administration (public domain)',
    licence: PUBLIC_DOMAIN,
    snapshotLicence:
      'U.S. Energy Information Administration: public domain (U.S. government work); cite "Source: U.S. EIA"',
    synced: true,
    calendar: {
      rule: 'wpsr-weekly',
      lateGraceHours: 2,
      dataDate: 'the EIA Weekly Petroleum Status Report the week ending the Friday before',
    },
    datasets: [
      {
        id: 'eia_spot_prices',
        title: 'EIA daily spot prices (updated weekly)',
        select: [{ kind: 'series', provenance: 'eia:', frequency: 'daily' }],
      },
      {
        id: 'eia_weekly',
        title: 'EIA weekly petroleum and gas series',
        select: [{ kind: 'series', provenance: 'eia:', frequency: 'weekly' }],
      },
      {
        id: 'eia_monthly',
        title: 'EIA monthly series',
        rule: null,
        select: [{ kind: 'series', provenance: 'eia:', frequency: 'monthly' }],
      },
    ],
    priceBasis: { basis: 'spot', meaning: 'a daily spot price at a named delivery point, e.g. EIA WTI Cushing' },
  },
  nass: {
    title: 'USDA National Agricultural Statistics Service',
    attribution: 'USDA National Agricultural Statistics Service: Quick Stats (public domain)',
    licence: PUBLIC_DOMAIN,
    snapshotLicence: 'USDA National Agricultural Statistics Service: public domain (U.S. government work)',
    synced: true,
    calendar: {
      rule: 'quarter-end-reports',
      lateGraceHours: 2,
      dataDate: 'NASS quarter-end Grain Stocks the first of their month',
    },
    datasets: [
      {
        id: 'nass_prices_received',
        title: 'NASS prices received by farmers (Agricultural Prices)',
        rule: null,
        select: [{ kind: 'series', provenance: 'nass:', seriesType: 'price' }],
      },
      {
        id: 'nass_quarterly_reports',
        title: 'NASS Grain Stocks, Acreage and Prospective Plantings',
        select: [{ kind: 'series', provenance: 'nass:' }],
      },
    ],
    priceBasis: { basis: 'received_by_farmers', meaning: 'the USDA NASS monthly average price received by farmers' },
  },
  ams: {
    title: 'USDA Agricultural Marketing Service: Market News',
    attribution: 'USDA Agricultural Marketing Service: Market News (public domain)',
    licence: PUBLIC_DOMAIN,
    snapshotLicence: 'USDA Agricultural Marketing Service: public domain (U.S. government work)',
    synced: true,
    calendar: { rule: 'lm-hg201-daily', lateGraceHours: 2 },
    datasets: [
      {
        id: 'ams_lm_hg201',
        title: 'AMS daily direct slaughtered swine (LM_HG201)',
        select: [{ kind: 'series', provenance: 'ams:LM_HG201' }],
      },
      {
        id: 'ams_market_news',
        title: 'AMS Market News, other reports',
        rule: null,
        select: [{ kind: 'series', provenance: 'ams:' }],
      },
    ],
    priceBasis: { basis: 'cash', meaning: 'a negotiated cash or announced class price from a USDA AMS market report' },
  },
  worldbank: {
    title: 'World Bank Commodity Price Data, the Pink Sheet',
    attribution: 'The World Bank: Commodity Price Data (The Pink Sheet), CC BY 4.0',
    licence: 'CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)',
    snapshotLicence:
      'The World Bank: Commodity Price Data (The Pink Sheet), CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)',
    synced: true,
    // The Pink Sheet has no announced hour and was seen posted late in the afternoon: until 18:00 ET the next day.
    calendar: { rule: 'pink-sheet-monthly', lateGraceHours: 30 },
    datasets: [
      {
        id: 'worldbank_pink_sheet',
        title: 'World Bank Pink Sheet monthly prices',
        select: [{ kind: 'series', provenance: 'worldbank:' }],
      },
    ],
    priceBasis: {
      basis: 'monthly_average',
      meaning: 'the monthly average of a benchmark price, e.g. the World Bank Pink Sheet',
    },
  },
  wasde: {
    title: 'USDA World Agricultural Supply and Demand Estimates (WASDE)',
    attribution:
      'USDA World Agricultural Outlook Board: World Agricultural Supply and Demand Estimates (public domain)',
    licence: PUBLIC_DOMAIN,
    snapshotLicence: 'USDA World Agricultural Outlook Board: public domain (U.S. government work)',
    synced: true,
    calendar: { rule: 'supply-demand-monthly', lateGraceHours: 2 },
    datasets: [{ id: 'wasde', title: 'WASDE supply and demand balance sheets', select: [{ kind: 'supply_demand' }] }],
  },
  ecb: {
    title: 'ECB euro foreign exchange reference rates',
    // The ECB's reuse terms: free, provided the source is acknowledged and the statistics are not altered.
    attribution: 'Source: ECB statistics',
    licence: 'ECB statistics: free reuse with the source acknowledged, the statistics not altered',
    snapshotLicence:
      'European Central Bank: euro foreign exchange reference rates, free reuse with the source acknowledged ("Source: ECB statistics"); converted values are derived data',
    synced: true,
    calendar: { rule: 'fx-reference-daily', lateGraceHours: 2, dataDate: 'ECB the rates of the day of the release' },
    datasets: [
      {
        id: 'ecb_reference_rates',
        title: 'ECB euro foreign exchange reference rates',
        select: [{ kind: 'series', provenance: 'ecb:' }],
      },
    ],
  },
  ohlcv: {
    title: 'OHLCV files (daily bars a user imports)',
    synced: false,
    priceBasis: {
      basis: 'futures_settlement',
      meaning: 'exchange futures settlement prices, from a file an operator loaded',
    },
  },
  demo: {
    title: 'Generated demonstration data',
    attribution: 'Generated demonstration data: not from any official source',
    licence: 'Generated demonstration data (no licence terms)',
    synced: false,
    priceBasis: { basis: 'demo', meaning: 'generated demonstration data' },
  },
  snapshot: { title: 'The bundled snapshot of real data (carries its records’ own sources)', synced: false },
} as const satisfies Record<string, SourceFacts>;

export type PublicSourceName = keyof typeof SOURCES;
type Synced = { [K in PublicSourceName]: (typeof SOURCES)[K]['synced'] extends true ? K : never }[PublicSourceName];

/** Every source name, in table order. */
export const PUBLIC_SOURCE_NAMES = Object.keys(SOURCES) as PublicSourceName[];

/** The sources `ingest sync` keeps up to date, in table order. */
export const SYNC_SOURCE_NAMES = PUBLIC_SOURCE_NAMES.filter((n) => SOURCES[n].synced) as [Synced, ...Synced[]];

const ROWS: readonly SourceFacts[] = Object.values(SOURCES);

/** What a price basis means, from the row of the source whose prices are of that kind (throws on a basis no row gives). */
export function priceBasisMeaning(basis: string): string {
  const row = ROWS.find((r) => r.priceBasis?.basis === basis);
  if (row?.priceBasis === undefined) throw new Error(`contracts: no source gives the price basis ${basis}`);
  return row.priceBasis.meaning;
}

/** The newest observation date each release carries, in table order, where a calendar says it (GET /status). */
export const RELEASE_DATA_DATES: readonly string[] = ROWS.flatMap((r) => r.calendar?.dataDate ?? []);

/** What the API reference says of particular sources (resources.ts, openapi.ts), kept with their rows. */
export const CITED = {
  /** The reports the COT endpoints serve. */
  cotReports: `${SOURCES.cftc.title} reports`,
  /** Whose `% of OI` columns the COT percentages are rounded as. */
  cotPercentages: 'the CFTC % of OI columns',
  /** Where the sources state when a release was published. */
  statedPublication: 'the Pink Sheet\'s "Updated on", EIA and NASS release fields',
  /** An attribution, as an example. */
  attribution: SOURCES.worldbank.attribution,
} as const;

/**
 * The provenance of one COT report: `cftc:<format>:<contract market code>`, as the ingest's CFTC
 * parsers stamp it and as a reader attributes a report whose event carries no `source`.
 */
export function cotReportProvenance(format: string, contractCode: string): string {
  return `cftc:${format}:${contractCode}`;
}

/** The facts row of a provenance `source` (`worldbank:GOLD`, `eia:RWTC`, `demo`), or undefined. */
export function sourceFactsOf(source: string | undefined): SourceFacts | undefined {
  if (source === undefined) return undefined;
  const colon = source.indexOf(':');
  const name = colon === -1 ? source : source.slice(0, colon);
  return Object.hasOwn(SOURCES, name) ? SOURCES[name as PublicSourceName] : undefined;
}

/**
 * How a source's identifiers are published with a catalog entry (CatalogIdentifiers in events.ts,
 * CommodityIdentifiers in resources.ts) and how its records name it in `source`.
 */
export interface SourceIdentifiers {
  /** The field of a catalog entry's `identifiers` that lists them. */
  field: string;
  /** What the field holds, as the API reference says it. */
  description: string;
  /** Absent from entries published before the source was added (else an empty list when none). */
  optional: boolean;
  /** At most this many per commodity, each at most `maxLength` characters. */
  maxItems: number;
  maxLength: number;
  /** The `source` its numbers carry, as the API reference spells it (`<name>:<what>`, with an example). */
  provenance: string;
}

/**
 * The sources with identifiers of their own, in the order a catalog entry lists their fields: the
 * catalog events' ids hash the entry's JSON, so a new source's field goes last.
 */
export const SOURCE_IDENTIFIERS = {
  cftc: {
    field: 'cftc_contract_codes',
    description: "CFTC contract market codes (CFTC_Contract_Market_Code) of the commodity's COT reports.",
    optional: false,
    maxItems: 20,
    maxLength: 20,
    provenance: '`cftc:<format>:<CFTC contract market code>` (e.g. `cftc:legacy:067651`)',
  },
  eia: {
    field: 'eia_series',
    description: 'EIA API v2 series ids (the `series` facet), e.g. RWTC.',
    optional: false,
    maxItems: 50,
    maxLength: 40,
    provenance: '`eia:<EIA series id>` (e.g. `eia:RWTC`)',
  },
  nass: {
    field: 'nass_items',
    description: 'USDA NASS Quick Stats data items (`short_desc`), e.g. "CORN, GRAIN - PRODUCTION, MEASURED IN BU".',
    optional: false,
    maxItems: 50,
    maxLength: 200,
    provenance: '`nass:<USDA NASS Quick Stats data item>`',
  },
  worldbank: {
    field: 'worldbank_series',
    description: 'World Bank Pink Sheet series codes, e.g. GOLD, COFFEE_ARABIC.',
    optional: true,
    maxItems: 20,
    maxLength: 40,
    provenance: '`worldbank:<Pink Sheet series code>` (e.g. `worldbank:GOLD`)',
  },
  ams: {
    field: 'ams_reports',
    description: 'USDA AMS market report ids, e.g. LM_CT150.',
    optional: true,
    maxItems: 20,
    maxLength: 40,
    provenance: '`ams:<USDA AMS report>` (e.g. `ams:LM_CT150`)',
  },
} as const satisfies { readonly [K in PublicSourceName]?: SourceIdentifiers };

type IdentifierRow = (typeof SOURCE_IDENTIFIERS)[keyof typeof SOURCE_IDENTIFIERS];
/** The fields every catalog entry's `identifiers` carries (an empty list when none). */
export type RequiredIdentifierField = Extract<IdentifierRow, { optional: false }>['field'];
/** The fields an entry may lack. */
export type OptionalIdentifierField = Extract<IdentifierRow, { optional: true }>['field'];

/**
 * A zod shape with one field per SOURCE_IDENTIFIERS row, in its order: `list` makes the field's
 * schema, made optional for an optional row, then `finish` adds what goes on the field (its description).
 */
export function identifierShape<A extends z.ZodType>(
  list: (row: SourceIdentifiers) => A,
  finish: (schema: A | z.ZodOptional<A>, row: SourceIdentifiers) => z.ZodType = (schema) => schema,
): { [F in RequiredIdentifierField]: A } & { [F in OptionalIdentifierField]: z.ZodOptional<A> } {
  const rows: readonly SourceIdentifiers[] = Object.values(SOURCE_IDENTIFIERS);
  return Object.fromEntries(
    rows.map((row) => [row.field, finish(row.optional ? list(row).optional() : list(row), row)]),
  ) as { [F in RequiredIdentifierField]: A } & { [F in OptionalIdentifierField]: z.ZodOptional<A> };
}
