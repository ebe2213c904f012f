import { DATA_STREAM, DATA_SUBJECTS, KEYS_STREAM, KEYS_SUBJECTS } from '@cds/contracts';
import type { Messaging } from '@cds/messaging';

export interface StreamSettings {
  /** 1 locally, 3 in production. */
  replicas: number;
  /** Window in which JetStream drops a repeated Nats-Msg-Id. */
  duplicateWindowMs: number;
}

/** Twenty-four hours: a re-run the same day is dropped by the stream itself. */
export const DEFAULT_DUPLICATE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Creates (or aligns) the data and keys streams: file storage, kept forever, deduplicating. */
export async function ensureEventStreams(messaging: Messaging, settings: StreamSettings): Promise<void> {
  for (const [name, subject] of [
    [DATA_STREAM, DATA_SUBJECTS],
    [KEYS_STREAM, KEYS_SUBJECTS],
  ] as const) {
    await messaging.ensureStream({
      name,
      subjects: [subject],
      replicas: settings.replicas,
      duplicateWindowMs: settings.duplicateWindowMs,
      storage: 'file',
    });
  }
}
