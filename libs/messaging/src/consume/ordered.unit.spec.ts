import { DeliverPolicy, type StreamInfo } from '@nats-io/jetstream';
import { describe, expect, it, vi } from 'vitest';
import { consumeStream } from '../consume.ts';
import { MessagingSetupError } from '../errors.ts';
import { FakeMessages, fakeMsg } from './testing/fakes.ts';
import { orderedBacklog, orderedStart } from './ordered.ts';
import type { ConsumeClients } from './types.ts';

describe('orderedStart', () => {
  it('starts from the first message at position 0, else right after the position', () => {
    expect(orderedStart(0, undefined)).toEqual({ deliver_policy: DeliverPolicy.All });
    expect(orderedStart(41, 'a.>')).toEqual({
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: 42,
      filter_subjects: 'a.>',
    });
  });
});

describe('orderedBacklog', () => {
  it('is empty when the stream is empty or not past the position', () => {
    expect(orderedBacklog('ordered:S', { messages: 0, last_seq: 9 }, 0)).toEqual({ empty: true });
    expect(orderedBacklog('ordered:S', { messages: 5, last_seq: 9 }, 9)).toEqual({ empty: true });
  });

  it('reports the stream ahead of the position', () => {
    expect(orderedBacklog('ordered:S', { messages: 5, last_seq: 9 }, 6)).toEqual({
      empty: false,
      key: '6/9',
      onlyUnacked: false,
      report: {
        phase: 'waiting',
        durable: 'ordered:S',
        quietMs: 0,
        pending: 3,
        ackPending: 0,
        waitingPulls: 0,
        deliveredSeq: 6,
        ackFloorSeq: 6,
      },
    });
  });
});

/** An ordered consumer per open, over the pulls the spec feeds. */
function fakeClients(pulls: FakeMessages[]) {
  const get = vi.fn(() => Promise.resolve({ consume: () => Promise.resolve(pulls.shift()!.messages) }));
  const streamInfo = vi.fn(() => Promise.resolve({ state: { messages: 0, last_seq: 0 } } as StreamInfo));
  const clients = {
    nc: {},
    js: { consumers: { get } },
    jsm: { streams: { info: streamInfo } },
  } as unknown as ConsumeClients;
  return { clients, get };
}

describe('consumeStream, ordered (over fake consumers)', () => {
  it('refuses a watchdog with a filterSubject (it compares with the whole stream)', async () => {
    await expect(
      consumeStream({} as ConsumeClients, {
        stream: 'S',
        mode: { kind: 'ordered', filterSubject: 'a.>' },
        watchdog: { stallMs: 1_000 },
        onPoison: () => undefined,
        handler: () => undefined,
      }),
    ).rejects.toThrow(MessagingSetupError);
  });

  it('handles in order from after the position, skips repeats, and a recreated consumer resumes after it', async () => {
    const first = new FakeMessages();
    const second = new FakeMessages();
    const { clients, get } = fakeClients([first, second]);
    const seen: number[] = [];
    const reasons: string[] = [];
    const running = await consumeStream(clients, {
      stream: 'S',
      mode: { kind: 'ordered', after: 3 },
      onPoison: () => undefined,
      onReopen: (reason) => void reasons.push(reason),
      handler: (batch) => {
        for (const m of batch) seen.push(m.seq);
      },
    });
    expect(get).toHaveBeenLastCalledWith('S', { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: 4 });
    const msgs = [fakeMsg(4), fakeMsg(5)];
    first.push(...msgs);
    await vi.waitFor(() => expect(running.position()).toBe(5));
    first.end();
    await vi.waitFor(() => expect(get).toHaveBeenCalledTimes(2));
    expect(get).toHaveBeenLastCalledWith('S', { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: 6 });
    second.push(fakeMsg(5), fakeMsg(6));
    await vi.waitFor(() => expect(running.position()).toBe(6));
    expect(seen).toEqual([4, 5, 6]);
    expect(reasons).toEqual(['the consumer iterator ended']);
    expect(running.reopens()).toBe(1);
    // Nothing to acknowledge in ordered mode.
    expect(msgs.flatMap((m) => m.told)).toEqual([]);
    await running.stop();
    await running.done;
  });
});
