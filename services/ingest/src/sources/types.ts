import type {
  CitCotRecord,
  CotFormat,
  DisaggregatedCotRecord,
  Frequency,
  LegacyCotRecord,
  PriceBasis,
  SeriesPointRecord,
  SeriesType,
  PublicSourceName,
  CatalogIdentifiers,
  SupplyDemandBatch,
} from '@cds/contracts';
import type { z } from 'zod';
import type { CatalogIndex } from '../catalog/index.ts';
import type { CommodityDefinition } from '../catalog/types.ts';
import type { ParseStats } from './common/stats.ts';
import type { SeriesTask, SyncKeys } from './common/sync/task.ts';

/**
 * What every source adapter yields, one item per input record, in input order: a validated
 * series point or COT record mapped to a catalog commodity, or a rejection saying where and why.
 * Adapters stream (never hold the whole file) and never throw on a bad row: they yield `rejected`.
 */
export type SourceItem = SeriesItem | CotItem | SupplyDemandItem | RejectedItem;

/** What tells one series of points from another: commodity, type, frequency, unit and provenance. */
export interface SeriesKey {
  kind: 'series';
  commodity_id: string;
  series_type: SeriesType;
  frequency: Frequency;
  unit?: string;
  /** Provenance published with the point's batch: `eia:<series id>`, `nass:<data item>`, `demo`. */
  source?: string;
  /** What a price point is (`spot`, `monthly_average`...; price series only). */
  price_basis?: PriceBasis;
}

/**
 * When the release that carried a record was published (an instant, `Date#toISOString` text) and
 * whether that is estimated (a release calendar) rather than stated by the source.
 */
export interface PublicationStamp {
  at: string;
  estimated: boolean;
}

export interface SeriesItem extends SeriesKey {
  point: SeriesPointRecord;
  /**
   * The release that carried the point; absent when nothing tells, and the event then carries the
   * ingest time, estimated (publish/events.ts). A batch carries the latest stamp of its points.
   */
  published?: PublicationStamp;
}

/**
 * A COT record; `source` is its provenance (`cftc:<dataset>:<contract code>` or `demo`); `scope`
 * only on a futures-and-options report (absent: futures only, as every event before scopes).
 */
export type CotItem =
  | {
      kind: 'cot';
      commodity_id: string;
      format: Extract<CotFormat, 'legacy'>;
      scope?: 'futures_and_options';
      source?: string;
      record: LegacyCotRecord;
    }
  | {
      kind: 'cot';
      commodity_id: string;
      format: Extract<CotFormat, 'disaggregated'>;
      scope?: 'futures_and_options';
      source?: string;
      record: DisaggregatedCotRecord;
    }
  | {
      kind: 'cot';
      commodity_id: string;
      format: Extract<CotFormat, 'cit'>;
      scope: 'futures_and_options';
      source?: string;
      record: CitCotRecord;
    };

/**
 * One release of one balance sheet (supply and demand): already a whole event's content
 * (`source` its provenance, `wasde:<file>`), published as it is.
 */
export type SupplyDemandItem = { kind: 'supply_demand' } & SupplyDemandBatch;

export interface RejectedItem {
  kind: 'rejected';
  /** File name (or source label) and 1-based line number (or record index for JSON). */
  file: string;
  line: number;
  reason: string;
}

/** The flags of `ingest backfill --source <input> --file <path>` a parser may take. */
export interface FileFlags {
  /** ohlcv: the catalog id the file belongs to. */
  commodity?: string;
  /** eia: the series id when the file's preamble does not name it. */
  series?: string;
  /** ams: the report the datamart answer is for. */
  report?: string;
  /** Supply and demand: when the file was published (RFC 3339), when the release calendar does not tell. */
  publishedAt?: string;
}

/** How a downloaded file of an input is read (`ingest backfill --source <input> --file <path>`). */
export interface FileReader {
  /** Largest file read (docs/sources.md "What an import refuses"): every parser streams, so it bounds the time. */
  maxBytes: number;
  /** Flags the parser needs, each with what to name in the usage error. */
  requires?: readonly { flag: keyof FileFlags; hint?: string }[];
  /** Flags only this kind of file takes (others refuse them). */
  takes?: readonly (keyof FileFlags)[];
  /** What each flag it reads is for, as the CLI's usage text lists it. */
  flags?: { readonly [F in keyof FileFlags]?: string };
  /** The file's items; a layout it cannot read stops with SourceOpenError before anything is published. */
  open(
    chunks: AsyncIterable<Uint8Array>,
    opts: FileFlags & { file: string; stats: ParseStats; catalog: CatalogIndex },
  ): Promise<AsyncIterable<SourceItem>> | AsyncIterable<SourceItem>;
  /** The files as the publisher publishes them, for `snapshot:build --from` (the inputs a snapshot is built from). */
  published?: string;
  /** In a snapshot built from raw files: the flags a file needs, from its name. */
  snapshotFlags?(fileName: string): FileFlags;
}

/** A live fetch (`ingest fetch --source <input> [--since D]`), or why the input has none (a usage error). */
export type LiveFetch =
  | ((opts: {
      since?: string;
      env: Readonly<Record<string, string | undefined>>;
      stats: ParseStats;
      catalog: CatalogIndex;
    }) => AsyncIterable<SourceItem>)
  | { none: string };

/** One `--source` value of the ingest CLI: a file parser and its live fetch. */
export interface SourceInput {
  name: string;
  file: FileReader;
  live: LiveFetch;
}

/** A key or token a source reads from the environment. */
export interface Credential {
  /** The environment variable, e.g. EIA_API_KEY. */
  env: string;
  /** Sync refuses to run the source without it (else it only raises a rate limit). */
  required: boolean;
}

/**
 * Everything one data source brings, exported by `sources/<name>/index.ts` and listed once in
 * `sources/registry.ts`; its public facts (attribution, licence, whether it is synced) are its row
 * of the contracts' SOURCES (docs/adding-a-source.md).
 */
export interface Source {
  /** Its name: the key of its row in the contracts' SOURCES and the prefix of its provenance. */
  name: PublicSourceName;
  /** Keys and tokens, as environment variables. */
  credentials: readonly Credential[];
  /** The catalog mapping it reads (the commodity's `sources.<name>`), checked when the catalog loads. */
  mapping?: z.ZodType;
  /** Its mapping of each commodity it feeds, by catalog id (`catalog.ts`): the registry joins them to the contract facts. */
  catalog?: Readonly<Record<string, unknown>>;
  /** The identifiers its mapping of a commodity gives, published with the catalog entry (SOURCE_IDENTIFIERS' field). */
  identifiers?(def: CommodityDefinition): Partial<CatalogIdentifiers>;
  /** Its `--source` inputs: file parsers and live fetches. */
  inputs: readonly SourceInput[];
  /** `ingest sync`: its series tasks (on the release calendar of `@cds/schedule`). */
  sync?: SyncPart;
  /** What of the demo this source's data replaces (`backfill --demo --without <part>`). */
  demoPart?: DemoPart;
  /**
   * In a snapshot (`backfill --snapshot`): when its series points were published, given the
   * origins the manifest records for it and when the snapshot was built; undefined means the
   * build time (estimated).
   */
  snapshotStamps?(
    origins: readonly { from?: string | undefined }[],
    builtAt: string,
  ): (date: string) => PublicationStamp | undefined;
  /** The `price` series its mapping of a commodity gives (the catalog spec checks a commodity has at most one). */
  prices?(def: CommodityDefinition): PriceSource[];
}

/** Where a commodity's `price` series comes from: the one mapping of type price, by source. */
export interface PriceSource {
  /** Provenance prefix: the source's name. */
  source: PublicSourceName;
  /** The series at the source: EIA series id, NASS data item, Pink Sheet code, AMS report. */
  series: string;
  frequency: Frequency;
  unit: string;
  basis: PriceBasis | undefined;
}

/** The demo series a source's real data replaces. */
export interface DemoPart {
  /** The word `--without` takes. */
  part: string;
  /** The series types of a commodity its data gives (their demo series are left out). */
  replaces(def: CommodityDefinition): readonly SeriesType[];
  /** The contract code the source's COT reports carry for a commodity, which the demo's COT reports carry too. */
  contractCode?(def: CommodityDefinition): string | undefined;
}

/**
 * A CronJob that runs `ingest sync --source <name>` (time zone America/New_York): a cron line
 * cannot express a holiday shift, so a source's jobs fire at every candidate slot a few minutes
 * after its release (services/ingest/src/schedule/jobs.ts).
 */
export interface SyncJob {
  /** The job's name in the chart's `ingestJobs.schedules`, `sync-<source>[-<slot>]`. */
  name: string;
  schedule: string;
  /** Its time zone when not America/New_York: a publisher on another clock (the ECB's rates, Europe/Berlin). */
  timeZone?: string;
  /** What the slot is for. */
  purpose: string;
}

/** The `ingest sync` part of a source. */
export interface SyncPart {
  /** Every series task of the source, commodity by commodity. */
  tasks(defs: readonly CommodityDefinition[]): SeriesTask[];
  /** Its CronJobs, in the chart's order. */
  jobs: readonly SyncJob[];
  /**
   * For a source that needs no key: an address of its API that answers anyone, which `npm start`
   * asks before it syncs (an unreachable source is left out, the snapshot standing).
   */
  probe?: (env: Readonly<Record<string, string | undefined>>) => URL;
  /** The IngestEnv setting that points the sync at another address (tests, mirrors). */
  baseUrlSetting: string;
  /** How far back a live snapshot build asks (COT: the build's `cotSince`), when not from the COT start. */
  liveSince?: string;
  /** Request pacing and headers for its HTTP client, given the settings. */
  http?(keys: NonNullable<SyncKeys['keys']>): { minIntervalMs?: number; headers?: Record<string, string> };
}
