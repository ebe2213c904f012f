import { startNats, type NatsHandle } from '@cds/testkit';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMessaging, type Messaging, type PulledMessage } from './index.ts';

// Kills its NATS server, so it runs its own.
let nats: NatsHandle;
let messaging: Messaging;
const warnings: string[] = [];

/** An ordered follow with the watchdog, handing each message to `onMessage`. */
function follow(opts: { after?: number; stallMs?: number; onMessage: (m: PulledMessage<{ i: number }>) => void }) {
  return messaging.consume<{ i: number }>({
    stream: 'FOLLOW',
    mode: { kind: 'ordered', ...(opts.after !== undefined ? { after: opts.after } : {}) },
    decode: (payload) => ({ value: payload as { i: number } }),
    onPoison: () => undefined,
    onReopen: (reason) => void warnings.push(reason),
    watchdog: { stallMs: opts.stallMs ?? 3_000 },
    handler: (batch) => {
      for (const m of batch) opts.onMessage(m);
    },
  });
}

beforeAll(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'follow-spec', reconnectTimeWaitMs: 200 });
  await messaging.ensureStream({ name: 'FOLLOW', subjects: ['follow.>'], replicas: 1, duplicateWindowMs: 60_000 });
});
afterAll(async () => {
  await messaging?.close();
  await nats?.stop();
});

describe('consumeStream, ordered', () => {
  it('delivers every message once, in order, across a kill -9 and restart of NATS', async () => {
    for (let i = 1; i <= 10; i += 1) await messaging.publish('follow.x', { i }, { msgID: `f${i}` });
    const seen: number[] = [];
    const follower = await follow({ stallMs: 1_000, onMessage: (m) => seen.push(m.value!.i) });
    const until = async (n: number, ms: number) => {
      const end = Date.now() + ms;
      while (seen.length < n && Date.now() < end) await sleep(50);
    };
    await until(10, 5_000);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

    await nats.kill('SIGKILL');
    await sleep(1_000);
    await nats.restart();
    for (let i = 11; i <= 20; i += 1) {
      for (;;) {
        try {
          await messaging.publish('follow.x', { i }, { msgID: `f${i}` });
          break;
        } catch {
          await sleep(200); // reconnecting
        }
      }
    }
    await until(20, 20_000);
    expect(seen).toEqual(Array.from({ length: 20 }, (_, k) => k + 1));
    expect(follower.position()).toBe(20);
    await follower.stop();
  });

  it('starts after a given sequence', async () => {
    const seen: number[] = [];
    const follower = await follow({ after: 15, onMessage: (m) => seen.push(m.seq) });
    const end = Date.now() + 5_000;
    while (seen.length < 5 && Date.now() < end) await sleep(50);
    expect(seen).toEqual([16, 17, 18, 19, 20]);
    await follower.stop();
  });
});
