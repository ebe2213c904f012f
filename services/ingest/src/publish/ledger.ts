import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';

/**
 * The record of event ids already stored in the data stream. Consulted before publishing so a
 * re-ingest publishes nothing even after the stream's duplicate window has passed.
 */
export interface Ledger {
  has(eventId: string): Promise<boolean>;
  record(eventId: string): Promise<void>;
}

export const LEDGER_BUCKET = 'CDS_INGEST_LEDGER';

/** KV keys allow `[-/_=.A-Za-z0-9]`: the event id's `type:hash` becomes `type.hash`. */
export function ledgerKey(eventId: string): string {
  return eventId.replace(/[^-/_=.A-Za-z0-9]/g, '.');
}

/**
 * A ledger in a NATS KV bucket (one key per event id, value = when it was recorded). Opens or
 * creates the bucket with file storage and the given replicas.
 */
export async function createKvLedger(
  js: JetStreamClient,
  opts: { bucket?: string; replicas: number; clock?: () => Date },
): Promise<Ledger & { kv: KV }> {
  const kv = await new Kvm(js).create(opts.bucket ?? LEDGER_BUCKET, { replicas: opts.replicas, history: 1 });
  const clock = opts.clock ?? (() => new Date());
  return {
    kv,
    has: async (eventId) => (await kv.get(ledgerKey(eventId))) !== null,
    record: async (eventId) => {
      await kv.put(ledgerKey(eventId), clock().toISOString());
    },
  };
}

/** A ledger held in memory (tests, or runs with the KV ledger disabled). */
export function createMemoryLedger(): Ledger & { ids: Set<string> } {
  const ids = new Set<string>();
  return {
    ids,
    has: (eventId) => Promise.resolve(ids.has(eventId)),
    record: (eventId) => {
      ids.add(eventId);
      return Promise.resolve();
    },
  };
}
