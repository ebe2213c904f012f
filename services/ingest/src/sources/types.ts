import type {
  CotFormat,
  DisaggregatedCotRecord,
  Frequency,
  LegacyCotRecord,
  PriceBasis,
  SeriesPointRecord,
  SeriesType,
} from '@cds/contracts';

/**
 * What every source adapter yields, one item per input record, in input order: a validated
 * series point or COT record mapped to a catalog commodity, or a rejection saying where and why.
 * Adapters stream (never hold the whole file) and never throw on a bad row: they yield `rejected`.
 */
export type SourceItem = SeriesItem | CotItem | RejectedItem;

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

/** A COT record; `source` is its provenance (`cftc:<format>:<contract code>` or `demo`). */
export type CotItem =
  | {
      kind: 'cot';
      commodity_id: string;
      format: Extract<CotFormat, 'legacy'>;
      source?: string;
      record: LegacyCotRecord;
    }
  | {
      kind: 'cot';
      commodity_id: string;
      format: Extract<CotFormat, 'disaggregated'>;
      source?: string;
      record: DisaggregatedCotRecord;
    };

export interface RejectedItem {
  kind: 'rejected';
  /** File name (or source label) and 1-based line number (or record index for JSON). */
  file: string;
  line: number;
  reason: string;
}

/** The source names the ingest CLI accepts with --source. */
export const SOURCE_NAMES = ['cftc-legacy', 'cftc-disaggregated', 'eia', 'nass', 'ohlcv', 'worldbank', 'ams'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];
