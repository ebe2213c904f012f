import { streamSpec, type Messaging } from '@cds/messaging';

export interface StreamSettings {
  /** 1 locally, 3 in production. */
  replicas: number;
  /** Window in which JetStream drops a repeated Nats-Msg-Id (default EVENT_DUPLICATE_WINDOW_MS, 24 h). */
  duplicateWindowMs: number;
}

/**
 * Creates (or aligns) the event streams as libs/messaging defines them, with this deployment's
 * settings: both by default (the admin API at start); the data publisher passes `['data']`, as its
 * NATS user may not touch CDS_KEYS (docs/operations.md "Credentials").
 */
export async function ensureEventStreams(
  messaging: Messaging,
  settings: StreamSettings,
  which: readonly ('data' | 'keys')[] = ['data', 'keys'],
): Promise<void> {
  for (const name of which) await messaging.ensureStream(streamSpec(name, settings));
}
