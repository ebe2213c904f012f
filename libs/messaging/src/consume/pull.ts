import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

export interface PullOptions {
  /** Opens a pull (ordered: a new consumer after the position). */
  open: () => Promise<ConsumerMessages>;
  /** Aborted when the loop stops. */
  signal: AbortSignal;
  /** How long to wait for a message, idle, before asking `waitingPulls`. */
  stallCheckMs: number;
  /** Most messages in one batch. */
  maxBatch: number;
  /**
   * Most payload bytes in one batch (the message that crosses it is the last one): a handler's
   * memory grows with what it holds, and a few large events (a year of COT reports each) weigh as
   * much as thousands of small ones. Default: no bound beyond maxBatch.
   */
  maxBatchBytes?: number | undefined;
  onReopen?: ((reason: string) => void) | undefined;
  /** A message arrived (the first of a batch): progress for the watchdog. */
  onMessage: () => void;
  /** Ordered: deliveries at or below this sequence were handled (a recreated consumer may repeat them). */
  handledUpTo?: (() => number) | undefined;
  /** Durable: the pull requests waiting on the server for the consumer; undefined when it cannot say. */
  waitingPulls?: (() => Promise<number | undefined>) | undefined;
}

/**
 * The messages of a pull consumer, batch by batch, with the pull replaced when it is lost. A pull
 * request lives on the server: after NATS is killed and restarted the client's iterator may end,
 * or wait forever on a request the new server never saw (unacked messages are then never
 * redelivered either, as redelivery needs a waiting pull).
 */
export class Pull {
  private inflight: Promise<IteratorResult<JsMsg>> | undefined;
  /** Counts reopens, so the end of a replaced pull is not taken for the end of the current one. */
  private generation = 0;
  private reopening: Promise<void> | undefined;
  private count = 0;
  private readonly opts: PullOptions;
  private messages: ConsumerMessages;
  private iterator: AsyncIterator<JsMsg>;

  private constructor(opts: PullOptions, messages: ConsumerMessages) {
    this.opts = opts;
    this.messages = messages;
    this.iterator = messages[Symbol.asyncIterator]();
  }

  /** Opens the first pull; its failure (no such consumer, NATS unreachable) is the caller's. */
  static async open(opts: PullOptions): Promise<Pull> {
    return new Pull(opts, await opts.open());
  }

  /** How many times the pull was replaced. */
  reopens(): number {
    return this.count;
  }

  /**
   * Replaces the pull, retrying its opening with backoff until it works or the loop stops. One
   * reopen at a time: the watchdog and the loop may both ask for one.
   */
  reopen(reason: string): Promise<void> {
    return (this.reopening ??= this.reopenNow(reason).finally(() => (this.reopening = undefined)));
  }

  /** Closes the current pull; bounded, as close() can wait on a next() still pending. */
  async close(): Promise<void> {
    await Promise.race([this.messages.close().catch(() => undefined), sleep(2_000)]);
  }

  /** The next batch: waits for one message, then takes whatever else is already buffered, within maxBatch and maxBatchBytes. */
  async nextBatch(): Promise<JsMsg[] | undefined> {
    const first = await this.next();
    if (first.done === true) return undefined;
    const batch = [first.value];
    const maxBytes = this.opts.maxBatchBytes ?? Number.POSITIVE_INFINITY;
    let bytes = first.value.data.length;
    while (batch.length < this.opts.maxBatch && bytes < maxBytes) {
      this.inflight ??= this.iterator.next();
      const r = await Promise.race([this.inflight, nextTurn().then(() => 'empty' as const)]);
      if (r === 'empty') break;
      this.inflight = undefined;
      if (r.done === true) break;
      if (this.opts.handledUpTo !== undefined && r.value.seq <= batch.at(-1)!.seq) continue;
      batch.push(r.value);
      bytes += r.value.data.length;
    }
    return batch;
  }

  /**
   * Waits for the next message. Idle longer than `stallCheckMs`, it asks `waitingPulls`: none
   * waiting on two checks in a row means ours is gone, so the pull is reopened (a request about to
   * expire is re-issued at once, so one check could be unlucky).
   */
  private async next(): Promise<IteratorResult<JsMsg>> {
    const { signal } = this.opts;
    let strikes = 0;
    for (;;) {
      const gen = this.generation;
      this.inflight ??= this.iterator.next();
      const idle = new AbortController();
      const r = await Promise.race([
        this.inflight,
        sleep(this.opts.stallCheckMs, 'idle' as const, { signal: idle.signal }).catch(() => 'idle' as const),
      ]);
      idle.abort();
      if (r !== 'idle') {
        this.inflight = undefined;
        if (r.done !== true && this.opts.handledUpTo !== undefined && r.value.seq <= this.opts.handledUpTo()) continue;
        if (r.done !== true) this.opts.onMessage();
        if (r.done !== true || signal.aborted) return r;
        // The end of a pull the watchdog already replaced.
        if (gen !== this.generation) continue;
        await this.reopen('the consumer iterator ended');
        continue;
      }
      if (signal.aborted) return { done: true, value: undefined };
      if (this.opts.waitingPulls === undefined) continue;
      const waiting = await this.opts.waitingPulls();
      strikes = waiting === 0 ? strikes + 1 : 0;
      if (strikes >= 2) {
        strikes = 0;
        await this.reopen('no pull request of ours is waiting on the server');
      }
    }
  }

  private async reopenNow(reason: string): Promise<void> {
    this.opts.onReopen?.(reason);
    this.generation++;
    this.count++;
    const old = this.messages;
    this.inflight?.catch(() => undefined);
    this.inflight = undefined;
    void Promise.race([old.close().catch(() => undefined), sleep(2_000)]);
    const { signal } = this.opts;
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        this.messages = await this.opts.open();
        this.iterator = this.messages[Symbol.asyncIterator]();
        return;
      } catch {
        await sleep(Math.min(5_000, 200 * 2 ** attempt), undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
