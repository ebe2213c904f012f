import type { ConsumerInfo } from '@nats-io/jetstream';
import { describe, expect, it, vi } from 'vitest';
import { consumeStream } from '../consume.ts';
import { durableAcks, durableBacklog } from './durable.ts';
import { FakeMessages, fakeMsg } from './testing/fakes.ts';
import type { ConsumeClients } from './types.ts';

const seq = (stream_seq: number) => ({ stream_seq, consumer_seq: stream_seq }) as ConsumerInfo['delivered'];
const info = (over: Partial<ConsumerInfo>) =>
  ({
    num_pending: 0,
    num_ack_pending: 0,
    num_waiting: 1,
    delivered: seq(10),
    ack_floor: seq(10),
    ...over,
  }) as ConsumerInfo;

describe('durableBacklog', () => {
  it('is empty when nothing is pending or unacknowledged', () => {
    expect(durableBacklog('proj', info({}))).toEqual({ empty: true });
  });

  it('reports what the server holds, keyed by the consumer position', () => {
    expect(durableBacklog('proj', info({ num_pending: 4, num_ack_pending: 2, delivered: seq(12) }))).toEqual({
      empty: false,
      key: '12/10/4',
      onlyUnacked: false,
      report: {
        phase: 'waiting',
        durable: 'proj',
        quietMs: 0,
        pending: 4,
        ackPending: 2,
        waitingPulls: 1,
        deliveredSeq: 12,
        ackFloorSeq: 10,
      },
    });
  });

  it('marks a backlog of only unacknowledged messages', () => {
    expect(durableBacklog('proj', info({ num_ack_pending: 3 }))).toMatchObject({ empty: false, onlyUnacked: true });
  });
});

describe('durableAcks', () => {
  it('beats every third of the ack wait, at least every 100 ms', () => {
    expect(durableAcks(30_000).heartbeatMs).toBe(10_000);
    expect(durableAcks(150).heartbeatMs).toBe(100);
  });

  it('never throws on a closed connection', () => {
    const closed = {
      ack: () => {
        throw new Error('closed');
      },
    };
    expect(() => durableAcks(1_000).ack(closed as never)).not.toThrow();
  });
});

/** A durable consumer whose pulls the spec feeds. */
function fakeClients(pulls: FakeMessages[], ackWaitNanos = 3_000_000_000) {
  const consumer = {
    info: vi.fn((cached?: boolean) =>
      Promise.resolve(cached === true ? ({ config: { ack_wait: ackWaitNanos } } as ConsumerInfo) : info({})),
    ),
    consume: vi.fn(() => Promise.resolve(pulls.shift()!.messages)),
  };
  const get = vi.fn(() => Promise.resolve(consumer));
  const flush = vi.fn(() => Promise.resolve());
  const clients = {
    nc: { isClosed: () => false, flush },
    js: { consumers: { get } },
    jsm: {},
  } as unknown as ConsumeClients;
  return { clients, consumer, get, flush };
}

describe('consumeStream, durable (over a fake consumer)', () => {
  it('acks each batch after the handler, moves the position to the highest settled, flushes on stop', async () => {
    const pull = new FakeMessages();
    const { clients, get, consumer, flush } = fakeClients([pull]);
    const handled: number[][] = [];
    const running = await consumeStream(clients, {
      stream: 'S',
      mode: { kind: 'durable', durable: 'proj' },
      batchSize: 32,
      onPoison: () => undefined,
      handler: (batch) => void handled.push(batch.map((m) => m.seq)),
    });
    expect(get).toHaveBeenCalledWith('S', 'proj');
    expect(consumer.consume).toHaveBeenCalledWith({ max_messages: 32 });
    const msgs = [fakeMsg(5), fakeMsg(3), fakeMsg(6)];
    pull.push(...msgs);
    await vi.waitFor(() => expect(running.position()).toBe(6));
    const late = fakeMsg(2);
    pull.push(late);
    await vi.waitFor(() => expect(late.told).toEqual(['ack']));
    // The highest settled, not the last: a late redelivery does not move it back.
    expect(running.position()).toBe(6);
    expect(handled).toEqual([[5, 3, 6], [2]]);
    expect(msgs.map((m) => m.told)).toEqual([['ack'], ['ack'], ['ack']]);
    await running.stop();
    await running.done;
    expect(flush).toHaveBeenCalled();
    expect(running.reopens()).toBe(0);
    expect(running.stall()).toBeUndefined();
  });

  it('rejects done once the retries run out (the batch nak’ed)', async () => {
    const pull = new FakeMessages();
    const { clients } = fakeClients([pull]);
    const running = await consumeStream(clients, {
      stream: 'S',
      mode: { kind: 'durable', durable: 'proj' },
      retry: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 3 },
      onPoison: () => undefined,
      handler: () => {
        throw new Error('database gone');
      },
    });
    const msg = fakeMsg(1);
    pull.push(msg);
    await expect(running.done).rejects.toThrow('database gone');
    expect(msg.told.at(-1)).toBe('nak');
    await running.stop();
  });

  it('fails to start when the consumer does not exist', async () => {
    const clients = {
      nc: {},
      js: { consumers: { get: () => Promise.reject(new Error('consumer not found')) } },
      jsm: {},
    } as unknown as ConsumeClients;
    await expect(
      consumeStream(clients, {
        stream: 'S',
        mode: { kind: 'durable', durable: 'nope' },
        onPoison: () => undefined,
        handler: () => undefined,
      }),
    ).rejects.toThrow('consumer not found');
  });
});
