import type { JsMsg } from '@nats-io/jetstream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { PoisonMessageError } from '../errors.ts';
import { Attempts, type AttemptsOptions } from './attempts.ts';
import { durableAcks } from './durable.ts';
import { fakeMsg } from './testing/fakes.ts';
import { StalledAttemptError } from './watchdog.ts';

type Opts = AttemptsOptions<unknown>;

function attempts(opts: Partial<Opts> & Pick<Opts, 'handler'>) {
  const stopping = new AbortController();
  const settled: number[][] = [];
  const onProgress = vi.fn();
  const runner = new Attempts<unknown>({
    decode: (payload) => ({ value: payload }),
    onPoison: () => undefined,
    retry: { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: Infinity },
    acks: durableAcks(300),
    signal: stopping.signal,
    onProgress,
    onSettled: (batch: JsMsg[]) => void settled.push(batch.map((m) => m.seq)),
    ...opts,
  });
  return { runner, stopping, settled, onProgress };
}

describe('Attempts', () => {
  it('acks the batch after the handler, parks then terms the poison (decode or verdict), and settles', async () => {
    const batch = [fakeMsg(1), fakeMsg(2, 'not json {'), fakeMsg(3), fakeMsg(4, { bad: true })];
    const order: string[] = [];
    const { runner, settled, onProgress } = attempts({
      decode: (p) => ((p as { bad?: boolean }).bad ? { reason: 'schema: bad' } : { value: p }),
      handler: (pulled) => {
        order.push(`handler ${pulled.map((m) => (m.poison === undefined ? m.seq : `!${m.seq}`)).join(' ')}`);
        return new Map([[3, new PoisonMessageError('handler says no')]]);
      },
      onPoison: (err, m) => void order.push(`park ${m.seq}: ${err.message}`),
    });
    expect(await runner.run(batch)).toBe(true);
    expect(order).toEqual([
      'handler 1 !2 3 !4',
      'park 2: payload is not valid JSON',
      'park 3: handler says no',
      'park 4: schema: bad',
    ]);
    expect(batch.map((m) => m.told)).toEqual([['ack'], ['term'], ['term'], ['term']]);
    expect(settled).toEqual([[1, 2, 3, 4]]);
    expect(onProgress).toHaveBeenCalled();
    expect(runner.inHand()).toBeUndefined();
  });

  it('retries a failing batch in place with backoff, keeping its deadlines alive, then acks it', async () => {
    const batch = [fakeMsg(1), fakeMsg(2)];
    const errors: Array<{ attempt: number; message: string; seqs: number[] }> = [];
    let calls = 0;
    const { runner } = attempts({
      handler: () => {
        calls++;
        if (calls < 3) throw new Error(`down ${calls}`);
      },
      onError: (err, pulled, attempt) =>
        void errors.push({ attempt, message: (err as Error).message, seqs: pulled.map((m) => m.seq) }),
    });
    expect(await runner.run(batch)).toBe(true);
    expect(errors).toEqual([
      { attempt: 1, message: 'down 1', seqs: [1, 2] },
      { attempt: 2, message: 'down 2', seqs: [1, 2] },
    ]);
    for (const m of batch) {
      expect(m.told.at(-1)).toBe('ack');
      expect(m.told.filter((t) => t === 'working').length).toBeGreaterThanOrEqual(2);
      expect(m.told).not.toContain('nak');
    }
  });

  it('treats a failing onPoison as transient: nothing is termed unparked', async () => {
    const batch = [fakeMsg(1, 'not json {'), fakeMsg(2)];
    let parks = 0;
    const { runner } = attempts({
      handler: () => undefined,
      onPoison: () => {
        parks++;
        if (parks === 1) throw new Error('dead letter unavailable');
      },
    });
    expect(await runner.run(batch)).toBe(true);
    expect(parks).toBe(2);
    expect(batch[0]!.told.filter((t) => t !== 'working')).toEqual(['term']);
    expect(batch[1]!.told.filter((t) => t !== 'working')).toEqual(['ack']);
  });

  it('after maxAttempts, naks the batch and throws the failure', async () => {
    const batch = [fakeMsg(1)];
    const { runner } = attempts({
      retry: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 2 },
      handler: () => {
        throw new Error('still down');
      },
    });
    await expect(runner.run(batch)).rejects.toThrow('still down');
    expect(batch[0]!.told.at(-1)).toBe('nak');
    expect(runner.inHand()).toBeUndefined();
  });

  it('stopped while the batch fails: naks it and reports it unsettled', async () => {
    const batch = [fakeMsg(1)];
    const { runner, stopping, settled } = attempts({
      retry: { initialDelayMs: 10_000, maxDelayMs: 10_000, maxAttempts: Infinity },
      handler: () => {
        throw new Error('down');
      },
    });
    const run = runner.run(batch);
    await vi.waitFor(() => expect(runner.inHand()?.lastError).toBe('down'));
    stopping.abort();
    expect(await run).toBe(false);
    expect(batch[0]!.told.at(-1)).toBe('nak');
    expect(settled).toEqual([]);
  });

  it('an aborted attempt ends at once and is retried; its late answers are not progress', async () => {
    const batch = [fakeMsg(5), fakeMsg(6)];
    const seen: AbortSignal[] = [];
    let lateProgress: (() => void) | undefined;
    const { runner, onProgress } = attempts({
      handler: (_batch, { signal, progress }) => {
        seen.push(signal);
        if (seen.length === 1) {
          lateProgress = progress;
          return new Promise<void>(() => undefined); // hangs
        }
        return undefined;
      },
    });
    const run = runner.run(batch);
    await vi.waitFor(() => expect(runner.inHand()).toEqual({ firstSeq: 5, lastSeq: 6, messages: 2, attempt: 1 }));
    runner.abortAttempt(new StalledAttemptError('no progress'));
    expect(await run).toBe(true);
    expect(seen[0]!.aborted).toBe(true);
    expect(seen[0]!.reason).toBeInstanceOf(StalledAttemptError);
    expect(seen).toHaveLength(2);
    onProgress.mockClear();
    lateProgress!();
    expect(onProgress).not.toHaveBeenCalled();
  });

  it('reports the batch in hand with its attempt and last failure', async () => {
    let release!: () => void;
    const inHandOnError: unknown[] = [];
    let calls = 0;
    const { runner } = attempts({
      handler: () => {
        calls++;
        if (calls === 1) throw new Error('read model unavailable');
        return new Promise<void>((resolve) => (release = resolve));
      },
      onError: () => void inHandOnError.push(runner.inHand()),
    });
    const run = runner.run([fakeMsg(1), fakeMsg(2), fakeMsg(3)]);
    await vi.waitFor(() => expect(runner.inHand()?.attempt).toBe(2));
    expect(inHandOnError).toEqual([
      { firstSeq: 1, lastSeq: 3, messages: 3, attempt: 1, lastError: 'read model unavailable' },
    ]);
    // The next attempt keeps the last failure until it fails itself.
    expect(runner.inHand()?.lastError).toBe('read model unavailable');
    release();
    expect(await run).toBe(true);
    expect(runner.inHand()).toBeUndefined();
  });

  it('extends every deadline of a long attempt each heartbeat', async () => {
    const batch = [fakeMsg(1), fakeMsg(2)];
    // Ack wait 300 ms: heartbeat every 100 ms.
    const { runner } = attempts({ handler: () => sleep(350) });
    await runner.run(batch);
    for (const m of batch) {
      expect(m.told.filter((t) => t === 'working').length).toBeGreaterThanOrEqual(2);
      expect(m.told.at(-1)).toBe('ack');
    }
  });

  it('ordered (no acks): settles without acknowledging anything', async () => {
    const batch = [fakeMsg(1), fakeMsg(2, 'not json {')];
    const parked: number[] = [];
    let calls = 0;
    const { runner, settled } = attempts({
      acks: undefined,
      handler: () => {
        calls++;
        if (calls === 1) throw new Error('once');
      },
      onPoison: (_err, m) => void parked.push(m.seq),
    });
    expect(await runner.run(batch)).toBe(true);
    expect(parked).toEqual([2]);
    expect(settled).toEqual([[1, 2]]);
    expect(batch.flatMap((m) => m.told)).toEqual([]);
  });

  it('a message’s working() extends its own deadline (durable)', async () => {
    const batch = [fakeMsg(1), fakeMsg(2)];
    const { runner } = attempts({ handler: (pulled) => pulled[1]!.working() });
    await runner.run(batch);
    expect(batch[0]!.told).toEqual(['ack']);
    expect(batch[1]!.told).toEqual(['working', 'ack']);
  });
});
