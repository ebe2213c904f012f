import { z } from 'zod';
import { documented } from './registry.ts';
import { API_PREFIX } from './api-prefix.ts';
import {
  AVAILABLE_SERIES_TYPES,
  COMMODITY_ID_PATTERN,
  CommodityId,
  COT_DATASETS,
  cotDatasetOfType,
  CotFormat,
  CotScope,
  IsoDate,
  SeriesType,
} from './primitives.ts';
import { cotDatasetAllowed, type Plan } from './plans.ts';

/**
 * Change notifications (docs/notifications.md): the projector records on `CDS_CHANGES` every time
 * it changed a series or a COT read model; the gateway streams them as server-sent events
 * (`GET /api/v1/events`) and the notifier delivers them to the webhooks accounts register.
 */
export const CHANGES_STREAM = 'CDS_CHANGES';
export const CHANGES_SUBJECTS = 'cds.changes.>';
/** How long the changes stream keeps a notification: the SSE resume window (`Last-Event-ID`). */
export const CHANGES_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** supply_demand.updated: a WASDE edition changed a balance sheet (first_date/newest_date: its release date). */
export const NOTIFICATION_TYPES = ['series.updated', 'cot.updated', 'supply_demand.updated'] as const;
export const NotificationType = z.enum(NOTIFICATION_TYPES);
export type NotificationType = z.infer<typeof NotificationType>;

/**
 * What a notification is about, in the vocabulary of a commodity's `available_series`: a series
 * type, or a COT dataset (`cot_legacy`, `cot_disaggregated`, `cot_legacy_combined`, `cot_disaggregated_combined`, `cot_cit`). The `types` filter of `/events` and of a webhook.
 */
export const NotificationTopic = z.enum(AVAILABLE_SERIES_TYPES);
export type NotificationTopic = z.infer<typeof NotificationTopic>;

/** `cds.changes.<topic>.<commodity>`: one subject per topic and commodity. */
export function changesSubject(topic: NotificationTopic, commodity: string): string {
  return `cds.changes.${topic}.${commodity}`;
}

/** A stable notification id: `evt_` and 32 hex digits, the same for every delivery of one change. */
export const NotificationId = z.string().regex(/^evt_[0-9a-f]{32}$/);

const Instant = z.iso.datetime({ offset: true });

/**
 * One change as the projector records it on `CDS_CHANGES` (message id = `id`, so a change recorded
 * twice within the stream's duplicate window is stored once). `path` is relative to the public
 * origin: the gateway and the notifier prefix it with theirs.
 */
export const ChangeRecord = z.strictObject({
  id: NotificationId,
  type: NotificationType,
  commodity: CommodityId,
  topic: NotificationTopic,
  /** Series changes: the series type. */
  series_type: SeriesType.optional(),
  /** COT changes: the report format. */
  format: CotFormat.optional(),
  /** COT changes of a combined dataset: futures_and_options (absent: futures only). */
  scope: CotScope.optional(),
  /** Earliest and latest observation (or report) date the change wrote. */
  first_date: IsoDate,
  newest_date: IsoDate,
  /** When the projector wrote it to the read model. */
  landed_at: Instant,
  /** `/api/v1/...`: the request that reads exactly the changed dates. */
  path: z.string().startsWith(`${API_PREFIX}/`).max(500),
});
export type ChangeRecord = z.infer<typeof ChangeRecord>;

/** The `data` of a public notification (SSE `data:` and webhook body). */
export const NotificationData = documented(
  z.strictObject({
    commodity: CommodityId,
    topic: NotificationTopic.meta({
      description: 'The series type, or the COT dataset (cot_legacy, cot_disaggregated, cot_legacy_combined, …).',
    }),
    series_type: SeriesType.optional().meta({ description: 'series.updated: the series type.' }),
    format: CotFormat.optional().meta({ description: 'cot.updated: the report format.' }),
    scope: CotScope.optional().meta({
      description: 'cot.updated of a combined dataset (or cit): futures_and_options. Absent for futures-only reports.',
    }),
    first_date: IsoDate.meta({ description: 'Earliest date the change wrote.' }),
    newest_date: IsoDate.meta({ description: 'Latest date the change wrote.' }),
    landed_at: Instant.meta({ description: 'When the data became readable through the API.' }),
    url: z.url().meta({ description: 'The API request that fetches exactly the changed dates.' }),
  }),
  { id: 'NotificationData' },
);
export type NotificationData = z.infer<typeof NotificationData>;

/** A public notification: the body of a webhook delivery and the `data:` of an SSE event. */
export const Notification = documented(
  z.strictObject({
    id: NotificationId.meta({ description: 'Stable across retries and re-sends: receivers deduplicate on it.' }),
    type: NotificationType,
    /** True only for the test event the dashboard sends. */
    test: z.boolean().optional(),
    data: NotificationData,
  }),
  { id: 'Notification', description: 'A change notification (server-sent event data, webhook body).' },
);
export type Notification = z.infer<typeof Notification>;

/** The public form of a recorded change, `path` resolved against the public origin (`https://api.example.com`). */
export function toNotification(change: ChangeRecord, publicOrigin: string): Notification {
  const data: NotificationData = {
    commodity: change.commodity,
    topic: change.topic,
    ...(change.series_type !== undefined ? { series_type: change.series_type } : {}),
    ...(change.format !== undefined ? { format: change.format } : {}),
    ...(change.scope !== undefined ? { scope: change.scope } : {}),
    first_date: change.first_date,
    newest_date: change.newest_date,
    landed_at: change.landed_at,
    url: new URL(change.path, publicOrigin).toString(),
  };
  return { id: change.id, type: change.type, data };
}

/** The topics a plan may be notified about: COT formats only where the plan reads them (plans.ts). */
export function topicAllowed(
  rules: { cotLegacy: boolean; cotDisaggregated: boolean },
  topic: NotificationTopic,
): boolean {
  const dataset = cotDatasetOfType(topic);
  return dataset === undefined || cotDatasetAllowed(rules, COT_DATASETS[dataset].format);
}

/** Concurrent SSE streams per account, by plan (docs/notifications.md). */
export const SSE_STREAMS_PER_PLAN: Readonly<Record<Plan, number>> = {
  free: 1,
  professional: 5,
  business: 20,
  enterprise: 100,
};

/** Webhook endpoints per account (every plan). */
export const MAX_WEBHOOK_ENDPOINTS = 10;

/** A webhook endpoint's id: `whk_` and 24 hex digits (libs/webhooks draws 12 random bytes). */
export const WebhookEndpointId = z.string().regex(/^whk_[0-9a-f]{24}$/);
export type WebhookEndpointId = z.infer<typeof WebhookEndpointId>;

/** A comma-separated list of distinct allowed values, none empty, at most `max` entries; parsed to the list. */
function csvList<T extends string>(allowed: readonly T[] | ((v: string) => boolean), what: string, max: number) {
  const ok = typeof allowed === 'function' ? allowed : (v: string) => (allowed as readonly string[]).includes(v);
  return z.string().transform((raw, ctx) => {
    const names = raw.split(',');
    if (names.length > max) {
      ctx.addIssue({ code: 'custom', message: `at most ${max} values` });
      return z.NEVER;
    }
    const seen = new Set<string>();
    for (const name of names) {
      if (name === '') {
        ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of ${what} without empty entries` });
        return z.NEVER;
      }
      if (!ok(name)) {
        ctx.addIssue({ code: 'custom', message: `unknown value '${name.slice(0, 40)}': must be ${what}` });
        return z.NEVER;
      }
      if (seen.has(name)) {
        ctx.addIssue({ code: 'custom', message: `'${name.slice(0, 40)}' is listed twice` });
        return z.NEVER;
      }
      seen.add(name);
    }
    return [...seen] as T[];
  });
}

export const MAX_EVENT_FILTER_COMMODITIES = 100;

/** `GET /api/v1/events`: the server-sent event stream of change notifications. */
export const EVENTS_PATH = `${API_PREFIX}/events`;

/**
 * The `id:` of an event received on `/events` (a `CDS_CHANGES` stream sequence), sent back as the
 * `Last-Event-ID` header (or the `last_event_id` parameter) to resume after it.
 */
export const LastEventId = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,14})$/, 'must be the id of an event received: a non-negative integer')
  .transform(Number);

/**
 * `GET /api/v1/events` query parameters. A commodity id of the right shape that the catalog does
 * not know is a 400 naming `commodities` too (the gateway checks it against the catalog).
 */
/** The shapes of the filters' entries in the OpenAPI document (the lists' patterns). */
const ID = COMMODITY_ID_PATTERN.source.slice(1, -1);
const TYPE = AVAILABLE_SERIES_TYPES.join('|');

export const EventsQuery = documented(
  z.strictObject({
    commodities: csvList(
      (v) => CommodityId.safeParse(v).success,
      'commodity ids (UPPER_SNAKE_CASE, for example CORN,GOLD)',
      MAX_EVENT_FILTER_COMMODITIES,
    )
      .optional()
      .meta({
        description:
          'Only these commodities: a comma-separated list of distinct commodity ids the catalog lists (at most ' +
          '100; an id it does not list, or one listed twice, is a 400 naming commodities). Default: all.',
        type: 'string',
        pattern: `^${ID}(,${ID})*$`,
      }),
    types: csvList(
      AVAILABLE_SERIES_TYPES,
      `a comma-separated list of ${AVAILABLE_SERIES_TYPES.join(', ')}`,
      AVAILABLE_SERIES_TYPES.length,
    )
      .optional()
      .meta({
        description:
          'Only these series types or COT datasets (cot_legacy, cot_disaggregated, cot_legacy_combined, cot_disaggregated_combined, cot_cit), comma-separated. Default: every ' +
          'type the plan may read. Asking for a COT format the plan does not include is a 403; one listed twice is a ' +
          '400 naming types.',
        type: 'string',
        pattern: `^(${TYPE})(,(${TYPE}))*$`,
      }),
    last_event_id: LastEventId.optional().meta({
      description:
        'Resume after this event id, for clients that cannot send the Last-Event-ID header (the header wins when ' +
        'both are sent).',
      type: 'string',
    }),
  }),
  { title: 'EventsQuery' },
);
export type EventsQuery = z.infer<typeof EventsQuery>;
