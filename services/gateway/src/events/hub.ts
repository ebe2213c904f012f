import {
  SSE_STREAMS_PER_PLAN,
  type ChangeRecord,
  type ErrorCode,
  type KeyEvent,
  type NotificationTopic,
  type Plan,
} from '@cds/contracts';
import type { Logger } from '@cds/telemetry';
import type { Principal } from '../keys/key-table.ts';
import { excessSlots, forbiddenTopicMessage, matches, topicsFor, type StreamFilter } from './filter.ts';
import { HEARTBEAT_FRAME, RETRY_FRAME, SHUTDOWN_FRAME, changeFrame, errorFrame, resyncFrame } from './frames.ts';
import type { ChangeRing } from './ring.ts';
import { StreamCaps } from './stream-caps.ts';
import type { StreamSlots } from './stream-slots.ts';

/** Where a stream's bytes go: the HTTP response (events-route.ts), or a test's recorder. */
export interface StreamSink {
  write(chunk: string): void;
  /** Bytes written but not yet taken by the client (the socket's writableLength). */
  unsent(): number;
  /** Calls `fn` once, when the unsent bytes have been taken. */
  onDrain(fn: () => void): void;
  /** Ends the response, `last` its final bytes. */
  end(last?: string): void;
}

/** Why a stream ended (the `reason` label of cds_gateway_sse_streams_closed). */
export type CloseReason = 'client' | 'unauthorized' | 'forbidden' | 'stream_limit' | 'slow_consumer' | 'shutdown';

export interface HubMetrics {
  eventsSent(n: number): void;
  closed(reason: CloseReason): void;
}

export interface OpenStreamArgs {
  requestId: string;
  principal: Principal;
  /** `types` as asked (undefined: every topic the plan reads, recomputed when the plan changes). */
  requested: readonly NotificationTopic[] | undefined;
  commodities: readonly string[] | undefined;
  /** Resume after this sequence (Last-Event-ID); undefined: from now on. */
  lastEventId: number | undefined;
  /**
   * `lastEventId` is past the stream's last sequence (checked by the route when it is ahead of this
   * replica): the stream was recreated since, so the client may have missed anything (resync).
   */
  pastStreamEnd?: boolean;
  /** The stream's slot in the account's set (filter.ts slotMember). */
  member: string;
  sink: StreamSink;
}

interface HubStream {
  readonly requestId: string;
  readonly keyId: string;
  readonly accountId: string;
  plan: Plan;
  readonly requested: readonly NotificationTopic[] | undefined;
  filter: StreamFilter;
  readonly member: string;
  readonly sink: StreamSink;
  /** The last sequence this stream has passed (sent, or filtered out). */
  cursor: number;
  /**
   * False while the stream is written from the ring as the client takes it: the backlog after
   * Last-Event-ID, or after its unsent bytes passed the bound (new changes wait in the ring).
   */
  live: boolean;
  /** Running while the hub waits for the client to take its bytes: at its end the stream is cut. */
  stall: NodeJS.Timeout | undefined;
  closed: boolean;
}

export interface HubOptions {
  ring: ChangeRing;
  /** The gateway's public origin: notification URLs and error doc_url links. */
  publicBaseUrl: string;
  /**
   * A stream whose unsent bytes pass this is written no more (its changes wait in the ring) until
   * the client takes them; one that has not within `slowGraceMs` is cut off as a slow consumer.
   */
  maxUnsentBytes: number;
  slowGraceMs: number;
  heartbeatMs: number;
  slots: StreamSlots;
  logger: Logger;
  metrics?: HubMetrics | undefined;
  /** Streams open on this process in all, and per client address (stream-caps.ts; SSE_MAX_STREAMS*). */
  maxStreams?: number | undefined;
  maxStreamsPerClient?: number | undefined;
}

/** How much of a backlog is written before waiting for the client to take it. */
const BACKLOG_HIGH_WATER = 64 * 1024;

/**
 * The SSE fan-out of one gateway process. Changes come in once (`publish`, from the one follower
 * of CDS_CHANGES) and are kept in the ring; each is made into its event's bytes once and written
 * to every open stream whose filter matches. A stream resuming after Last-Event-ID first gets the
 * ring's changes after that id (in pieces, as the client takes them), then live ones; since both
 * come from the ring by sequence, nothing is missed or sent twice between them.
 *
 * The hub also ends streams: a revoked key's (`unauthorized`), a stream asking for a COT format
 * its account's new plan lacks (`forbidden`), streams over the new plan's limit (newest first,
 * `rate_limited`), and a slow client (`slow_consumer`), each with a final `event: error` carrying
 * the API's error body. A stream whose unsent bytes pass `maxUnsentBytes` is written no more: its
 * changes stay in the shared ring and it catches up from there once the client has taken its bytes
 * (a burst is no reason to cut a healthy client); one that has not taken them within `slowGraceMs`,
 * or that the ring has moved past, is cut. So memory per stream is bounded by `maxUnsentBytes` plus
 * one event: the hub never queues changes per stream.
 */
export class EventHub {
  readonly #opts: HubOptions;
  readonly #streams = new Set<HubStream>();
  readonly #byKey = new Map<string, Set<HubStream>>();
  readonly #byAccount = new Map<string, Set<HubStream>>();
  #timer: NodeJS.Timeout | undefined;
  readonly #backlogHighWater: number;
  #metrics: HubMetrics | undefined;
  /** The places of this process's streams (taken by the route as a request is checked, freed as its response closes). */
  readonly caps: StreamCaps;

  constructor(opts: HubOptions) {
    this.#opts = opts;
    this.#metrics = opts.metrics;
    this.caps = new StreamCaps({ maxStreams: opts.maxStreams, maxStreamsPerClient: opts.maxStreamsPerClient });
    this.#backlogHighWater = Math.max(1, Math.min(BACKLOG_HIGH_WATER, Math.floor(opts.maxUnsentBytes / 2)));
  }

  /** Where the hub counts events and closed streams (set by buildApp with the gateway's instruments). */
  set metrics(metrics: HubMetrics | undefined) {
    this.#metrics = metrics;
  }

  get size(): number {
    return this.#streams.size;
  }

  get ring(): ChangeRing {
    return this.#opts.ring;
  }

  /** A change recorded on CDS_CHANGES at stream sequence `seq`. */
  publish(seq: number, change: ChangeRecord): void {
    const entry = {
      seq,
      commodity: change.commodity,
      topic: change.topic,
      frame: changeFrame(seq, change, this.#opts.publicBaseUrl),
    };
    if (!this.#opts.ring.push(entry)) return;
    let sent = 0;
    for (const s of this.#streams) {
      if (!s.live) {
        // Written from the ring as the client takes its bytes: it reads this change there, unless
        // the ring has moved past where the client is (it reads too slowly to catch up).
        if (!this.#opts.ring.canResume(s.cursor)) this.#slow(s);
        continue;
      }
      if (seq <= s.cursor) continue;
      s.cursor = seq;
      if (!matches(s.filter, entry)) continue;
      s.sink.write(entry.frame);
      sent += 1;
      if (s.sink.unsent() > this.#opts.maxUnsentBytes) {
        // A burst the client has not taken yet: no more writes until it has (bounded memory);
        // it catches up from the ring, or is cut if it does not within the grace.
        s.live = false;
        this.#waitForDrain(s);
      }
    }
    if (sent > 0) this.#metrics?.eventsSent(sent);
  }

  /** Starts a stream (its response headers are written): the retry hint, the backlog or a resync, then live changes. */
  open(args: OpenStreamArgs): { close(): void } {
    const ring = this.#opts.ring;
    const topics = topicsFor(args.principal.plan, args.requested);
    if (!topics.ok) throw new Error(`open: ${topics.topic} is not allowed for this plan (checked before)`);
    const s: HubStream = {
      requestId: args.requestId,
      keyId: args.principal.keyId,
      accountId: args.principal.accountId,
      plan: args.principal.plan,
      requested: args.requested,
      filter: {
        commodities: args.commodities === undefined ? undefined : new Set(args.commodities),
        topics: topics.topics,
      },
      member: args.member,
      sink: args.sink,
      cursor: ring.lastSeq,
      live: true,
      stall: undefined,
      closed: false,
    };
    this.#streams.add(s);
    index(this.#byKey, s.keyId, s);
    index(this.#byAccount, s.accountId, s);
    s.sink.write(RETRY_FRAME);
    const after = args.lastEventId;
    if (after !== undefined) {
      if (!ring.canResume(after) || args.pastStreamEnd === true) {
        s.sink.write(resyncFrame(ring.lastSeq, after));
      } else if (after < ring.lastSeq) {
        s.cursor = after;
        s.live = false;
        this.#pump(s);
      } else {
        // Ahead of this replica (another one served it further): send only what comes after it.
        s.cursor = after;
      }
    }
    return { close: () => this.clientClosed(s) };
  }

  /** Waits for the client to take what it was sent, then writes on from the ring; cuts it if it does not in time. */
  #waitForDrain(s: HubStream): void {
    s.stall ??= setTimeout(() => this.#slow(s), this.#opts.slowGraceMs);
    s.stall.unref?.();
    s.sink.onDrain(() => {
      clearTimeout(s.stall);
      s.stall = undefined;
      this.#pump(s);
    });
  }

  /** Writes a stream from the ring after its cursor (the backlog, or a burst it fell behind in), then makes it live. */
  #pump(s: HubStream): void {
    if (s.closed) return;
    const ring = this.#opts.ring;
    if (!ring.canResume(s.cursor)) {
      this.#slow(s);
      return;
    }
    let sent = 0;
    for (let i = ring.indexAfter(s.cursor); i < ring.size; i += 1) {
      const entry = ring.at(i);
      s.cursor = entry.seq;
      if (!matches(s.filter, entry)) continue;
      s.sink.write(entry.frame);
      sent += 1;
      if (s.sink.unsent() >= this.#backlogHighWater && i + 1 < ring.size) {
        this.#metrics?.eventsSent(sent);
        this.#waitForDrain(s);
        return;
      }
    }
    if (sent > 0) this.#metrics?.eventsSent(sent);
    s.live = true;
  }

  /** The client went away (or the response closed): forget the stream and free its slot. */
  clientClosed(s: HubStream): void {
    if (s.closed) return;
    this.#remove(s);
    this.#metrics?.closed('client');
  }

  /** Every heartbeat: a comment on every stream (and the slow-consumer check), and the slots refreshed. */
  heartbeat(): Promise<void> {
    for (const s of [...this.#streams]) {
      if (!this.#opts.ring.canResume(s.cursor)) this.#slow(s);
      else if (s.stall === undefined) s.sink.write(HEARTBEAT_FRAME);
    }
    return this.#opts.slots.refresh([...this.#streams].map((s) => ({ accountId: s.accountId, member: s.member })));
  }

  startHeartbeat(): void {
    this.#timer ??= setInterval(() => {
      this.heartbeat().catch((err: unknown) => this.#opts.logger.warn({ err }, 'SSE heartbeat: slot refresh failed'));
    }, this.#opts.heartbeatMs);
    this.#timer.unref();
  }

  /** A key event, after the key table applied it: revocations and plan changes act on open streams at once. */
  onKeyEvent(event: KeyEvent): void {
    if (event.type === 'key.revoked') {
      for (const s of [...(this.#byKey.get(event.data.key_id) ?? [])]) {
        this.#end(s, 'unauthorized', 'unauthorized', 'The API key of this stream was revoked.');
      }
    } else if (event.type === 'account.plan_changed') {
      void this.planChanged(event.data.account_id, event.data.plan).catch((err: unknown) =>
        this.#opts.logger.error({ err }, 'SSE: applying a plan change failed'),
      );
    }
  }

  /**
   * Applies an account's new plan to its streams: the topics recomputed (a stream without `types`
   * gets what the new plan reads; one that asked for a COT format the plan lacks ends `forbidden`),
   * then the streams beyond the new limit, newest first over every replica's slots, end.
   */
  async planChanged(accountId: string, plan: Plan): Promise<void> {
    for (const s of [...(this.#byAccount.get(accountId) ?? [])]) {
      s.plan = plan;
      const topics = topicsFor(plan, s.requested);
      if (topics.ok) {
        s.filter = { commodities: s.filter.commodities, topics: topics.topics };
      } else {
        this.#end(s, 'forbidden', 'forbidden', `Your plan changed. ${forbiddenTopicMessage(topics.topic)}`, 'types');
      }
    }
    const limit = SSE_STREAMS_PER_PLAN[plan];
    const mine = this.#byAccount.get(accountId);
    if (mine === undefined) return;
    const excess = new Set(excessSlots(await this.#opts.slots.members(accountId), plan, limit));
    for (const s of [...(this.#byAccount.get(accountId) ?? [])]) {
      if (!excess.has(s.member) || s.plan !== plan) continue;
      this.#end(
        s,
        'stream_limit',
        'rate_limited',
        `Your plan changed: it allows ${limit} concurrent event stream${limit === 1 ? '' : 's'}; this one, among the newest, was closed.`,
      );
    }
  }

  /** Server shutdown: every stream ends with a comment (clients reconnect, to another replica, with Last-Event-ID). */
  async closeAll(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    const all = [...this.#streams];
    for (const s of all) {
      this.#remove(s, false);
      s.sink.end(SHUTDOWN_FRAME);
      this.#metrics?.closed('shutdown');
    }
    await Promise.all(all.map((s) => this.#opts.slots.release(s.accountId, s.member)));
  }

  #slow(s: HubStream): void {
    this.#end(
      s,
      'slow_consumer',
      'slow_consumer',
      `The stream was closed because the client read too slowly (it did not take the events sent to it within ` +
        `${this.#opts.slowGraceMs} ms). ` +
        'Reconnect with Last-Event-ID to receive what followed.',
    );
  }

  #end(s: HubStream, reason: CloseReason, code: ErrorCode, message: string, param?: string): void {
    if (s.closed) return;
    this.#remove(s);
    s.sink.end(
      errorFrame(code, message, {
        requestId: s.requestId,
        publicBaseUrl: this.#opts.publicBaseUrl,
        ...(param === undefined ? {} : { param }),
      }),
    );
    this.#metrics?.closed(reason);
  }

  #remove(s: HubStream, release = true): void {
    s.closed = true;
    clearTimeout(s.stall);
    s.stall = undefined;
    this.#streams.delete(s);
    unindex(this.#byKey, s.keyId, s);
    unindex(this.#byAccount, s.accountId, s);
    if (release) {
      void this.#opts.slots
        .release(s.accountId, s.member)
        .catch((err: unknown) => this.#opts.logger.warn({ err }, 'SSE: freeing a stream slot failed'));
    }
  }
}

function index(map: Map<string, Set<HubStream>>, key: string, s: HubStream): void {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  set.add(s);
}

function unindex(map: Map<string, Set<HubStream>>, key: string, s: HubStream): void {
  const set = map.get(key);
  set?.delete(s);
  if (set?.size === 0) map.delete(key);
}
