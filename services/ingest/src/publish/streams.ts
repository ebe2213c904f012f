import { streamSpec, type Messaging } from '@cds/messaging';

export interface StreamSettings {
  /** 1 locally, 3 in production. */
  replicas: number;
  /** Window in which JetStream drops a repeated Nats-Msg-Id (default EVENT_DUPLICATE_WINDOW_MS, 24 h). */
  duplicateWindowMs: number;
}

/** Creates (or aligns) the data and keys streams as libs/messaging defines them, with this deployment's settings. */
export async function ensureEventStreams(messaging: Messaging, settings: StreamSettings): Promise<void> {
  for (const name of ['data', 'keys'] as const) await messaging.ensureStream(streamSpec(name, settings));
}
