import { getTestInfra, uniqueName } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMessaging, followStream, type Messaging } from './index.ts';

let messaging: Messaging;
const quiet = { warn: () => undefined, error: () => undefined };
/** `{ i: number }`, or the reason it is not. */
const decodeItem = (payload: unknown): { value: { i: number } } | { reason: string } =>
  typeof payload === 'object' && payload !== null && typeof (payload as { i?: unknown }).i === 'number'
    ? { value: payload as { i: number } }
    : { reason: 'not an item' };

beforeAll(async () => {
  messaging = await connectMessaging({ servers: getTestInfra().natsUrl, name: 'follow-stream-spec' });
});
afterAll(async () => {
  await messaging?.close();
});

async function stream(count: number, poisonAt?: number): Promise<string> {
  const name = uniqueName('FOLLOWSTREAM').toUpperCase();
  const subject = `${name.toLowerCase()}.x`;
  await messaging.ensureStream({ name, subjects: [`${name.toLowerCase()}.>`], replicas: 1, duplicateWindowMs: 60_000 });
  for (let i = 1; i <= count; i += 1) {
    await messaging.publish(subject, i === poisonAt ? { bad: true } : { i }, { msgID: `m${i}` });
  }
  return name;
}

describe('followStream', () => {
  it('is caught up at once on an empty stream, and applies what comes later', async () => {
    const name = await stream(0);
    const seen: number[] = [];
    let firstSeq = -1;
    const follower = await followStream(messaging, {
      stream: name,
      decode: decodeItem,
      logger: quiet,
      apply: (v) => seen.push(v.i),
      onFirstSeq: (s) => (firstSeq = s),
    });
    try {
      expect(follower.isCaughtUp()).toBe(true);
      expect(firstSeq).toBe(1);
      await messaging.publish(`${name.toLowerCase()}.x`, { i: 7 }, { msgID: 'late' });
      await expect.poll(() => seen, { timeout: 5_000 }).toEqual([7]);
    } finally {
      await follower.stop();
    }
  });

  it('is caught up only once every message present at start is applied, in order, skipping what fails decode', async () => {
    const name = await stream(50, 20);
    const seen: number[] = [];
    let caughtAt = -1;
    const early: number[] = [];
    const follower = await followStream(messaging, {
      stream: name,
      decode: decodeItem,
      logger: quiet,
      apply: (v, seq) => {
        // Caught up is told only after the last message present at start.
        if (caughtAt !== -1) early.push(seq);
        seen.push(v.i);
      },
      onCaughtUp: (seq) => (caughtAt = seq),
    });
    try {
      await follower.caughtUp;
      expect(caughtAt).toBe(50);
      expect(early).toEqual([]);
      // The position moves once the batch is handled (the catch-up is told from inside it).
      await expect.poll(() => follower.position(), { timeout: 5_000 }).toBe(50);
      expect(seen).toEqual(Array.from({ length: 50 }, (_, k) => k + 1).filter((i) => i !== 20));
    } finally {
      await follower.stop();
    }
  });

  it('throws when the stream does not exist', async () => {
    await expect(
      followStream(messaging, {
        stream: 'NO_SUCH_STREAM_X',
        decode: decodeItem,
        logger: quiet,
        apply: () => undefined,
      }),
    ).rejects.toThrow();
  });
});
