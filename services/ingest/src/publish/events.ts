import { createHash } from 'node:crypto';
import {
  CatalogEntry,
  CommodityUpserted,
  CotReportsRecorded,
  deterministicEventId,
  SeriesPointsRecorded,
  subjectFor,
  SupplyDemandBatch,
  SupplyDemandFiguresRecorded,
  type DataEvent,
} from '@cds/contracts';
import { z } from 'zod';
import { fastCotReportsBatch, fastSeriesPointsBatch } from '../validation/index.ts';
import { cotReportStamp } from '../sources/common/published.ts';
import type { Batch, CotBatch } from './batcher.ts';

export interface EventContext {
  /** Envelope `source`, e.g. `cftc-legacy:annual.txt` or `demo` (cut to 200 characters). */
  source: string;
  /** Envelope `occurred_at` (RFC 3339). Not part of the id: a re-run yields the same ids. */
  occurredAt: string;
}

/** An event checked against its contract and serialised once, ready to publish. */
export interface PreparedEvent {
  event: DataEvent;
  subject: string;
  /** The JSON bytes of the whole envelope. */
  payload: Uint8Array;
  /** Records it carries (1 for a catalog entry). */
  records: number;
}

export type Prepared = { ok: true; prepared: PreparedEvent } | { ok: false; reason: string };

const encoder = new TextEncoder();

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The envelope rules of each event type (id, type, version, occurred_at, source), `data` left to
 * the data schema (validated once, just above): derived from the contract's event schemas.
 */
const ENVELOPES = {
  'catalog.commodity.upserted': CommodityUpserted.extend({ data: z.unknown() }),
  'series.points.recorded': SeriesPointsRecorded.extend({ data: z.unknown() }),
  'cot.reports.recorded': CotReportsRecorded.extend({ data: z.unknown() }),
  'supply_demand.figures.recorded': SupplyDemandFiguresRecorded.extend({ data: z.unknown() }),
} as const;

function firstIssue(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join('.') : 'event';
  return `${where}: ${issue?.message ?? 'invalid'}`;
}

/**
 * Validates `data` with its contract schema and builds the envelope around the schema's output.
 * The output lists keys in the schema's order whatever order the input had, so its JSON is a
 * canonical form of the content: the id hashes it, and the payload reuses it (one serialisation).
 */
function prepare(
  type: DataEvent['type'],
  data: unknown,
  schema: {
    safeParse(
      v: unknown,
    ):
      | { success: true; data: unknown }
      | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  idParts: (string | number)[],
  records: number,
  ctx: EventContext,
  /**
   * Fields of the data left out of the id: the ingest time a series batch carries as its
   * publication (as occurred_at is), the file a balance sheet was read from.
   */
  notInId: readonly string[] = [],
): Prepared {
  const parsed = schema.safeParse(data);
  if (!parsed.success) return { ok: false, reason: firstIssue(parsed.error) };
  const dataJson = JSON.stringify(parsed.data);
  const idJson =
    notInId.length > 0
      ? JSON.stringify({ ...(parsed.data as object), ...Object.fromEntries(notInId.map((k) => [k, undefined])) })
      : dataJson;
  const id = deterministicEventId(type, ...idParts, sha256(idJson));
  const source = ctx.source.slice(0, 200) || 'ingest';
  const envelope = { id, type, version: 1, occurred_at: ctx.occurredAt, source };
  const checked = ENVELOPES[type].safeParse({ ...envelope, data: null });
  if (!checked.success) return { ok: false, reason: firstIssue(checked.error) };
  const event = { ...envelope, data: parsed.data } as DataEvent;
  const head = JSON.stringify(envelope);
  const payload = encoder.encode(`${head.slice(0, -1)},"data":${dataJson}}`);
  return { ok: true, prepared: { event, subject: subjectFor(event), payload, records } };
}

/**
 * The event of a batch. Its id covers the type, the group (commodity, series type or format,
 * frequency, unit, period) and a SHA-256 of the validated batch content, so the same records
 * always give the same id and any change in content gives a new one.
 *
 * Every event says when its release was published. The content hashed includes that stamp when
 * it is the release's (stated by the source, or from its calendar: the same for every fetch of
 * that release), so a re-sync of a release stays a duplicate while a later release carrying the
 * same numbers is an event of its own (it confirms them). A series batch without a stamp (demo,
 * OHLCV and EIA CSV files, a point newer than the calendar's release) carries the ingest time,
 * estimated, which is not content: the id leaves it out, so a re-run yields the same ids. A COT
 * report without one (demo) takes its calendar release, as the projector would.
 */
export function prepareBatchEvent(batch: Batch, ctx: EventContext): Prepared {
  if (batch.kind === 'series') {
    const { kind: _kind, ...data } = batch;
    const ingestStamped = data.published_at === undefined;
    return prepare(
      'series.points.recorded',
      ingestStamped ? { ...data, published_at: ctx.occurredAt, published_at_estimated: true } : data,
      fastSeriesPointsBatch,
      [batch.commodity_id, batch.series_type, batch.frequency, batch.unit ?? '', batch.period],
      batch.points.length,
      ctx,
      ingestStamped ? ['published_at', 'published_at_estimated'] : [],
    );
  }
  if (batch.kind === 'supply_demand') return prepareSupplyDemandEvent(batch, ctx);
  const { kind: _kind, period, ...rest } = batch;
  const data = {
    ...rest,
    reports: rest.reports.map((r: CotBatch['reports'][number]) =>
      r.published_at !== undefined ? r : { ...r, ...cotReportStamp(r.report_date) },
    ),
  };
  return prepare(
    'cot.reports.recorded',
    data,
    fastCotReportsBatch,
    [batch.commodity_id, batch.format, period],
    batch.reports.length,
    ctx,
  );
}

/**
 * The event of one release of one balance sheet. Its id covers the sheet (commodity, region,
 * marketing year), the edition and a SHA-256 of the validated content, published_at included (a
 * re-post of an edition is a release of its own) but the file it was read from: the same file read
 * again, or the May column of the June file beside the May file, gives the same id.
 * Batches are few (a file holds a few hundred sheets): checked with the contract's zod schema.
 */
function prepareSupplyDemandEvent(batch: Extract<Batch, { kind: 'supply_demand' }>, ctx: EventContext): Prepared {
  const { kind: _kind, ...data } = batch;
  return prepare(
    'supply_demand.figures.recorded',
    data,
    SupplyDemandBatch,
    [data.commodity_id, data.region, data.marketing_year, data.edition],
    data.figures.length,
    ctx,
    ['source'],
  );
}

/** The event that publishes one catalog entry; its id is a digest of the entry. */
export function prepareCatalogEvent(entry: CatalogEntry, ctx: EventContext): Prepared {
  return prepare('catalog.commodity.upserted', entry, CatalogEntry, [entry.id], 1, ctx);
}
