import { z } from 'zod';
import { page, perPage } from './params.ts';
import { RequestId } from './primitives.ts';
import { documented } from './registry.ts';
import {
  RELEASE_RULES,
  SOURCES,
  SYNC_SOURCE_NAMES,
  type DatasetFacts,
  type DatasetSelector,
  type ReleaseRule,
} from './sources.ts';

type SyncSourceName = (typeof SYNC_SOURCE_NAMES)[number];

/**
 * Datasets: each source's report kinds (the `datasets` of its row in SOURCES), with each day's
 * condition, each release against the agency's calendar, and the incidents an operator writes
 * (docs/freshness.md). The gateway answers GET /datasets, GET /releases and the Atom feed from
 * memory: the projector's release ledger (RELEASES_BUCKET), the sync's error days and the
 * incidents (both KV), the consistency failures, and the calendars of `@cds/schedule`.
 */

/** A dataset as the tables below know it: its source, calendar rule and what it covers. */
export interface DatasetRow {
  id: string;
  source: SyncSourceName;
  title: string;
  /** Null: no rule computes its releases (only the observed ones are listed). */
  rule: ReleaseRule | null;
  select: readonly DatasetSelector[];
}

/** Every dataset, in table order (the synced sources' rows, each source's datasets in order). */
export const DATASETS: readonly DatasetRow[] = SYNC_SOURCE_NAMES.flatMap((source) => {
  const row: { calendar?: { rule: ReleaseRule }; datasets?: readonly DatasetFacts[] } = SOURCES[source];
  return (row.datasets ?? []).map((d) => ({
    id: d.id,
    source,
    title: d.title,
    rule: d.rule === undefined ? (row.calendar?.rule ?? null) : d.rule,
    select: d.select,
  }));
});
export const DATASET_IDS = DATASETS.map((d) => d.id) as [string, ...string[]];
const BY_ID = new Map(DATASETS.map((d) => [d.id, d]));

/** A dataset by id (undefined for an unknown one). */
export function datasetById(id: string): DatasetRow | undefined {
  return BY_ID.get(id);
}

/** The dataset a series batch belongs to, by its provenance, frequency and series type (the first row that selects it). */
export function datasetOfSeries(batch: {
  source?: string | undefined;
  frequency: string;
  series_type: string;
}): DatasetRow | undefined {
  const provenance = batch.source ?? '';
  return DATASETS.find((d) =>
    d.select.some(
      (s) =>
        s.kind === 'series' &&
        provenance.startsWith(s.provenance) &&
        (s.frequency === undefined || s.frequency === batch.frequency) &&
        (s.seriesType === undefined || s.seriesType === batch.series_type),
    ),
  );
}

/** The dataset of a COT dataset's reports (`legacy`, `cit`, …). */
export function datasetOfCot(cotDataset: string): DatasetRow | undefined {
  return DATASETS.find((d) => d.select.some((s) => s.kind === 'cot' && s.dataset === cotDataset));
}

/** The dataset of the supply and demand balance sheets. */
export function datasetOfSupplyDemand(): DatasetRow | undefined {
  return DATASETS.find((d) => d.select.some((s) => s.kind === 'supply_demand'));
}

export const DatasetId = documented(z.enum(DATASET_IDS), {
  id: 'DatasetId',
  description: `A dataset: one source's report kind. ${DATASETS.map((d) => `\`${d.id}\` (${d.title})`).join(', ')}.`,
});

/** How many days of conditions GET /datasets lists per dataset (today included). */
export const CONDITION_DAYS = 90;
/** A release first served more than this after its scheduled time was loaded after the fact (a backfill): its lag is not counted. */
export const BACKFILL_AFTER_MS = 7 * 86_400_000;
/** The longest window GET /releases lists, in days. */
export const RELEASES_MAX_DAYS = 366;
/** The dates a GET /releases window may hold (the calendars cover 1900 to 2999; a window needs some months before it). */
export const RELEASES_FIRST_DATE = '1901-01-01';
export const RELEASES_LAST_DATE = '2998-12-31';

const Instant = z.iso.datetime({ offset: true });
const Day = z.iso.date();

// ---------------------------------------------------------------------------------------------
// What the services keep in NATS KV (written by one, followed by the gateway)
// ---------------------------------------------------------------------------------------------

/**
 * The NATS KV bucket of the release ledger: one key per dataset id, written by the projector
 * (compare-and-set on the key's revision), followed by the gateway.
 */
export const RELEASES_BUCKET = 'CDS_RELEASES';

/**
 * One stretch of a dataset's data first served together: the dates `lo`..`hi` (the observations or
 * report dates the events carried), when the projector first made them readable (`f`), and the
 * release's publication time (`p`, `e` when estimated). Stretches with the same `p` and `e` whose
 * dates touch or lie within LEDGER_MERGE_GAP_DAYS are merged (the earlier `f` kept).
 */
export const LedgerEntry = z.object({
  lo: Day,
  hi: Day,
  f: Instant,
  p: Instant,
  e: z.literal(true).optional(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;
export const LEDGER_MERGE_GAP_DAYS = 10;
/** At most this many entries per dataset are kept (the oldest by `hi` are dropped first). */
export const LEDGER_MAX_ENTRIES = 20_000;

/** A dataset's ledger as stored under its id in RELEASES_BUCKET, sorted by `lo`. */
export const DatasetLedger = z.object({
  dataset: z.string().min(1).max(60),
  entries: z.array(LedgerEntry).max(LEDGER_MAX_ENTRIES),
});
export type DatasetLedger = z.infer<typeof DatasetLedger>;

/**
 * A day on which a source's sync failed, in the sync state bucket (SYNC_BUCKET of status.ts) under
 * `sourceErrorKey(source, date)`: written by `ingest sync` after a failed run, one key per source
 * and New York date, its count raised by each failed run that day.
 */
export const SourceErrorDay = z.object({
  source: z.enum(SYNC_SOURCE_NAMES),
  date: Day,
  failed_runs: z.int().min(1),
  /** The last failure's message (first failing series first). */
  last_error: z.string().max(2_000),
  last_failed_at: Instant,
});
export type SourceErrorDay = z.infer<typeof SourceErrorDay>;
/** `errors.<source>.<YYYY-MM-DD>` */
export function sourceErrorKey(source: string, date: string): string {
  return `errors.${source}.${date}`;
}

/** The NATS KV bucket of the incidents an operator writes (`npm run admin -- incident …`), one key per incident id. */
export const INCIDENTS_BUCKET = 'CDS_INCIDENTS';
export const INCIDENT_STATES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export const IncidentId = z.string().regex(/^inc_[0-9a-z]{8,40}$/);

export const IncidentUpdate = documented(
  z.object({
    at: Instant.meta({ description: 'When the operator wrote it (RFC 3339).' }),
    state: z.enum(INCIDENT_STATES),
    message: z.string().min(1).max(2_000),
  }),
  { id: 'IncidentUpdate', description: "One update of an incident, in the operator's words." },
);

export const Incident = documented(
  z.object({
    id: IncidentId,
    title: z.string().min(1).max(200),
    state: z.enum(INCIDENT_STATES).meta({ description: 'Its latest state.' }),
    datasets: z.array(DatasetId).meta({ description: 'The datasets it affects (empty: the whole service).' }),
    started_at: Instant,
    resolved_at: Instant.optional().meta({ description: 'When it was resolved; absent while open.' }),
    updates: z.array(IncidentUpdate).min(1).meta({ description: 'Oldest first.' }),
  }),
  { id: 'Incident', description: 'An incident written by an operator.' },
);
export type Incident = z.infer<typeof Incident>;

// ---------------------------------------------------------------------------------------------
// The API: GET /datasets, GET /releases
// ---------------------------------------------------------------------------------------------

export const DATASET_CONDITIONS = ['available', 'degraded', 'late', 'missing'] as const;
export const DatasetCondition = documented(z.enum(DATASET_CONDITIONS), {
  id: 'DatasetCondition',
  description:
    "A dataset's condition on a day: `missing` (a release due that day was not served within " +
    `${BACKFILL_AFTER_MS / 86_400_000} days of its time), \`late\` (it was served after its time plus the grace, or is ` +
    'still not served), `degraded` (a consistency check failed on the data it carried, or the source answered ' +
    'errors that day), else `available` (a cancelled release leaves the day available).',
});

export const CONDITION_REASON_KINDS = [
  'check_failed',
  'late_release',
  'missing_release',
  'source_errors',
  'cancelled',
] as const;
export const ConditionReason = documented(
  z.object({
    kind: z.enum(CONDITION_REASON_KINDS),
    message: z.string().max(2_000),
  }),
  { id: 'ConditionReason', description: "Why a day's condition is what it is." },
);

export const DatasetDay = documented(
  z.object({
    date: Day.meta({ description: 'A day in America/New_York.' }),
    condition: DatasetCondition,
    reasons: z.array(ConditionReason),
  }),
  { id: 'DatasetDay', description: "One day's condition of a dataset." },
);

export const MonthlyLag = documented(
  z.object({
    month: z.string().regex(/^\d{4}-\d{2}$/),
    releases: z.int().min(0).meta({ description: 'Releases scheduled that month and served live (not backfilled).' }),
    p50_lag_seconds: z
      .number()
      .nullable()
      .meta({ description: 'Median lag from scheduled time to first served; null without releases.' }),
    p95_lag_seconds: z.number().nullable(),
  }),
  {
    id: 'MonthlyLag',
    description: "A month's lag from the agency's scheduled release to the first time this service served it.",
  },
);

export const RELEASE_STATUSES = ['scheduled', 'published', 'late', 'missing', 'cancelled'] as const;
export const ReleaseStatus = documented(z.enum(RELEASE_STATUSES), {
  id: 'ReleaseStatus',
  description:
    '`scheduled` (its time is still ahead, or it is due and within the grace), `published` (served by its time ' +
    'plus the grace), `late` (served later, or still not served), `missing` (not served ' +
    `${BACKFILL_AFTER_MS / 86_400_000} days after its time), \`cancelled\` (the agency cancelled it). A release ` +
    'moved by a holiday or a shutdown carries `shifted`.',
});

export const ReleaseRecord = documented(
  z.object({
    dataset: DatasetId,
    report: z.string().max(200),
    scheduled_at: Instant.nullable().meta({
      description: "Its time on the agency's calendar (RFC 3339, UTC); null for a dataset no rule computes.",
    }),
    local_date: Day.meta({ description: 'Its date in America/New_York.' }),
    data_date: Day.meta({ description: 'The newest observation (or report) date it carries.' }),
    status: ReleaseStatus,
    shifted: z
      .object({
        from: Instant.meta({ description: 'Its usual time before the move.' }),
        reason: z.string().max(300),
      })
      .optional(),
    cancelled_reason: z.string().max(300).optional(),
    first_served_at: Instant.nullable().meta({
      description: 'When this service first served the data it carries; null when it has not.',
    }),
    lag_seconds: z.number().nullable().meta({ description: 'first_served_at minus scheduled_at; null without both.' }),
    backfilled: z
      .boolean()
      .optional()
      .meta({
        description: `Served more than ${BACKFILL_AFTER_MS / 86_400_000} days after its time (loaded afterwards): its lag is not counted.`,
      }),
    published_at: Instant.optional().meta({ description: "The release's publication time as stored with its data." }),
    published_at_estimated: z.boolean().optional(),
  }),
  { id: 'ReleaseRecord', description: "One release of a dataset, against the agency's calendar." },
);
export type ReleaseRecord = z.infer<typeof ReleaseRecord>;

export const DatasetSummary = documented(
  z.object({
    id: DatasetId,
    source: z.enum(SYNC_SOURCE_NAMES),
    title: z.string(),
    calendar_rule: z.enum(RELEASE_RULES).nullable(),
    condition: DatasetCondition.meta({ description: "Today's condition (America/New_York)." }),
    days: z.array(DatasetDay).meta({ description: `The last ${CONDITION_DAYS} days, newest first (today first).` }),
    last_release: ReleaseRecord.nullable(),
    next_release: ReleaseRecord.nullable(),
    freshness: z.array(MonthlyLag).meta({ description: 'The last 12 months, newest first.' }),
  }),
  { id: 'DatasetSummary', description: 'A dataset with its daily conditions and its lag per month.' },
);
export type DatasetSummary = z.infer<typeof DatasetSummary>;

export const DatasetsResponse = documented(
  z.object({
    data: z.array(DatasetSummary),
    incidents: z
      .array(Incident)
      .meta({ description: `Incidents open or started in the last ${CONDITION_DAYS} days, newest first.` }),
    meta: z.object({ request_id: RequestId, generated_at: Instant }),
  }),
  { id: 'DatasetsResponse', description: 'Every dataset with its condition over the last 90 days, and the incidents.' },
);
export type DatasetsResponse = z.infer<typeof DatasetsResponse>;

export const ReleasesQuery = documented(
  z.strictObject({
    dataset: DatasetId.meta({ description: 'The dataset (required).' }),
    start_date: Day.optional().meta({
      description:
        `First local date (default: ${CONDITION_DAYS} days before today, or before end_date). From ` +
        `${RELEASES_FIRST_DATE} to ${RELEASES_LAST_DATE}: another date is a 400 naming start_date.`,
    }),
    end_date: Day.optional().meta({
      description:
        `Last local date (default: 31 days after today, or after start_date). From ${RELEASES_FIRST_DATE} to ` +
        `${RELEASES_LAST_DATE}, not before start_date and at most ${RELEASES_MAX_DAYS} days after it: otherwise a ` +
        '400 naming end_date.',
    }),
    status: z
      .enum([...RELEASE_STATUSES, 'shifted'])
      .optional()
      .meta({ description: 'Only releases of this status (`shifted`: the ones a holiday or a shutdown moved).' }),
    page,
    per_page: perPage,
  }),
  { title: 'ReleasesQuery' },
);
export type ReleasesQuery = z.infer<typeof ReleasesQuery>;

export const ReleasesResponse = documented(
  z.object({
    data: z.array(ReleaseRecord).meta({ description: 'Oldest first.' }),
    meta: z.object({
      request_id: RequestId,
      dataset: DatasetId,
      start_date: Day,
      end_date: Day,
      page: z.int().min(1),
      per_page: z.int().min(1),
      total: z.int().min(0),
      freshness: z.array(MonthlyLag).meta({ description: 'Per month of the window, newest first.' }),
    }),
  }),
  { id: 'ReleasesResponse', description: "A dataset's releases in a window, against the agency's calendar." },
);
export type ReleasesResponse = z.infer<typeof ReleasesResponse>;
