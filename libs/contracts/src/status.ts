import { z } from 'zod';
import { COT_CHECKS as COT_CHECKS_LIST, COT_DATASET_NAMES, IsoDate, RequestId } from './primitives.ts';
import { documented } from './registry.ts';
import { RELEASE_DATA_DATES, SOURCES, SYNC_SOURCE_NAMES } from './sources.ts';
import { SUPPLY_DEMAND_CHECKS } from './supply-demand.ts';

/** The official sources `ingest sync` keeps up to date (the synced rows of SOURCES). */
export const SyncSourceName = documented(z.enum(SYNC_SOURCE_NAMES), {
  id: 'SyncSourceName',
  description: `An official source: ${SYNC_SOURCE_NAMES.map((n) => `\`${n}\` (${SOURCES[n].title})`).join(', ')}.`,
});

/**
 * The NATS KV bucket where `ingest sync` keeps its state (docs/decisions.md): per-series cursors
 * (`cursor.<source>.<series>`) and, under the keys `cftc`, `eia`, `nass`, each source's
 * SourceSyncStatus, which the gateway follows to answer GET /status.
 */
export const SYNC_BUCKET = 'CDS_SYNC_STATE';

/** A source's sync status as stored in SYNC_BUCKET under its name (written by ingest, read by the gateway). */
export const SourceSyncStatus = z.object({
  source: z.enum(SYNC_SOURCE_NAMES),
  /** When the last run that completed every series ended (ISO); null before the first. */
  last_success_at: z.string().nullable(),
  /** Newest observation date across the source's series (YYYY-MM-DD); null before any data. */
  newest_data_date: z.string().nullable(),
  last_run_at: z.string(),
  /** Why the last run failed (first failing series first); absent when it succeeded. */
  last_error: z.string().optional(),
});
export type SourceSyncStatus = z.infer<typeof SourceSyncStatus>;

const Instant = z.iso.datetime({ offset: true });

/**
 * The NATS KV bucket where the projector keeps each COT report that failed a consistency check
 * (docs/decisions.md "COT consistency checks"), under `cotCheckKey`, and deletes the key when a
 * later version of the report passes. Only reports dated within COT_CHECKS_DAYS of the projector's
 * clock are kept here (older ones are counted in the projector's metric and served in their
 * `failed_checks`); the gateway follows the bucket to answer GET /status's `consistency`.
 */
export const COT_CHECKS_BUCKET = 'CDS_COT_CHECKS';
export const COT_CHECKS_DAYS = 366;
/** `<dataset>.<report_date>.<commodity>`, e.g. `legacy_combined.2026-06-30.CORN`. */
export function cotCheckKey(dataset: string, reportDate: string, commodity: string): string {
  return `${dataset}.${reportDate}.${commodity}`;
}
/**
 * The key of a supply and demand balance sheet that failed a check, in COT_CHECKS_BUCKET beside the
 * COT reports: `supply_demand.<release date>.<commodity>.<region>.<YYYY-YY>` (the edition's release
 * date in New York; the marketing year's slash written as a dash).
 */
export function supplyDemandCheckKey(releaseDate: string, commodity: string, region: string, marketingYear: string) {
  return `supply_demand.${releaseDate}.${commodity}.${region}.${marketingYear.replace('/', '-')}`;
}

/** Every check a consistency entry can name: the COT ones and the supply and demand ones. */
export const ConsistencyCheck = z.enum([...COT_CHECKS_LIST, ...SUPPLY_DEMAND_CHECKS]);

/**
 * A report's failures as the projector stores them in COT_CHECKS_BUCKET: a COT report (its
 * dataset and report date), or a supply and demand balance sheet (`supply_demand`, the edition's
 * release date, and the sheet's region and marketing year).
 */
export const CotCheckFailure = z.object({
  dataset: z.union([z.enum(COT_DATASET_NAMES), z.literal('supply_demand')]),
  report_date: IsoDate,
  commodity: z.string().min(1).max(64),
  failed_checks: z.array(ConsistencyCheck).min(1),
  /** Supply and demand only: the balance sheet's region and marketing year. */
  sheet: z.object({ region: z.string().min(1).max(60), marketing_year: z.string().min(1).max(7) }).optional(),
  /** When the projector found it (RFC 3339). */
  checked_at: z.string(),
});
export type CotCheckFailure = z.infer<typeof CotCheckFailure>;
/** A calendar date, YYYY-MM-DD (local copies of IsoDate so each field can carry its own description). */
const Day = z.iso.date();

export const ScheduledRelease = documented(
  z.object({
    report: z.string().min(1).max(200).meta({ description: 'The publication, e.g. "Commitments of Traders".' }),
    at: Instant.meta({ description: 'When it is scheduled (RFC 3339, UTC).' }),
    local_date: Day.meta({ description: 'Its date in America/New_York, where the publishers release.' }),
    local_time: z
      .string()
      .regex(/^\d{2}:\d{2}$/)
      .meta({ description: 'Its time in America/New_York, HH:MM.' }),
    data_date: Day.meta({
      description: `The newest observation date the release carries: ${RELEASE_DATA_DATES.join(', ')}.`,
    }),
    shifted_by: z
      .string()
      .max(200)
      .optional()
      .meta({ description: 'The federal holiday that moved the release from its usual day, when one did.' }),
  }),
  { id: 'ScheduledRelease', description: "A release on the publisher's schedule." },
);

export const SourceStatus = documented(
  z.object({
    source: SyncSourceName,
    last_success_at: Instant.nullable().meta({
      description: 'When the last sync that fetched every series of the source ended (RFC 3339); null if none has.',
    }),
    last_run_at: Instant.nullable().meta({
      description: 'When the last sync of the source started; null if none ran.',
    }),
    last_run_failed: z.boolean().meta({
      description: 'The last sync failed for at least one series (its data stays as it was; the next run retries).',
    }),
    newest_data_date: Day.nullable().meta({
      description: 'The newest observation date synced from the source; null before any data.',
    }),
    last_due_release: ScheduledRelease,
    next_release: ScheduledRelease,
    late: z.boolean().meta({
      description:
        "The newest data date is older than the last due release's data date (or nothing was synced yet): the " +
        'source missed a release or sync is not running.',
    }),
  }),
  {
    id: 'SourceStatus',
    description:
      'The freshness of one official source. `last_due_release` is the latest scheduled release whose time plus ' +
      'a grace of 2 hours has passed (its data should be synced by now); `next_release` the next one.',
  },
);

export const ConsistencyDay = documented(
  z.object({
    dataset: z
      .string()
      .regex(/^(?:cot_[a-z_]+|supply_demand)$/)
      .meta({
        description:
          'The dataset, as available_series names it: a COT dataset (cot_legacy, cot_legacy_combined, cot_cit, …) ' +
          'or supply_demand (the USDA supply and demand balance sheets).',
      }),
    date: Day.meta({ description: "The report date (COT), or the edition's release date (supply_demand)." }),
    failed_reports: z.int().min(1).meta({
      description: 'How many reports (COT) or balance sheets (supply_demand) of that dataset and date failed.',
    }),
    checks: z
      .partialRecord(ConsistencyCheck, z.int().min(1))
      .meta({ description: 'Per failed check, how many reports or balance sheets failed it.' }),
    commodities: z.array(z.string()).min(1).meta({ description: 'The commodities whose report failed, by id.' }),
  }),
  { id: 'ConsistencyDay', description: 'The consistency-check failures of one dataset on one date.' },
);

export const StatusResponse = documented(
  z.object({
    data: z.object({
      demo: z.boolean().meta({
        description:
          'This deployment serves generated demonstration data (`npm start -- --demo`) where no official source covers a series; ' +
          'such numbers carry `source: "demo"`.',
      }),
      sources: z.array(SourceStatus),
      consistency: z
        .array(ConsistencyDay)
        .optional()
        .meta({
          description:
            'The COT reports and supply and demand balance sheets that failed a consistency check, per dataset and date, newest ' +
            'first, over the last ' +
            `${COT_CHECKS_DAYS} days (absent when none did). A failing report is still stored and served, naming the ` +
            'checks in its failed_checks.',
        }),
    }),
    meta: z.object({
      request_id: RequestId,
      generated_at: Instant.meta({ description: 'When this document was computed (RFC 3339).' }),
    }),
    links: z
      .object({
        datasets: z.string().meta({ description: "GET /datasets: each dataset's condition over 90 days." }),
        releases: z.string().meta({ description: "GET /releases: a dataset's releases against its calendar." }),
      })
      .optional()
      .meta({ description: 'Where the per-dataset conditions and releases are (absolute URLs).' }),
  }),
  {
    id: 'StatusResponse',
    description: 'Per official source: the last successful sync, the newest data, the next release, and lateness.',
  },
);

export type SyncSourceName = z.infer<typeof SyncSourceName>;
export type ScheduledRelease = z.infer<typeof ScheduledRelease>;
export type SourceStatus = z.infer<typeof SourceStatus>;
export type ConsistencyDay = z.infer<typeof ConsistencyDay>;
export type StatusResponse = z.infer<typeof StatusResponse>;
