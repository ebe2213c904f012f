import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  CommodityId,
  commodityHeadFields,
  COT_CHECKS,
  CotCheck,
  cotDatasetOf,
  CotScope,
  Frequency,
  IsoDate,
  PriceBasis,
  SeriesType,
  Sha256Hex,
} from './primitives.ts';
import { Plan } from './plans.ts';
import { identifierShape } from './sources.ts';
import { SupplyDemandBatch } from './supply-demand.ts';

/** JetStream streams: data events and key-lifecycle events. */
export const DATA_STREAM = 'CDS_DATA';
export const KEYS_STREAM = 'CDS_KEYS';
export const DATA_SUBJECTS = 'cds.data.>';
export const KEYS_SUBJECTS = 'cds.keys.>';
/**
 * Core NATS, never stored: the admin API sends each key.revoked event here too, just before the
 * key stream stores it, so every gateway refuses the key without waiting for JetStream's fsync
 * (docs/reliability.md "Revocation time"). Outside cds.keys.>, which the key stream captures.
 */
export const KEY_REVOCATION_NOTICES = 'cds.revocations';

/** Event ids are deterministic (so they deduplicate as Nats-Msg-Id): printable, bounded. */
export const EventId = z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/);

/** The envelope every event travels in; `data` is the type-specific payload. */
function envelope<T extends string, D extends z.ZodType>(type: T, data: D) {
  return z.strictObject({
    id: EventId,
    type: z.literal(type),
    version: z.literal(1),
    occurred_at: z.iso.datetime({ offset: true }),
    source: z.string().min(1).max(200),
    data,
  });
}

// --- data events ----------------------------------------------------------------------------------

/** A commodity of the curated catalog (ids, names, contract facts), as ingest publishes it. */
/**
 * Where a series or a COT report came from, as served in `source`: `cftc:<format>:<contract market
 * code>` (e.g. `cftc:legacy:067651`), `eia:<series id>` (e.g. `eia:RWTC`), `nass:<data item>`, or
 * `demo` for generated data.
 */
export const ProvenanceSource = z.string().min(1).max(200);

/** The official identifiers of a commodity, so a user can look any number up at its source. */
export const CatalogIdentifiers = z.strictObject(
  // one list per source with identifiers (sources.ts SOURCE_IDENTIFIERS: field, bounds, whether older events lack it)
  identifierShape((row) => z.array(z.string().min(1).max(row.maxLength)).max(row.maxItems)),
);
export type CatalogIdentifiers = z.infer<typeof CatalogIdentifiers>;

export const CatalogEntry = z.strictObject({
  ...commodityHeadFields,
  description: z.string().max(4000).optional(),
  contract_size: z.string().max(200).optional(),
  tick_size: z.number().positive().optional(),
  /** Optional (events before provenance lack it). */
  identifiers: CatalogIdentifiers.optional(),
  /** Why the commodity has no price series, when no free official source publishes one. */
  price_note: z.string().min(1).max(1000).optional(),
});
export type CatalogEntry = z.infer<typeof CatalogEntry>;

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

/**
 * Where a refinement reports a problem: zod's refinement context, or any collector of issues (the
 * ingest's compiled validators run these same functions, so each rule is written once, here).
 */
export interface IssueSink {
  addIssue(issue: { code: 'custom'; path: PropertyKey[]; message: string }): void;
}

/** OHLC consistency of a point: low <= high, and open and close within [low, high]. */
export function checkOhlc(
  p: { open?: number | undefined; high?: number | undefined; low?: number | undefined; close?: number | undefined },
  ctx: IssueSink,
): void {
  const { open, high, low, close } = p;
  if (high !== undefined && low !== undefined && low > high) {
    ctx.addIssue({ code: 'custom', path: ['low'], message: 'low must not exceed high' });
  }
  for (const [name, v] of [
    ['open', open],
    ['close', close],
  ] as const) {
    if (v === undefined) continue;
    if (high !== undefined && v > high) ctx.addIssue({ code: 'custom', path: [name], message: `${name} above high` });
    if (low !== undefined && v < low) ctx.addIssue({ code: 'custom', path: [name], message: `${name} below low` });
  }
}

/** One raw observation. For price series `value` is the close, and OHLC must be consistent. */
export const SeriesPointRecord = z
  .strictObject({
    date: IsoDate,
    value: finite,
    open: finite.optional(),
    high: finite.optional(),
    low: finite.optional(),
    close: finite.optional(),
    volume: z.int().min(0).optional(),
  })
  .superRefine(checkOhlc);
export type SeriesPointRecord = z.infer<typeof SeriesPointRecord>;

/** Bucket period of a batch: a year (YYYY) or a month (YYYY-MM). Every point must fall inside it. */
export const Period = z.string().regex(/^\d{4}(?:-(?:0[1-9]|1[0-2]))?$/);

export const MAX_POINTS_PER_EVENT = 5_000;

/**
 * When the release that carried a batch (or a report) was published, RFC 3339, and whether that
 * time is estimated (a release calendar, or the ingest time) rather than stated by the source.
 * Optional: events before point in time lack them, and the projector then estimates
 * (docs/point-in-time.md).
 */
const publicationFields = {
  published_at: z.iso.datetime({ offset: true }).optional(),
  published_at_estimated: z.boolean().optional(),
};

/** Batch rules beyond its fields: every point dated inside the period, one point per date. */
export function checkSeriesBatch(b: { period: string; points: readonly { date: string }[] }, ctx: IssueSink): void {
  const seen = new Set<string>();
  b.points.forEach((p, i) => {
    if (!p.date.startsWith(b.period)) {
      ctx.addIssue({ code: 'custom', path: ['points', i, 'date'], message: `date outside period ${b.period}` });
    }
    if (seen.has(p.date)) {
      ctx.addIssue({ code: 'custom', path: ['points', i, 'date'], message: `duplicate date ${p.date}` });
    }
    seen.add(p.date);
  });
}

export const SeriesPointsBatch = z
  .strictObject({
    commodity_id: CommodityId,
    series_type: SeriesType,
    frequency: Frequency,
    unit: z.string().min(1).max(40).optional(),
    /** Provenance of every point of the batch (optional: events before provenance lack it). */
    source: ProvenanceSource.optional(),
    /** What the batch's price numbers are (price series only; optional: older events lack it). */
    price_basis: PriceBasis.optional(),
    ...publicationFields,
    period: Period,
    points: z.array(SeriesPointRecord).min(1).max(MAX_POINTS_PER_EVENT),
  })
  .superRefine(checkSeriesBatch);
export type SeriesPointsBatch = z.infer<typeof SeriesPointsBatch>;

/** Raw positions as a source reports them; net is never taken from a source (computed on read). */
const RawGroup = z.strictObject({ long: z.int().min(0), short: z.int().min(0) });
const RawSpreadingGroup = z.strictObject({
  long: z.int().min(0),
  short: z.int().min(0),
  spreading: z.int().min(0),
});

const cotRecordBase = {
  report_date: IsoDate,
  exchange: z.string().min(1).max(20).optional(),
  /** CFTC contract market code of the source row, kept for traceability. */
  contract_code: z.string().min(1).max(20).optional(),
  open_interest: z.int().min(0),
  /** The checks the source row itself failed (`old_plus_other_equals_all`); the projector adds the cross-report ones. */
  failed_checks: z.array(CotCheck).min(1).max(COT_CHECKS.length).optional(),
  /** Each report has its own release (the Friday after its Tuesday). */
  ...publicationFields,
};
export const LegacyCotRecord = z.strictObject({
  ...cotRecordBase,
  commercial: RawGroup,
  non_commercial: RawSpreadingGroup,
  non_reportable: RawGroup,
});
export const DisaggregatedCotRecord = z.strictObject({
  ...cotRecordBase,
  producer_merchant: RawGroup,
  swap_dealer: RawSpreadingGroup,
  managed_money: RawSpreadingGroup,
  other_reportable: RawSpreadingGroup,
});
/** A CIT supplement report: commercial and non-commercial excluding index traders (NoCIT), the index traders, non-reportable. */
export const CitCotRecord = z.strictObject({
  ...cotRecordBase,
  commercial: RawGroup,
  non_commercial: RawSpreadingGroup,
  index_traders: RawGroup,
  non_reportable: RawGroup,
});
export type CitCotRecord = z.infer<typeof CitCotRecord>;
export type LegacyCotRecord = z.infer<typeof LegacyCotRecord>;
export type DisaggregatedCotRecord = z.infer<typeof DisaggregatedCotRecord>;

export const MAX_REPORTS_PER_EVENT = 1_000;

/** Batch rule beyond its fields: one report per report_date. */
export function checkUniqueReportDates(b: { reports: readonly { report_date: string }[] }, ctx: IssueSink): void {
  const seen = new Set<string>();
  b.reports.forEach((r, i) => {
    if (seen.has(r.report_date)) {
      ctx.addIssue({ code: 'custom', path: ['reports', i, 'report_date'], message: 'duplicate report_date' });
    }
    seen.add(r.report_date);
  });
}

export const CotReportsBatch = z.discriminatedUnion('format', [
  z
    .strictObject({
      commodity_id: CommodityId,
      format: z.literal('legacy'),
      /** What the reports count (absent: futures_only, as every event before scopes). */
      scope: CotScope.optional(),
      /** Provenance of every report of the batch (optional: events before provenance lack it). */
      source: ProvenanceSource.optional(),
      reports: z.array(LegacyCotRecord).min(1).max(MAX_REPORTS_PER_EVENT),
    })
    .superRefine(checkUniqueReportDates),
  z
    .strictObject({
      commodity_id: CommodityId,
      format: z.literal('disaggregated'),
      scope: CotScope.optional(),
      source: ProvenanceSource.optional(),
      reports: z.array(DisaggregatedCotRecord).min(1).max(MAX_REPORTS_PER_EVENT),
    })
    .superRefine(checkUniqueReportDates),
  z
    .strictObject({
      commodity_id: CommodityId,
      format: z.literal('cit'),
      /** The supplement is published futures and options combined only. */
      scope: z.literal('futures_and_options').optional(),
      source: ProvenanceSource.optional(),
      reports: z.array(CitCotRecord).min(1).max(MAX_REPORTS_PER_EVENT),
    })
    .superRefine(checkUniqueReportDates),
]);

export type CotReportsBatch = z.infer<typeof CotReportsBatch>;

export const CommodityUpserted = envelope('catalog.commodity.upserted', CatalogEntry);
export const SeriesPointsRecorded = envelope('series.points.recorded', SeriesPointsBatch);
export const CotReportsRecorded = envelope('cot.reports.recorded', CotReportsBatch);
export const SupplyDemandFiguresRecorded = envelope('supply_demand.figures.recorded', SupplyDemandBatch);

export const DataEvent = z.discriminatedUnion('type', [
  CommodityUpserted,
  SeriesPointsRecorded,
  CotReportsRecorded,
  SupplyDemandFiguresRecorded,
]);
export type CommodityUpserted = z.infer<typeof CommodityUpserted>;
export type SeriesPointsRecorded = z.infer<typeof SeriesPointsRecorded>;
export type CotReportsRecorded = z.infer<typeof CotReportsRecorded>;
export type SupplyDemandFiguresRecorded = z.infer<typeof SupplyDemandFiguresRecorded>;
export type DataEvent = z.infer<typeof DataEvent>;

// --- key-lifecycle events -------------------------------------------------------------------------

export const AccountId = z.string().regex(/^acc_[0-9a-z]{8,40}$/);
export const KeyId = z.string().regex(/^key_[0-9a-z]{8,40}$/);

export const AccountCreated = envelope(
  'account.created',
  z.strictObject({ account_id: AccountId, name: z.string().min(1).max(200), plan: Plan }),
);
/**
 * The key stream keeps one message per subject (an account's or a key's latest event), so the
 * events that replace an earlier one on their subject carry what a reader needs of it: the
 * account's name and creation time here, the key's label and creation time in `key.revoked`.
 * Optional: events stored before the stream was compacted lack them (readers fall back).
 */
export const AccountPlanChanged = envelope(
  'account.plan_changed',
  z.strictObject({
    account_id: AccountId,
    plan: Plan,
    previous_plan: Plan,
    name: z.string().min(1).max(200).optional(),
    created_at: z.iso.datetime({ offset: true }).optional(),
  }),
);
/**
 * An account is closed for good (its user deleted it): the admin API refuses keys and plan changes
 * for it from then on, and revokes its active keys right after. It replaces the account's earlier
 * event on its subject, so it carries everything a replay needs to rebuild the account from it alone.
 */
export const AccountClosed = envelope(
  'account.closed',
  z.strictObject({
    account_id: AccountId,
    name: z.string().min(1).max(200),
    plan: Plan,
    created_at: z.iso.datetime({ offset: true }),
    closed_at: z.iso.datetime({ offset: true }),
  }),
);
/**
 * A dashboard session key's end (docs/dashboard-security.md "Session keys"): present on session keys
 * only. The admin API revokes the key then (a `key.revoked` like any other), and it counts apart from
 * the plan's cap on active keys.
 */
export const SessionExpiresAt = z.iso.datetime({ offset: true });
/** Carries the SHA-256 of the key, never the key itself. */
export const KeyCreated = envelope(
  'key.created',
  z.strictObject({
    key_id: KeyId,
    account_id: AccountId,
    key_hash: Sha256Hex,
    plan: Plan,
    label: z.string().max(200).optional(),
    session_expires_at: SessionExpiresAt.optional(),
  }),
);
export const KeyRevoked = envelope(
  'key.revoked',
  z.strictObject({
    key_id: KeyId,
    account_id: AccountId,
    key_hash: Sha256Hex,
    label: z.string().max(200).optional(),
    created_at: z.iso.datetime({ offset: true }).optional(),
    session_expires_at: SessionExpiresAt.optional(),
  }),
);

export const KeyEvent = z.discriminatedUnion('type', [
  AccountCreated,
  AccountPlanChanged,
  AccountClosed,
  KeyCreated,
  KeyRevoked,
]);
export type AccountCreated = z.infer<typeof AccountCreated>;
export type AccountPlanChanged = z.infer<typeof AccountPlanChanged>;
export type AccountClosed = z.infer<typeof AccountClosed>;
export type KeyCreated = z.infer<typeof KeyCreated>;
export type KeyRevoked = z.infer<typeof KeyRevoked>;
export type KeyEvent = z.infer<typeof KeyEvent>;

export type AnyEvent = DataEvent | KeyEvent;

/** The subject of a key's events (its creation, then its revocation). */
export function keySubject(keyId: string): string {
  return `cds.keys.key.${keyId}`;
}

/** The subject an event is published on; it carries the commodity or account id so consumers can filter. */
export function subjectFor(event: AnyEvent): string {
  switch (event.type) {
    case 'catalog.commodity.upserted':
      return `cds.data.catalog.${event.data.id}`;
    case 'series.points.recorded':
      return `cds.data.series.${event.data.commodity_id}.${event.data.series_type}`;
    case 'cot.reports.recorded':
      return `cds.data.cot.${event.data.commodity_id}.${cotDatasetOf(event.data)}`;
    case 'supply_demand.figures.recorded':
      return `cds.data.supply_demand.${event.data.commodity_id}.${event.data.region}`;
    case 'account.created':
    case 'account.plan_changed':
    case 'account.closed':
      return `cds.keys.account.${event.data.account_id}`;
    case 'key.created':
    case 'key.revoked':
      return keySubject(event.data.key_id);
  }
}

/**
 * A deterministic event id: the event type and a SHA-256 over the given parts (for example the
 * commodity, series, period and a digest of the content), so publishing the same facts again
 * yields the same id and JetStream drops it as a duplicate.
 */
export function deterministicEventId(type: string, ...parts: (string | number)[]): string {
  const h = createHash('sha256');
  h.update(type);
  for (const p of parts) h.update('\u0000').update(String(p));
  return `${type}:${h.digest('hex').slice(0, 40)}`;
}
