import { getTestInfra, uniqueName } from '@cds/testkit';
import { createContextKey, context, propagation, type TextMapPropagator } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsumeOptions } from './consume.ts';
import {
  compactStream,
  connectMessaging,
  PoisonMessageError,
  type Messaging,
  type PulledMessage,
  type RunningConsumer,
} from './index.ts';

// Each file owns its stream names, so files can share the one NATS server of the run.
const prefix = uniqueName('msg');
let messaging: Messaging;

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function makeStream(suffix: string): Promise<{ stream: string; subject: string }> {
  const stream = `${prefix}_${suffix}`.toUpperCase();
  await messaging.ensureStream({ name: stream, subjects: [`${stream}.>`], replicas: 1, duplicateWindowMs: 60_000 });
  return { stream, subject: `${stream}.events` };
}

/**
 * The durable loop with a handler per message, as these specs state their cases: a handler that
 * throws PoisonMessageError marks its message poison; any other error fails the batch (retried).
 */
function consumeEach(
  on: Messaging,
  opts: Omit<ConsumeOptions, 'mode' | 'handler' | 'onPoison' | 'decode'> & {
    durable: string;
    handler: (m: PulledMessage) => Promise<void> | void;
    onPoison?: ConsumeOptions['onPoison'];
  },
): Promise<RunningConsumer> {
  const { durable, handler, onPoison, ...rest } = opts;
  return on.consume({
    ...rest,
    mode: { kind: 'durable', durable },
    decode: (payload) => ({ value: payload }),
    onPoison: onPoison ?? (() => undefined),
    handler: async (batch) => {
      const poison = new Map<number, PoisonMessageError>();
      for (const m of batch) {
        if (m.poison !== undefined) continue;
        try {
          await handler(m);
        } catch (err) {
          if (!(err instanceof PoisonMessageError)) throw err;
          poison.set(m.seq, err);
        }
      }
      return poison;
    },
  });
}

beforeAll(async () => {
  messaging = await connectMessaging({ servers: getTestInfra().natsUrl, name: 'messaging-int-spec' });
});

afterAll(async () => {
  await messaging?.close();
});

describe('ensureStream', () => {
  it('creates, then leaves an identical stream alone, then updates a changed one', async () => {
    const name = `${prefix}_ENSURE`.toUpperCase();
    const spec = { name, subjects: [`${name}.>`], replicas: 1, duplicateWindowMs: 30_000 };
    expect((await messaging.ensureStream(spec)).action).toBe('created');
    expect((await messaging.ensureStream(spec)).action).toBe('unchanged');
    const updated = await messaging.ensureStream({
      ...spec,
      maxAgeMs: 3_600_000,
      subjects: [`${name}.>`, `${name}_X.>`],
    });
    expect(updated.action).toBe('updated');
    expect(updated.info.config.subjects).toEqual([`${name}.>`, `${name}_X.>`]);
    expect(
      (await messaging.ensureStream({ ...spec, maxAgeMs: 3_600_000, subjects: [`${name}_X.>`, `${name}.>`] })).action,
    ).toBe('unchanged');
  });

  it('adds a per-subject limit to a stream holding history; compactStream trims what it already held', async () => {
    const name = `${prefix}_COMPACT`.toUpperCase();
    const spec = { name, subjects: [`${name}.>`], replicas: 1, duplicateWindowMs: 30_000 };
    await messaging.ensureStream(spec);
    const publish = (subject: string, body: string) =>
      messaging.js.publish(`${name}.${subject}`, new TextEncoder().encode(body));
    for (const [subject, body] of [
      ['a', 'created'],
      ['a', 'revoked'],
      ['b', 'created'],
      ['c', 'created'],
      ['c', 'changed'],
      ['c', 'changed again'],
    ] as const) {
      await publish(subject, body);
    }
    const limited = await messaging.ensureStream({ ...spec, maxMsgsPerSubject: 1 });
    expect(limited.action).toBe('updated');
    expect(limited.info.config.max_msgs_per_subject).toBe(1);
    expect((await messaging.ensureStream({ ...spec, maxMsgsPerSubject: 1 })).action).toBe('unchanged');
    const latest = () =>
      Promise.all(
        ['a', 'b', 'c'].map(async (s) =>
          new TextDecoder().decode(
            (await messaging.jsm.streams.getMessage(name, { last_by_subj: `${name}.${s}` }))!.data,
          ),
        ),
      );
    // The limit holds for what arrives: a new message on `b` replaces the one it held.
    await publish('b', 'revoked');
    expect((await messaging.jsm.streams.info(name, { subjects_filter: `${name}.b` })).state.subjects).toEqual({
      [`${name}.b`]: 1,
    });
    // What the stream held before the limit is trimmed by compactStream: `a` and `c`, to their latest.
    expect(await compactStream(messaging.jsm, name, 1)).toBeLessThanOrEqual(2);
    expect((await messaging.jsm.streams.info(name)).state.messages).toBe(3);
    expect(await latest()).toEqual(['revoked', 'revoked', 'changed again']);
    expect(await compactStream(messaging.jsm, name, 1)).toBe(0);
  });
});

describe('publish', () => {
  it('drops a second message with the same msgID', async () => {
    const { stream, subject } = await makeStream('dedupe');
    const first = await messaging.publish(subject, { n: 1 }, { msgID: 'event-1' });
    const second = await messaging.publish(subject, { n: 1 }, { msgID: 'event-1' });
    const third = await messaging.publish(subject, { n: 2 }, { msgID: 'event-2' });
    expect(first).toEqual({ stream, seq: 1, duplicate: false });
    expect(second).toEqual({ stream, seq: 1, duplicate: true });
    expect(third).toEqual({ stream, seq: 2, duplicate: false });
    const info = await messaging.jsm.streams.info(stream);
    expect(info.state.messages).toBe(2);
  });
});

describe('durable consumer', () => {
  it('does not redeliver acked messages after a restart, but does redeliver an unacked one', async () => {
    const { stream, subject } = await makeStream('ack');
    await messaging.ensureConsumer({ stream, durable: 'proj', ackWaitMs: 1_000 });
    for (let n = 1; n <= 3; n++) await messaging.publish(subject, { n }, { msgID: `m${n}` });

    const seen: number[] = [];
    const first = await consumeEach(messaging, { stream, durable: 'proj', handler: (m) => void seen.push(m.seq) });
    await waitFor('three messages', () => seen.length === 3);
    await first.stop();
    expect(seen).toEqual([1, 2, 3]);

    // A consumer that dies mid-message (its connection drops without an ack): the server
    // redelivers that message to the next consumer once the ack wait has passed.
    const crashing = await connectMessaging({ servers: getTestInfra().natsUrl, name: 'crashing' });
    let started = false;
    await consumeEach(crashing, {
      stream,
      durable: 'proj',
      handler: () => {
        started = true;
        return new Promise<void>(() => undefined);
      },
    });
    await messaging.publish(subject, { n: 4 }, { msgID: 'm4' });
    await waitFor('the crashing consumer to receive message 4', () => started);
    await crashing.nc.close();

    const again: PulledMessage[] = [];
    const second = await consumeEach(messaging, { stream, durable: 'proj', handler: (m) => void again.push(m) });
    await waitFor('the redelivery', () => again.length === 1, 15_000);
    await sleep(300);
    await second.stop();
    expect(again.map((m) => m.seq)).toEqual([4]);
    expect(again[0]?.redelivered).toBe(true);
    expect(again[0]?.value).toEqual({ n: 4 });
  });

  it('keeps stream order across a restart while new messages keep arriving (maxAckPending 1)', async () => {
    const { stream, subject } = await makeStream('order');
    await messaging.ensureConsumer({ stream, durable: 'proj', ackWaitMs: 1_000 });
    for (let n = 1; n <= 10; n++) await messaging.publish(subject, { n }, { msgID: `m${n}` });

    const applied: number[] = [];
    const first = await consumeEach(messaging, {
      stream,
      durable: 'proj',
      batchSize: 20,
      handler: async (m) => {
        await sleep(20);
        applied.push(m.seq);
      },
    });
    await waitFor('three messages', () => applied.length >= 3);
    await first.stop();
    expect(applied.length).toBeLessThan(10);
    // Newer messages arrive while the old in-flight one waits out its ack wait.
    for (let n = 11; n <= 20; n++) await messaging.publish(subject, { n }, { msgID: `m${n}` });

    const second = await consumeEach(messaging, { stream, durable: 'proj', handler: (m) => void applied.push(m.seq) });
    await waitFor('all twenty', () => applied.length >= 20, 10_000);
    await second.stop();
    expect(applied).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('handles a message another process took and never acked, even after later ones were handled', async () => {
    const { stream, subject } = await makeStream('late');
    await messaging.ensureConsumer({ stream, durable: 'proj', ackWaitMs: 1_000, maxAckPending: 10 });
    for (const n of [1, 2, 3]) await messaging.publish(subject, { n }, { msgID: `late-${n}` });
    // Another replica pulls message 1 and dies without acking it.
    const other = await messaging.js.consumers.get(stream, 'proj');
    const taken = await other.fetch({ max_messages: 1, expires: 2_000 });
    for await (const m of taken) expect(m.seq).toBe(1);
    const seen: number[] = [];
    const consumer = await consumeEach(messaging, {
      stream,
      durable: 'proj',
      handler: (msg: PulledMessage) => {
        seen.push((msg.value as { n: number }).n);
        return Promise.resolve();
      },
    });
    // 2 and 3 first; 1 comes back after its ack wait and must be handled, not skipped as "old".
    await waitFor('the late message', () => seen.includes(1), 10_000);
    await consumer.stop();
    expect(seen.slice(0, 2)).toEqual([2, 3]);
    expect(seen.sort()).toEqual([1, 2, 3]);
  });

  it('retries a transient failure in place, holding the ack deadline, without reordering', async () => {
    const { stream, subject } = await makeStream('retry');
    await messaging.ensureConsumer({ stream, durable: 'proj', ackWaitMs: 1_000 });
    for (let n = 1; n <= 3; n++) await messaging.publish(subject, { n }, { msgID: `m${n}` });

    const calls: Array<{ seq: number; deliveryCount: number }> = [];
    const applied: number[] = [];
    const failUntil = Date.now() + 2_500; // longer than the ack wait: only working() prevents redelivery
    const errors: unknown[] = [];
    const consumer = await consumeEach(messaging, {
      stream,
      durable: 'proj',
      batchSize: 8,
      retry: { initialDelayMs: 200, maxDelayMs: 400 },
      onError: (err) => errors.push(err),
      handler: (m) => {
        calls.push({ seq: m.seq, deliveryCount: m.deliveryCount });
        if (m.seq === 1 && Date.now() < failUntil) throw new Error('read model unavailable');
        applied.push(m.seq);
      },
    });
    await waitFor('all three applied', () => applied.length === 3, 15_000);
    await sleep(1_500); // would expose a redelivery had the deadline lapsed
    await consumer.stop();
    expect(applied).toEqual([1, 2, 3]);
    expect(errors.length).toBeGreaterThanOrEqual(3);
    expect(calls.filter((c) => c.seq === 1).every((c) => c.deliveryCount === 1)).toBe(true);
    expect(calls.filter((c) => c.seq !== 1)).toEqual([
      { seq: 2, deliveryCount: 1 },
      { seq: 3, deliveryCount: 1 },
    ]);
  });

  it('terms a poison message (handler verdict or invalid JSON) and never redelivers it', async () => {
    const { stream, subject } = await makeStream('poison');
    await messaging.ensureConsumer({ stream, durable: 'proj', ackWaitMs: 1_000 });
    const terminated: string[] = [];
    const advisories = messaging.nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.${stream}.proj`, {
      callback: (_err, msg) => void terminated.push(msg.string()),
    });
    await messaging.nc.flush();

    await messaging.publish(subject, { n: 1 }, { msgID: 'm1' });
    await messaging.publish(subject, { n: 2, bad: true }, { msgID: 'm2' });
    await messaging.js.publish(subject, 'not json {', { msgID: 'm3' });
    await messaging.publish(subject, { n: 4 }, { msgID: 'm4' });

    const applied: number[] = [];
    const parked: Array<{ seq: number; reason: string }> = [];
    const consumer = await consumeEach(messaging, {
      stream,
      durable: 'proj',
      onPoison: (err, m) => void parked.push({ seq: m.seq, reason: err.message }),
      handler: (m) => {
        if ((m.value as { bad?: boolean }).bad) throw new PoisonMessageError('schema rejected the event');
        applied.push(m.seq);
      },
    });
    await waitFor('messages 1 and 4 applied', () => applied.length === 2);
    await waitFor('two term advisories', () => terminated.length === 2);
    await sleep(1_500); // past the ack wait: a termed message would be back by now if it were not termed
    await consumer.stop();
    expect(applied).toEqual([1, 4]);
    expect(parked).toEqual([
      { seq: 2, reason: 'schema rejected the event' },
      { seq: 3, reason: 'payload is not valid JSON' },
    ]);

    const replay: number[] = [];
    const restarted = await consumeEach(messaging, {
      stream,
      durable: 'proj',
      handler: (m) => void replay.push(m.seq),
    });
    await sleep(1_500);
    await restarted.stop();
    expect(replay).toEqual([]);
    const info = await messaging.jsm.consumers.info(stream, 'proj');
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_redelivered).toBe(0);
    advisories.unsubscribe();
  });
});

describe('trace context', () => {
  it('carries the publisher context in NATS headers to the handler', async () => {
    // A minimal propagator keeps the test free of an SDK; production registers W3C via libs/telemetry.
    const key = createContextKey('test-trace');
    const propagator: TextMapPropagator = {
      inject: (ctx, carrier, setter) => {
        const value = ctx.getValue(key);
        if (typeof value === 'string') setter.set(carrier, 'x-test-trace', value);
      },
      extract: (ctx, carrier, getter) => {
        const value = getter.get(carrier, 'x-test-trace');
        return typeof value === 'string' ? ctx.setValue(key, value) : ctx;
      },
      fields: () => ['x-test-trace'],
    };
    // Services get both from the telemetry bootstrap; without a context manager `context.with` is a no-op.
    const contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
    propagation.setGlobalPropagator(propagator);
    try {
      const { stream, subject } = await makeStream('trace');
      await messaging.ensureConsumer({ stream, durable: 'proj' });
      await context.with(context.active().setValue(key, 'trace-123'), () =>
        messaging.publish(subject, { n: 1 }, { msgID: 'm1' }),
      );
      const seen: unknown[] = [];
      const consumer = await consumeEach(messaging, {
        stream,
        durable: 'proj',
        handler: (m) => void seen.push(context.active().getValue(key), m.traceContext.getValue(key)),
      });
      await waitFor('the message', () => seen.length === 2);
      await consumer.stop();
      expect(seen).toEqual(['trace-123', 'trace-123']);
    } finally {
      propagation.disable();
      context.disable();
    }
  });
});
