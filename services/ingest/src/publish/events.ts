import {
  CommodityUpserted,
  CotReportsRecorded,
  deterministicEventId,
  SeriesPointsRecorded,
  type CatalogEntry,
  type DataEvent,
} from '@cds/contracts';
import type { z } from 'zod';
import type { Batch } from './batcher.ts';
import { contentDigest } from './canonical.ts';

export interface EventContext {
  /** Envelope `source`, e.g. `cftc-legacy:annual.txt` or `demo`. */
  source: string;
  /** Envelope `occurred_at` (RFC 3339). Not part of the id: a re-run yields the same ids. */
  occurredAt: string;
}

/**
 * The event of a batch. Its id covers the type, the group (commodity, series type or format,
 * frequency, unit, period) and a SHA-256 of the canonical batch content, so the same records
 * always give the same id and any change in content gives a new one.
 */
export function batchEvent(batch: Batch, ctx: EventContext): DataEvent {
  if (batch.kind === 'series') {
    const { kind: _kind, ...data } = batch;
    const id = deterministicEventId(
      'series.points.recorded',
      batch.commodity_id,
      batch.series_type,
      batch.frequency,
      batch.unit ?? '',
      batch.period,
      contentDigest(data),
    );
    return { id, type: 'series.points.recorded', version: 1, occurred_at: ctx.occurredAt, source: ctx.source, data };
  }
  const { kind: _kind, period, ...data } = batch;
  const id = deterministicEventId(
    'cot.reports.recorded',
    batch.commodity_id,
    batch.format,
    period,
    contentDigest(data),
  );
  return { id, type: 'cot.reports.recorded', version: 1, occurred_at: ctx.occurredAt, source: ctx.source, data };
}

/** The event that publishes one catalog entry; its id is a digest of the entry. */
export function catalogEvent(entry: CatalogEntry, ctx: EventContext): DataEvent {
  const id = deterministicEventId('catalog.commodity.upserted', entry.id, contentDigest(entry));
  return {
    id,
    type: 'catalog.commodity.upserted',
    version: 1,
    occurred_at: ctx.occurredAt,
    source: ctx.source,
    data: entry,
  };
}

const schemas = {
  'catalog.commodity.upserted': CommodityUpserted,
  'series.points.recorded': SeriesPointsRecorded,
  'cot.reports.recorded': CotReportsRecorded,
} as const satisfies Record<DataEvent['type'], z.ZodType>;

/** Checks an event against its contract schema; returns a one-line reason when it fails. */
export function validateEvent(event: DataEvent): { ok: true } | { ok: false; reason: string } {
  const result = schemas[event.type].safeParse(event);
  if (result.success) return { ok: true };
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'event';
  return { ok: false, reason: `${where}: ${issue?.message ?? 'invalid'}` };
}

/** Number of records an event carries (1 for a catalog entry). */
export function recordCount(event: DataEvent): number {
  switch (event.type) {
    case 'series.points.recorded':
      return event.data.points.length;
    case 'cot.reports.recorded':
      return event.data.reports.length;
    case 'catalog.commodity.upserted':
      return 1;
  }
}
