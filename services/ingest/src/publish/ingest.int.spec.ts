import { DATA_STREAM, DataEvent } from '@cds/contracts';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { startNats, waitUntil, type NatsHandle } from '@cds/testkit';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { SeriesItem, SourceItem } from '../sources/types.ts';
import { createBatcher, type Batch } from './batcher.ts';
import { prepareBatchEvent } from './events.ts';
import { createKvLedger } from './ledger.ts';
import { runIngest, type IngestSummary } from './pipeline.ts';
import { createPublisher, type Publisher } from './publisher.ts';
import { ensureEventStreams } from './streams.ts';

// Each test owns a NATS server: the data stream's subjects (cds.data.>) are fixed.
let nats: NatsHandle | undefined;
let messaging: Messaging | undefined;

afterEach(async () => {
  await messaging?.close().catch(() => undefined);
  await nats?.stop();
  messaging = undefined;
  nats = undefined;
});

async function setup(duplicateWindowMs = 120_000) {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'ingest-int-spec', reconnectTimeWaitMs: 100 });
  await ensureEventStreams(messaging, { replicas: 1, duplicateWindowMs });
  return messaging;
}

/** Synthetic daily prices for `commodities` x `years`, interleaved like a multi-market file, with bad rows. */
function* items(commodities: number, years: number, pointsPerYear: number): Generator<SourceItem> {
  let line = 1;
  for (let d = 0; d < pointsPerYear; d++) {
    for (let y = 0; y < years; y++) {
      for (let c = 0; c < commodities; c++) {
        line++;
        if (line % 997 === 0) {
          yield { kind: 'rejected', file: 'synthetic.csv', line, reason: 'value: not a number' };
          continue;
        }
        const date = `${2000 + y}-${String(1 + (d % 12)).padStart(2, '0')}-${String(1 + Math.floor(d / 12)).padStart(2, '0')}`;
        const item: SeriesItem = {
          kind: 'series',
          commodity_id: `TEST_${c}`,
          series_type: 'price',
          frequency: 'daily',
          unit: 'USD',
          point: { date, value: c * 1000 + y + d / 100 },
        };
        yield item;
      }
    }
  }
}

/** The ids the input should produce, computed without NATS. */
function expectedIds(input: Iterable<SourceItem>, budget: number): Set<string> {
  const b = createBatcher({ budget });
  const ids = new Set<string>();
  const ctx = { source: 'x', occurredAt: new Date().toISOString() };
  const idOf = (batch: Batch) => {
    const p = prepareBatchEvent(batch, ctx);
    if (!p.ok) throw new Error(p.reason);
    return p.prepared.event.id;
  };
  for (const it of input) if (it.kind !== 'rejected') for (const batch of b.add(it)) ids.add(idOf(batch));
  for (const batch of b.drain()) ids.add(idOf(batch));
  return ids;
}

/** Every event id in the data stream, in order (duplicates included, if any were stored). */
async function storedIds(m: Messaging): Promise<string[]> {
  const info = await m.jsm.streams.info(DATA_STREAM);
  const ids: string[] = [];
  if (info.state.messages === 0) return ids;
  const consumer = await m.js.consumers.get(DATA_STREAM);
  const iter = await consumer.fetch({ max_messages: info.state.messages, expires: 10_000 });
  for await (const msg of iter) {
    const event = DataEvent.parse(msg.json());
    expect(msg.headers?.get('Nats-Msg-Id')).toBe(event.id);
    ids.push(event.id);
    if (ids.length === info.state.messages) break;
  }
  return ids;
}

/** Starts one ingest; `publisher` is there while it runs (its stats move as it goes). */
async function startIngest(
  m: Messaging,
  input: Iterable<SourceItem> | AsyncIterable<SourceItem>,
  opts: { ledger?: boolean; budget?: number } = {},
): Promise<{ publisher: Publisher; run: Promise<IngestSummary> }> {
  const ledger = opts.ledger === false ? undefined : await createKvLedger(m.js, { replicas: 1 });
  const publisher = createPublisher({
    js: m.js,
    window: 256,
    ackTimeoutMs: 2_000,
    retryInitialDelayMs: 50,
    retryMaxDelayMs: 500,
    ...(ledger !== undefined ? { ledger } : {}),
  });
  const run = runIngest({
    items: input,
    publisher,
    source: 'synthetic.csv',
    catalog: [{ id: 'TEST_0', name: 'Test zero', category: 'energy' }],
    batcher: { budget: opts.budget ?? 5_000 },
  });
  return { publisher, run };
}

async function ingest(
  m: Messaging,
  input: Iterable<SourceItem> | AsyncIterable<SourceItem>,
  opts: { ledger?: boolean; budget?: number } = {},
) {
  const { publisher, run } = await startIngest(m, input, opts);
  return { summary: await run, publisher };
}

describe('re-ingest', () => {
  it('publishes nothing new the second time: every event is a duplicate', async () => {
    const m = await setup();
    const input = [...items(6, 4, 120)];
    const expected = expectedIds(input, 5_000);
    const first = await ingest(m, input);
    expect(first.summary.recordsRead).toBe(input.length);
    expect(first.summary.rejected).toBe(input.filter((i) => i.kind === 'rejected').length);
    expect(first.summary.eventsPublished).toBe(expected.size + 1);
    expect(first.summary.duplicatesSkipped).toBe(0);

    const second = await ingest(m, input);
    expect(second.summary.eventsPublished).toBe(0);
    expect(second.summary.duplicatesSkipped).toBe(expected.size + 1);

    // Without the ledger the stream's duplicate window drops them just the same.
    const third = await ingest(m, input, { ledger: false });
    expect(third.summary.eventsPublished).toBe(0);
    expect(third.summary.duplicatesSkipped).toBe(expected.size + 1);

    const stored = await storedIds(m);
    expect(stored).toHaveLength(expected.size + 1);
    expect(new Set(stored.filter((id) => id.startsWith('series.')))).toEqual(expected);
  });

  it('publishes nothing new after the duplicate window has passed, thanks to the ledger', async () => {
    const m = await setup(1_000);
    const input = [...items(3, 2, 30)];
    const first = await ingest(m, input);
    expect(first.summary.eventsPublished).toBeGreaterThan(0);
    await sleep(1_500);
    const second = await ingest(m, input);
    expect(second.summary.eventsPublished).toBe(0);
    expect(second.summary.duplicatesSkipped).toBe(first.summary.eventsPublished);
    expect((await m.jsm.streams.info(DATA_STREAM)).state.messages).toBe(first.summary.eventsPublished);
  });

  it('publishes only the changed batch when one value changes', async () => {
    const m = await setup();
    const input = [...items(3, 2, 30)];
    await ingest(m, input);
    const changed = input.map((it, i) =>
      i === 5 && it.kind === 'series' ? { ...it, point: { ...it.point, value: -1 } } : it,
    );
    const again = await ingest(m, changed);
    expect(again.summary.eventsPublished).toBe(1);
  });
});

describe('NATS restart during a backfill', () => {
  it('loses nothing and duplicates nothing', async () => {
    const m = await setup();
    const handle = nats!;
    const input = [...items(40, 10, 60)];
    // A small budget makes many partial batches: thousands of events, so the restart lands mid-run.
    const budget = 400;
    const expected = expectedIds(input, budget);
    expect(expected.size).toBeGreaterThan(1_000);

    // The source stops halfway until the test lets it go on: NATS is killed while it waits, so
    // the second half is published into a dead server (retries), whatever the machine's speed.
    let reachGate!: () => void;
    const gateReached = new Promise<void>((resolve) => (reachGate = resolve));
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const half = Math.floor(input.length / 2);
    async function* gated(): AsyncGenerator<SourceItem> {
      let n = 0;
      for (const it of input) {
        if (n++ === half) {
          reachGate();
          await gate;
        }
        yield it;
      }
    }
    const { publisher, run } = await startIngest(m, gated(), { budget });
    run.catch(() => undefined);
    const endedEarly = run.then(() => 'the ingest ended before reaching the gate');
    expect(await Promise.race([gateReached.then(() => 'gated'), endedEarly])).toBe('gated');
    const publishedAtRestart = (await m.jsm.streams.info(DATA_STREAM)).state.messages;
    const retriesBeforeKill = publisher.stats.retries;
    const pidBeforeKill = handle.pid;
    await handle.kill('SIGKILL');
    openGate();
    await waitUntil(
      'a publish to fail against the killed server',
      () => {
        if (publisher.stats.retries <= retriesBeforeKill) throw new Error(`retries ${publisher.stats.retries}`);
        return Promise.resolve();
      },
      30_000,
    );
    await handle.restart();
    const summary = await run;
    // Restarted mid-run: a new server process, killed with publishes to come.
    expect(handle.pid).toBeTypeOf('number');
    expect(handle.pid).not.toBe(pidBeforeKill);
    expect(publishedAtRestart).toBeLessThan(expected.size);
    expect(publisher.stats.retries).toBeGreaterThan(0);

    const stored = await storedIds(m);
    const series = stored.filter((id) => id.startsWith('series.'));
    expect(series).toHaveLength(expected.size);
    expect(new Set(series)).toEqual(expected);
    expect(stored).toHaveLength(expected.size + 1);
    // Every event counted once: either stored by this run or found already stored after a retry.
    expect(summary.eventsPublished + summary.duplicatesSkipped).toBe(expected.size + 1);
  });
});
