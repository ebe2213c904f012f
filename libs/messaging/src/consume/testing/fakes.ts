import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { vi } from 'vitest';

// Small stand-ins for the unit specs of the consume loop's parts: a delivered message that
// records its acks, and a pull whose deliveries the spec pushes.

export interface FakeMsg extends JsMsg {
  /** The acks it was given, in order (`ack`, `term`, `nak`, `working`). */
  readonly told: string[];
}

export function fakeMsg(seq: number, payload: unknown = { seq }, opts: { pending?: number } = {}): FakeMsg {
  const told: string[] = [];
  const data = new TextEncoder().encode(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const msg = {
    told,
    subject: `test.${seq}`,
    seq,
    data,
    headers: undefined,
    redelivered: false,
    timestamp: new Date(1_700_000_000_000 + seq).toISOString(),
    info: { streamSequence: seq, deliveryCount: 1, pending: opts.pending ?? 0 },
    ack: () => void told.push('ack'),
    term: () => void told.push('term'),
    nak: () => void told.push('nak'),
    working: () => void told.push('working'),
  };
  return msg as unknown as FakeMsg;
}

/** A pull: `push` delivers, `end` ends its iterator (as after a server restart). */
export class FakeMessages {
  private readonly queue: JsMsg[] = [];
  private readonly waiters: ((r: IteratorResult<JsMsg>) => void)[] = [];
  ended = false;
  readonly close = vi.fn(() => {
    this.end();
    return Promise.resolve();
  });

  push(...msgs: JsMsg[]): void {
    for (const m of msgs) {
      const waiter = this.waiters.shift();
      if (waiter !== undefined) waiter({ done: false, value: m });
      else this.queue.push(m);
    }
  }

  end(): void {
    this.ended = true;
    for (const waiter of this.waiters.splice(0)) waiter({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    return {
      next: () => {
        const m = this.queue.shift();
        if (m !== undefined) return Promise.resolve({ done: false, value: m });
        if (this.ended) return Promise.resolve({ done: true, value: undefined });
        return new Promise((resolve) => this.waiters.push(resolve));
      },
    };
  }

  get messages(): ConsumerMessages {
    return this as unknown as ConsumerMessages;
  }
}
