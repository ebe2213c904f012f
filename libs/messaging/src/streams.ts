import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import { millis, nanos } from '@nats-io/transport-node';
import { MessagingSetupError } from './errors.ts';

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** 1 locally, 3 in production (a quorum survives the loss of one server). */
  replicas: number;
  /** Drop messages older than this; omit to keep them forever (event streams). */
  maxAgeMs?: number;
  /** Window in which a repeated `Nats-Msg-Id` is dropped as a duplicate. */
  duplicateWindowMs: number;
  /** Default `file`: events are the source of truth. */
  storage?: 'file' | 'memory';
  /**
   * Messages kept per subject (JetStream's `max_msgs_per_subject`): a new message on a full subject
   * removes its oldest. Omit to keep every message (no limit).
   */
  maxMsgsPerSubject?: number;
}

export interface EnsureStreamResult {
  info: StreamInfo;
  action: 'created' | 'updated' | 'unchanged';
}

/** True when `err` is a JetStream API error with the given code (e.g. stream not found). */
export function isJetStreamApiError(err: unknown, code: number): boolean {
  return err instanceof JetStreamApiError && err.code === code;
}

/**
 * True when a write conditioned on a last sequence was refused because the subject (a KV key's
 * revision, `previousSeq`) moved on: another writer got there first (a compare-and-set lost).
 */
export function isWrongLastSequence(err: unknown): boolean {
  return (
    isJetStreamApiError(err, JetStreamApiCodes.StreamWrongLastSequence) ||
    isJetStreamApiError(err, JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');
}

/**
 * Creates the stream, or updates the mutable settings of an existing one so that it matches
 * `spec`; calling it again with the same spec changes nothing. Only fields nats-server 2.9
 * understands are sent (no metadata, compression or subject transforms). Storage cannot be
 * changed on an existing stream, so a mismatch there is an error.
 */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<EnsureStreamResult> {
  const storage = spec.storage === 'memory' ? StorageType.Memory : StorageType.File;
  const maxAge = spec.maxAgeMs === undefined ? 0 : nanos(spec.maxAgeMs);
  const maxMsgsPerSubject = spec.maxMsgsPerSubject ?? -1;
  if (spec.maxAgeMs !== undefined && spec.duplicateWindowMs > spec.maxAgeMs) {
    throw new MessagingSetupError(`stream ${spec.name}: duplicateWindowMs must not exceed maxAgeMs`);
  }
  let existing: StreamInfo | undefined;
  try {
    existing = await jsm.streams.info(spec.name);
  } catch (err) {
    if (!isJetStreamApiError(err, JetStreamApiCodes.StreamNotFound)) {
      throw new MessagingSetupError(`could not read stream ${spec.name}: ${String(err)}`, { cause: err });
    }
  }
  if (existing === undefined) {
    const config: Partial<StreamConfig> & { name: string } = {
      name: spec.name,
      subjects: spec.subjects,
      num_replicas: spec.replicas,
      max_age: maxAge,
      duplicate_window: nanos(spec.duplicateWindowMs),
      storage,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_msgs_per_subject: maxMsgsPerSubject,
    };
    try {
      return { info: await jsm.streams.add(config), action: 'created' };
    } catch (err) {
      throw new MessagingSetupError(`could not create stream ${spec.name}: ${String(err)}`, { cause: err });
    }
  }

  const current = existing.config;
  if (current.storage !== storage) {
    throw new MessagingSetupError(
      `stream ${spec.name} exists with ${current.storage} storage, asked for ${storage}; storage cannot be changed in place`,
    );
  }
  const unchanged =
    sameSet(current.subjects ?? [], spec.subjects) &&
    current.num_replicas === spec.replicas &&
    current.max_age === maxAge &&
    (current.max_msgs_per_subject ?? -1) === maxMsgsPerSubject &&
    millis(current.duplicate_window) === spec.duplicateWindowMs;
  if (unchanged) return { info: existing, action: 'unchanged' };
  try {
    const info = await jsm.streams.update(spec.name, {
      ...current,
      subjects: spec.subjects,
      num_replicas: spec.replicas,
      max_age: maxAge,
      max_msgs_per_subject: maxMsgsPerSubject,
      duplicate_window: nanos(spec.duplicateWindowMs),
    });
    return { info, action: 'updated' };
  } catch (err) {
    throw new MessagingSetupError(`could not update stream ${spec.name}: ${String(err)}`, { cause: err });
  }
}

/**
 * Trims every subject of a stream that holds more than `keep` messages down to its latest `keep`,
 * and resolves with how many subjects it trimmed. A stream's per-subject limit (`maxMsgsPerSubject`)
 * applies as new messages arrive; the history stored before the limit was set stays until this runs
 * (nats-server 2.9 does not trim it when the limit is added). One stream-info request listing the
 * subjects (paged by the client), then one purge per subject over the limit.
 */
export async function compactStream(jsm: JetStreamManager, name: string, keep: number): Promise<number> {
  const info = await jsm.streams.info(name, { subjects_filter: '>' });
  let trimmed = 0;
  for (const [subject, count] of Object.entries(info.state.subjects ?? {})) {
    if (count <= keep) continue;
    await jsm.streams.purge(name, { filter: subject, keep });
    trimmed++;
  }
  return trimmed;
}
