import {
  CHANGES_RETENTION_MS,
  CHANGES_STREAM,
  CHANGES_SUBJECTS,
  COT_CHECKS_BUCKET,
  INCIDENTS_BUCKET,
  COT_CHECKS_DAYS,
  DATA_STREAM,
  DATA_SUBJECTS,
  KEYS_STREAM,
  KEYS_SUBJECTS,
  RELEASES_BUCKET,
  SYNC_BUCKET,
} from '@cds/contracts';
import type { StreamSpec } from './streams.ts';

/**
 * Duplicate window of the event streams: a re-run (or a retried publish) the same day is dropped by
 * the stream itself. One value for both event streams, whoever creates them (docs/decisions.md).
 */
export const EVENT_DUPLICATE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Messages the keys stream keeps per subject: the latest event of each account and each key. */
export const KEYS_PER_SUBJECT = 1;

/**
 * How long a revoked key's revocation stays on the keys stream (then the admin API purges its
 * subject): every gateway applied it long before, and a gateway replaying from the start needs
 * nothing of a key whose creation is gone. The dashboard lists revoked keys this long.
 */
export const REVOKED_KEY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** The dead-letter stream of the projector's parked events. */
export const DEADLETTER_STREAM = 'CDS_DEADLETTER';
const DEADLETTER_SUBJECTS = 'cds.deadletter.>';

/**
 * Every JetStream stream the system creates, in one place: file storage, kept forever (limits
 * retention without limits), deduplicating. `ensureStream(streamSpec(...))` creates or aligns one.
 * - `data`: the data events (ingest publishes, the projector consumes).
 * - `keys`: account and key events (the admin API publishes; the gateway and the admin API follow it).
 *   Compacted by subject: one message per account (`cds.keys.account.<id>`) and per key
 *   (`cds.keys.key.<id>`), the latest, so the stream grows with accounts and keys, not with their
 *   history: a revocation replaces its key's creation, and a replay never sees a revoked key's
 *   hash. The admin API purges the revocations themselves after `REVOKED_KEY_RETENTION_MS`.
 * - `deadletter`: events a projection parked; the message id is `<projection>:<sequence>`, so
 *   parking one again within the window (a retry after a partial failure) stores nothing.
 * - `changes`: change notifications (the projector records them; the gateway streams them as SSE,
 *   the notifier delivers webhooks). Kept `CHANGES_RETENTION_MS` (the SSE resume window); the
 *   message id is the notification id, so a change recorded again after a redelivery is stored once.
 */
const STREAMS = {
  data: { name: DATA_STREAM, subjects: [DATA_SUBJECTS], duplicateWindowMs: EVENT_DUPLICATE_WINDOW_MS },
  keys: {
    name: KEYS_STREAM,
    subjects: [KEYS_SUBJECTS],
    duplicateWindowMs: EVENT_DUPLICATE_WINDOW_MS,
    maxMsgsPerSubject: KEYS_PER_SUBJECT,
  },
  deadletter: { name: DEADLETTER_STREAM, subjects: [DEADLETTER_SUBJECTS], duplicateWindowMs: 120_000 },
  changes: {
    name: CHANGES_STREAM,
    subjects: [CHANGES_SUBJECTS],
    duplicateWindowMs: EVENT_DUPLICATE_WINDOW_MS,
    maxAgeMs: CHANGES_RETENTION_MS,
  },
} as const satisfies Record<string, Omit<StreamSpec, 'replicas'>>;

type StreamName = keyof typeof STREAMS;

/**
 * The spec of one of the system's streams. `replicas` is the deployment's (1 locally, 3 in
 * production); `duplicateWindowMs` overrides the window (ingest's DUPLICATE_WINDOW_MS, tests).
 */
export function streamSpec(which: StreamName, opts: { replicas: number; duplicateWindowMs?: number }): StreamSpec {
  const def = STREAMS[which];
  return {
    name: def.name,
    subjects: [...def.subjects],
    replicas: opts.replicas,
    duplicateWindowMs: opts.duplicateWindowMs ?? def.duplicateWindowMs,
    ...('maxAgeMs' in def ? { maxAgeMs: def.maxAgeMs } : {}),
    ...('maxMsgsPerSubject' in def ? { maxMsgsPerSubject: def.maxMsgsPerSubject } : {}),
    storage: 'file',
  };
}

/**
 * The sync state KV bucket (`CDS_SYNC_STATE`, stream `KV_CDS_SYNC_STATE`): the latest value per key,
 * file storage. Ingest writes it; a gateway starting before any sync creates it with the same
 * settings. Pass the result to `new Kvm(js).create(...)`.
 */
export function syncBucketSpec(opts: {
  replicas: number;
  bucket?: string;
}): [bucket: string, options: { replicas: number; history: number }] {
  return [opts.bucket ?? SYNC_BUCKET, { replicas: opts.replicas, history: 1 }];
}

/**
 * The COT consistency failures KV bucket (`CDS_COT_CHECKS`, stream `KV_CDS_COT_CHECKS`): one key per
 * failing report, the latest value only, file storage. The projector writes it (and deletes a key
 * when a later version of the report passes); the gateway only reads it for GET /status (until
 * the projector has created it, the gateway reports no failure and looks again). A key lives a week beyond COT_CHECKS_DAYS, so a
 * report that stopped being rewritten leaves the bucket on its own. Pass the result to `new Kvm(js).create(...)`.
 */
export function cotChecksBucketSpec(opts: {
  replicas: number;
  bucket?: string;
}): [bucket: string, options: { replicas: number; history: number; ttl: number }] {
  return [
    opts.bucket ?? COT_CHECKS_BUCKET,
    { replicas: opts.replicas, history: 1, ttl: (COT_CHECKS_DAYS + 7) * 24 * 60 * 60 * 1000 },
  ];
}

/**
 * The release ledger KV bucket (`CDS_RELEASES`, stream `KV_CDS_RELEASES`): one key per dataset id
 * (DatasetLedger), the latest value only, file storage, kept for good. The projector creates it and
 * compare-and-sets its keys; the gateway only follows it. Pass the result to `new Kvm(js).create(...)`.
 */
export function releasesBucketSpec(opts: {
  replicas: number;
  bucket?: string;
}): [bucket: string, options: { replicas: number; history: number }] {
  return [opts.bucket ?? RELEASES_BUCKET, { replicas: opts.replicas, history: 1 }];
}

/**
 * The incidents KV bucket (`CDS_INCIDENTS`, stream `KV_CDS_INCIDENTS`): one key per incident id
 * (Incident), the latest value only, file storage, kept for good. The admin command creates it and
 * compare-and-sets its keys; the gateway only follows it. Pass the result to `new Kvm(js).create(...)`.
 */
export function incidentsBucketSpec(opts: {
  replicas: number;
  bucket?: string;
}): [bucket: string, options: { replicas: number; history: number }] {
  return [opts.bucket ?? INCIDENTS_BUCKET, { replicas: opts.replicas, history: 1 }];
}
