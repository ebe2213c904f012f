import { DATA_STREAM } from '@cds/contracts';
import type { Messaging } from '@cds/messaging';

export interface StoredDataEvent {
  type: string;
  data: Record<string, unknown>;
}

/**
 * A reader of the data stream for sync specs: each call returns the data events stored since the
 * previous call (series and COT batches; catalog entries left out).
 */
export function createDataEventReader(m: Messaging): () => Promise<StoredDataEvent[]> {
  let seqRead = 0;
  return async () => {
    const info = await m.jsm.streams.info(DATA_STREAM);
    const out: StoredDataEvent[] = [];
    for (let seq = seqRead + 1; seq <= info.state.last_seq; seq++) {
      const stored = await m.jsm.streams.getMessage(DATA_STREAM, { seq });
      const event = stored!.json<StoredDataEvent>();
      if (!event.type.startsWith('catalog.')) out.push(event);
    }
    seqRead = info.state.last_seq;
    return out;
  };
}
