import { describe, expect, it, vi } from 'vitest';
import { FakeMessages, fakeMsg } from './testing/fakes.ts';
import { Pull, type PullOptions } from './pull.ts';

const seqs = (batch: { seq: number }[] | undefined) => batch?.map((m) => m.seq);

/** A pull over `pulls` (one per open), idle check every 20 ms. */
async function pullOver(pulls: FakeMessages[], opts: Partial<PullOptions> = {}) {
  const stopping = new AbortController();
  const reasons: string[] = [];
  const open = vi.fn(() => {
    const next = pulls.shift();
    return next === undefined ? Promise.reject(new Error('no more pulls')) : Promise.resolve(next.messages);
  });
  const pull = await Pull.open({
    open,
    signal: stopping.signal,
    stallCheckMs: 20,
    maxBatch: 256,
    onReopen: (reason) => reasons.push(reason),
    onMessage: () => undefined,
    ...opts,
  });
  return { pull, open, reasons, stopping };
}

describe('Pull', () => {
  it('hands over what is buffered as one batch, at most maxBatch, and tells the first message of each', async () => {
    const messages = new FakeMessages();
    const onMessage = vi.fn();
    const { pull } = await pullOver([messages], { maxBatch: 3, onMessage });
    messages.push(fakeMsg(1), fakeMsg(2), fakeMsg(3), fakeMsg(4), fakeMsg(5));
    expect(seqs(await pull.nextBatch())).toEqual([1, 2, 3]);
    expect(seqs(await pull.nextBatch())).toEqual([4, 5]);
    expect(onMessage).toHaveBeenCalledTimes(2);
  });

  it('ends a batch at maxBatchBytes: the message that crosses it is the last, one over-large message is a batch', async () => {
    const messages = new FakeMessages();
    const { pull } = await pullOver([messages], { maxBatch: 100, maxBatchBytes: 250 });
    const sized = (seq: number, bytes: number) => fakeMsg(seq, 'x'.repeat(bytes));
    messages.push(sized(1, 100), sized(2, 100), sized(3, 100), sized(4, 100), sized(5, 1_000), sized(6, 10));
    expect(seqs(await pull.nextBatch())).toEqual([1, 2, 3]);
    expect(seqs(await pull.nextBatch())).toEqual([4, 5]);
    expect(seqs(await pull.nextBatch())).toEqual([6]);
  });

  it('ordered: skips deliveries at or below the position, and repeats within a batch', async () => {
    const messages = new FakeMessages();
    const onMessage = vi.fn();
    const { pull } = await pullOver([messages], { handledUpTo: () => 2, onMessage });
    messages.push(fakeMsg(1), fakeMsg(2), fakeMsg(3), fakeMsg(3), fakeMsg(4));
    expect(seqs(await pull.nextBatch())).toEqual([3, 4]);
    // Skipped deliveries are not progress.
    expect(onMessage).toHaveBeenCalledTimes(1);
  });

  it('durable: keeps every delivery, repeats included (a redelivery may be one nobody applied)', async () => {
    const messages = new FakeMessages();
    const { pull } = await pullOver([messages]);
    messages.push(fakeMsg(3), fakeMsg(1), fakeMsg(3));
    expect(seqs(await pull.nextBatch())).toEqual([3, 1, 3]);
  });

  it('reopens when the iterator ends, and goes on with the new pull', async () => {
    const first = new FakeMessages();
    const second = new FakeMessages();
    const { pull, reasons } = await pullOver([first, second]);
    const batch = pull.nextBatch();
    first.end();
    second.push(fakeMsg(7));
    expect(seqs(await batch)).toEqual([7]);
    expect(reasons).toEqual(['the consumer iterator ended']);
    expect(pull.reopens()).toBe(1);
    expect(first.close).toHaveBeenCalled();
  });

  it('durable: reopens when no pull request of ours is waiting on two idle checks in a row', async () => {
    const first = new FakeMessages();
    const second = new FakeMessages();
    const answers = [0, 1, 0, 0];
    const waitingPulls = vi.fn(() => Promise.resolve(answers.shift() ?? 1));
    // How many checks had answered when the reopen came (later checks, of the second pull, answer 1:
    // how many of those run before the message is pushed depends on the machine's load).
    let checksAtReopen = -1;
    const { pull, reasons } = await pullOver([first, second], {
      waitingPulls,
      onReopen: (reason) => {
        checksAtReopen = waitingPulls.mock.calls.length;
        reasons.push(reason);
      },
    });
    const batch = pull.nextBatch();
    await vi.waitFor(() => expect(reasons).toHaveLength(1));
    second.push(fakeMsg(1));
    expect(seqs(await batch)).toEqual([1]);
    // 0 then 1 resets the count: only the 3rd and 4th checks make two strikes.
    expect(checksAtReopen).toBe(4);
    expect(reasons).toEqual(['no pull request of ours is waiting on the server']);
  });

  it('durable: keeps waiting while the server cannot say (undefined) or shows our pull', async () => {
    const messages = new FakeMessages();
    const answers: (number | undefined)[] = [undefined, undefined, 1, 1];
    const waitingPulls = vi.fn(() => Promise.resolve(answers.shift()));
    const { pull, reasons } = await pullOver([messages], { waitingPulls });
    const batch = pull.nextBatch();
    await vi.waitFor(() => expect(waitingPulls.mock.calls.length).toBeGreaterThanOrEqual(4));
    messages.push(fakeMsg(1));
    expect(seqs(await batch)).toEqual([1]);
    expect(reasons).toEqual([]);
  });

  it('retries opening a replacement with backoff until it works', async () => {
    const first = new FakeMessages();
    const second = new FakeMessages();
    let fail = true;
    const pulls = [first, second];
    const open = vi.fn(() => {
      if (pulls.length === 1 && fail) {
        fail = false;
        return Promise.reject(new Error('NATS unreachable'));
      }
      return Promise.resolve(pulls.shift()!.messages);
    });
    const { pull } = await pullOver([], { open });
    const reopened = pull.reopen('test');
    // Both ask at once (the loop and the watchdog): one reopen.
    expect(pull.reopen('again')).toBe(reopened);
    await reopened;
    expect(open).toHaveBeenCalledTimes(3);
    expect(pull.reopens()).toBe(1);
    second.push(fakeMsg(1));
    expect(seqs(await pull.nextBatch())).toEqual([1]);
  });

  it('ends (no batch) once stopped, at the next idle check', async () => {
    const messages = new FakeMessages();
    const { pull, stopping } = await pullOver([messages]);
    const batch = pull.nextBatch();
    stopping.abort();
    expect(await batch).toBeUndefined();
  });

  it('lets the first open fail to its caller', async () => {
    await expect(pullOver([])).rejects.toThrow('no more pulls');
  });
});
