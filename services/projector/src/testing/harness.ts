import { CHANGES_STREAM, ChangeRecord, subjectFor, type DataEvent } from '@cds/contracts';
import { connectMessaging, streamSpec, type Messaging } from '@cds/messaging';
import { getTestInfra, startNats } from '@cds/testkit';
import { MongoClient, type Db } from 'mongodb';
import { ensureDeadletterStream } from '../consumer/park.ts';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** Creates the data stream as ingest does (libs/messaging's definition). */
async function ensureDataStream(messaging: Messaging): Promise<void> {
  await messaging.ensureStream(streamSpec('data', { replicas: 1 }));
}

/**
 * What a projector spec runs against: its own NATS server (with the data and dead-letter
 * streams), so it can read its stream from sequence 1, and a client of the shared MongoDB API
 * server. `stop()` closes both.
 */
export async function startSpecServers(name: string): Promise<{
  messaging: Messaging;
  mongo: MongoClient;
  stop(): Promise<void>;
}> {
  const nats = await startNats();
  const messaging = await connectMessaging({ servers: nats.url, name });
  await ensureDataStream(messaging);
  await ensureDeadletterStream(messaging);
  const mongo = await new MongoClient(getTestInfra().mongoUrl).connect();
  return {
    messaging,
    mongo,
    stop: async () => {
      await messaging.close();
      await mongo.close();
      await nats.stop();
    },
  };
}

/** Publishes events in order; returns their stream sequences. */
export async function publishEvents(messaging: Messaging, events: readonly DataEvent[]): Promise<number[]> {
  const seqs: number[] = [];
  for (const e of events) seqs.push((await messaging.publish(subjectFor(e), e, { msgID: e.id })).seq);
  return seqs;
}

/** A message of `CDS_CHANGES` as stored: subject, `Nats-Msg-Id`, and the record (parsed with its contract). */
export interface StoredChange {
  seq: number;
  subject: string;
  msgId: string | undefined;
  record: ChangeRecord;
}

/** The change records `CDS_CHANGES` holds whose subject ends with `.<commodity>`, in stream order. */
export async function readChanges(messaging: Messaging, commodity: string): Promise<StoredChange[]> {
  const { state } = await messaging.jsm.streams.info(CHANGES_STREAM);
  const out: StoredChange[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const m = await messaging.jsm.streams.getMessage(CHANGES_STREAM, { seq }).catch(() => null);
    if (m === null || !m.subject.endsWith(`.${commodity}`)) continue;
    out.push({ seq, subject: m.subject, msgId: m.header?.get('Nats-Msg-Id'), record: ChangeRecord.parse(m.json()) });
  }
  return out;
}

/**
 * SHA-256 over a collection's documents sorted by `_id`, leaving out `_meta.rev` (a write counter
 * that differs between a live collection and a rebuilt one with the same content).
 */
export async function hashCollection(db: Db, name: string): Promise<{ hash: string; count: number }> {
  const docs = await db.collection(name).find({}).sort({ _id: 1 }).toArray();
  const h = createHash('sha256');
  for (const doc of docs) {
    const meta = { ...(doc._meta as Record<string, unknown>) };
    delete meta.rev;
    h.update(canonical({ ...doc, _meta: meta }));
  }
  return { hash: h.digest('hex'), count: docs.length };
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Polls `check` until it returns true (or throws the last failure after `timeoutMs`). */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
  label = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`${label} not met within ${timeoutMs} ms`);
}
