import type { CotFormat, CotScope, Frequency, PriceBasis, SeriesType } from '@cds/contracts';
import {
  fastCitCotRecord,
  fastDisaggregatedCotRecord,
  fastLegacyCotRecord,
  fastSeriesPointRecord,
} from '../../validation/index.ts';
import type { CatalogIndex } from '../../catalog/index.ts';
import type { CotItem, PublicationStamp, RejectedItem, SeriesItem } from '../types.ts';
import type { ParseStats } from './stats.ts';

/** Options every streaming parser takes. */
export interface ParseOptions {
  /** File name or source label, echoed in rejections. */
  file: string;
  /** Catalog to map rows onto (the CLI, the sync and the snapshot pass the curated one: sources/registry.ts CATALOG). */
  catalog: CatalogIndex;
  /** Counters updated while parsing. */
  stats?: ParseStats;
}

interface ZodLikeError {
  issues: { path: PropertyKey[]; message: string }[];
}

export function describeZodError(error: ZodLikeError): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(record)'}: ${i.message}`).join('; ');
}

export function rejected(file: string, line: number, reason: string, stats?: ParseStats): RejectedItem {
  if (stats) stats.rejected++;
  return { kind: 'rejected', file, line, reason };
}

/**
 * Validates a point with SeriesPointRecord (compiled from the zod schema, see validation/; a refused
 * point gets zod's message); returns the series item or a rejection.
 */
export function seriesItem(
  commodity_id: string,
  series_type: SeriesType,
  frequency: Frequency,
  unit: string | undefined,
  point: unknown,
  where: { file: string; line: number; stats?: ParseStats },
  source?: string,
  priceBasis?: PriceBasis,
  published?: PublicationStamp,
): SeriesItem | RejectedItem {
  const parsed = fastSeriesPointRecord.safeParse(point);
  if (!parsed.success) return rejected(where.file, where.line, describeZodError(parsed.error), where.stats);
  if (where.stats) where.stats.emitted++;
  return {
    kind: 'series',
    commodity_id,
    series_type,
    frequency,
    ...(unit ? { unit } : {}),
    ...(source !== undefined ? { source } : {}),
    ...(priceBasis !== undefined ? { price_basis: priceBasis } : {}),
    point: parsed.data,
    ...(published !== undefined ? { published } : {}),
  };
}

const COT_RECORDS = {
  legacy: fastLegacyCotRecord,
  disaggregated: fastDisaggregatedCotRecord,
  cit: fastCitCotRecord,
} as const;

/**
 * Validates a COT record of `format` (LegacyCotRecord, DisaggregatedCotRecord or CitCotRecord,
 * compiled, see validation/); `source` is its provenance, e.g. `cftc:legacy:067651`; `scope` is
 * stamped on the item only for futures and options (absent: futures only; cit is always combined).
 */
export function cotItem(
  format: CotFormat,
  commodity_id: string,
  record: unknown,
  where: { file: string; line: number; stats?: ParseStats },
  source?: string,
  scope?: CotScope,
): CotItem | RejectedItem {
  const parsed = COT_RECORDS[format].safeParse(record);
  if (!parsed.success) return rejected(where.file, where.line, describeZodError(parsed.error), where.stats);
  if (where.stats) where.stats.emitted++;
  return {
    kind: 'cot',
    commodity_id,
    format,
    ...(format === 'cit' || scope === 'futures_and_options' ? { scope: 'futures_and_options' } : {}),
    ...(source !== undefined ? { source } : {}),
    record: parsed.data,
  } as CotItem;
}
