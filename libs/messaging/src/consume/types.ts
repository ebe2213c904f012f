import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import type { Context } from '@opentelemetry/api';
import type { PoisonMessageError } from '../errors.ts';

/**
 * How a stream is consumed.
 * - `durable`: a work queue with acks over a durable pull consumer (create it with
 *   `ensureConsumer`): the server keeps the position; messages are acked after the handler,
 *   poison termed, and redelivered when a process dies holding them.
 * - `ordered`: follow the stream from a sequence on and keep up, with an ephemeral ordered consumer
 *   and no acks: the position lives in this process, and a recreated consumer resumes after it.
 */
export type ConsumeMode =
  | { kind: 'durable'; durable: string }
  | {
      kind: 'ordered';
      /** Start after this sequence (0 or absent: from the first message). */
      after?: number;
      filterSubject?: string;
    };

/** A delivered message as a handler sees it. */
export interface PulledMessage<T = unknown> {
  subject: string;
  /** Stream sequence. */
  seq: number;
  deliveryCount: number;
  redelivered: boolean;
  /** Messages left for this consumer after this one (0: caught up). */
  pending: number;
  /** When the stream stored the message (ms since the epoch). */
  storedAtMs: number;
  /** The payload as stored. */
  data: Uint8Array;
  headers: MsgHdrs | undefined;
  /** Trace context the publisher sent. */
  traceContext: Context;
  /** The payload parsed as JSON and decoded by `decode`; undefined without `decode` or when poison. */
  value: T | undefined;
  /** Set when the payload is not JSON or `decode` rejected it: the loop parks it (and terms it). */
  poison: PoisonMessageError | undefined;
  /** Extends the ack deadline (durable mode; a no-op when ordered). */
  working(): void;
}

/** What a handler attempt gets besides its batch. */
export interface AttemptContext {
  /**
   * Aborted when the watchdog gives up on this attempt (or the loop stops): pass it to the
   * operations so they end now. The loop stops waiting for the attempt either way.
   */
  signal: AbortSignal;
  /** Tells the watchdog the attempt is moving (call it after each operation that answered). */
  progress: () => void;
}

/** What the watchdog found stuck. */
export type StallReport =
  | {
      /** A batch has been in the handler (attempts and backoff) without progress. */
      phase: 'handling';
      /** The durable name (ordered mode: `ordered:<stream>`). */
      durable: string;
      quietMs: number;
      firstSeq: number;
      lastSeq: number;
      messages: number;
      attempt: number;
      /** The last failure of this batch, if an attempt failed. */
      lastError?: string;
    }
  | {
      /** The loop waits for messages the server says are there. */
      phase: 'waiting';
      durable: string;
      quietMs: number;
      /** Not yet delivered (`num_pending`; ordered: the stream's last sequence minus the position). */
      pending: number;
      /** Delivered but not acknowledged (`num_ack_pending`; 0 when ordered). */
      ackPending: number;
      /** Pull requests waiting on the server (`num_waiting`; 0 when ordered). */
      waitingPulls: number;
      /** Ordered: the position. */
      deliveredSeq: number;
      ackFloorSeq: number;
    };

export interface WatchdogOptions {
  /** No progress for this long while messages are pending is a stall. */
  stallMs: number;
  /** A stall was found and recovery started (called once per stall). */
  onStall?: (report: StallReport) => void;
  /** Still no progress `stallMs` after recovery started (called once per stall). */
  onRecoveryFailed?: (report: StallReport) => void;
  /** Progress again after a stall. */
  onRecovered?: (report: StallReport, stalledForMs: number) => void;
}

export interface ConsumeOptions<T = unknown> {
  stream: string;
  mode: ConsumeMode;
  /**
   * Decodes a payload already parsed as JSON (a contract's `safeParse`, say). A payload that is not
   * JSON, or that `decode` rejects, is poison: it reaches the handler with `poison` set (skip it),
   * then `onPoison`, then `term()` in durable mode. Without `decode` nothing is parsed.
   */
  decode?: (payload: unknown) => { value: T } | { reason: string };
  /**
   * Handles a batch of consecutive deliveries (in delivery order). May resolve with more poison
   * messages (by sequence); every other message of the batch is acked. Throwing is a transient
   * failure: the whole batch is retried in place.
   */
  handler: (
    batch: PulledMessage<T>[],
    attempt: AttemptContext,
  ) => Promise<Map<number, PoisonMessageError> | void> | Map<number, PoisonMessageError> | void;
  /** Parks (or logs) one poison message; a failure here is transient (the batch is retried, nothing is termed unparked). */
  onPoison: (err: PoisonMessageError, msg: PulledMessage<T>) => Promise<void> | void;
  onError?: (err: unknown, batch: PulledMessage<T>[], attempt: number) => void;
  /** Messages pulled ahead. Default 256. */
  batchSize?: number;
  /** Most messages handed to the handler at once (those already buffered). Default 256. */
  maxBatch?: number;
  /** Most payload bytes handed to the handler at once (the message crossing it ends the batch). Default: no bound. */
  maxBatchBytes?: number;
  /** Durable: the consumer's ack wait (paces `working()`). Default: read from the consumer. */
  ackWaitMs?: number;
  /** Backoff of transient failures; after `maxAttempts` (default: no limit) `done` rejects with the failure. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number; maxAttempts?: number };
  /**
   * Durable: how long the loop may wait for a message, idle, before it asks the server whether
   * its pull request is still there. Default 10 s.
   */
  stallCheckMs?: number;
  /** Where the loop reports reopening its pull. */
  onReopen?: (reason: string) => void;
  /** Detects and recovers a loop that stopped making progress (see `consumeStream`, `consume/watchdog.ts`). */
  watchdog?: WatchdogOptions;
}

export interface RunningConsumer {
  /** Finishes the batch in hand (settled, or nak'ed if it was still failing), then stops pulling. */
  stop(): Promise<void>;
  /** Settles when the loop stops; rejects if it failed (retries exhausted). */
  readonly done: Promise<void>;
  /** Ordered: the sequence of the last handled message. Durable: the highest one this loop settled. */
  position(): number;
  /** How many times the pull was reopened (iterator ended, pull lost, watchdog). */
  reopens(): number;
  /** The stall in progress, if any, and whether its recovery failed. */
  stall(): { report: StallReport; sinceMs: number; recoveryFailed: boolean } | undefined;
}

/** The connection and JetStream clients a consume loop runs on. */
export interface ConsumeClients {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}
