import { startNats, waitUntil, type NatsHandle } from '@cds/testkit';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMessaging, type Messaging, type RunningConsumer } from './index.ts';

/** Waits until `check` holds (it may be async), failing with `what` after `timeoutMs`. */
async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  await waitUntil(
    what,
    async () => {
      if (!(await check())) throw new Error(`not yet: ${what}`);
    },
    timeoutMs,
  );
}

const STREAM = 'PULL_LOOP_TEST';

describe('consumeStream (durable) across a NATS kill -9 and restart', () => {
  let nats: NatsHandle | undefined;
  let messaging: Messaging | undefined;
  let loop: RunningConsumer | undefined;

  afterEach(async () => {
    await loop?.stop();
    await messaging?.close().catch(() => undefined);
    await nats?.stop();
  });

  /** Publishes `n` messages, retrying each until the (restarting) server stores it. */
  async function publish(from: number, n: number): Promise<void> {
    for (let i = from; i < from + n; i++) {
      for (;;) {
        try {
          await messaging!.js.publish(`pl.test.${i % 3}`, new TextEncoder().encode(String(i)), { msgID: `m${i}` });
          break;
        } catch {
          await sleep(100);
        }
      }
    }
  }

  it('handles every message, including a batch that was in the handler when the server died', async () => {
    nats = await startNats();
    messaging = await connectMessaging({ servers: nats.url, name: 'pull-loop-test', reconnectTimeWaitMs: 100 });
    await messaging.ensureStream({ name: STREAM, subjects: ['pl.test.>'], replicas: 1, duplicateWindowMs: 60_000 });
    await messaging.ensureConsumer({
      stream: STREAM,
      durable: 'pl',
      filterSubject: 'pl.test.>',
      ackWaitMs: 2_000,
      maxAckPending: 1_000,
    });
    const handled = new Set<number>();
    let holdNext = false;
    let held: (() => void) | undefined;
    loop = await messaging.consume({
      stream: STREAM,
      mode: { kind: 'durable', durable: 'pl' },
      ackWaitMs: 2_000,
      stallCheckMs: 500,
      onPoison: async () => {},
      handler: async (batch) => {
        if (holdNext) {
          // The server dies while this batch is being applied: its acks go nowhere.
          holdNext = false;
          await new Promise<void>((resolve) => (held = resolve));
        }
        for (const m of batch) handled.add(Number(new TextDecoder().decode(m.data)));
      },
    });
    await publish(0, 20);
    await eventually(() => handled.size === 20, 10_000, 'first 20 handled');

    holdNext = true;
    await publish(20, 5);
    await eventually(() => held !== undefined, 10_000, 'a batch in the handler');
    await nats.kill('SIGKILL');
    held!();
    await sleep(500);
    await nats.restart();
    await publish(25, 20);
    await eventually(() => handled.size === 45, 45_000, `all 45 handled (have ${handled.size})`);
    expect([...handled].sort((a, b) => a - b)).toEqual(Array.from({ length: 45 }, (_, i) => i));
    // Nothing is left unacknowledged on the server.
    await eventually(
      async () => (await messaging!.jsm.consumers.info(STREAM, 'pl')).num_ack_pending === 0,
      15_000,
      'no unacked messages',
    );
  }, 90_000);
});
