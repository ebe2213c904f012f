import {
  COT_DATASETS,
  cotDatasetOfType,
  type ChangeRecord,
  type KeyEvent,
  type NotificationTopic,
  type Plan,
} from '@cds/contracts';
import { createLogger } from '@cds/telemetry';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { excessSlots, matches, slotForbiddenUnder, slotMember, topicsFor } from './filter.ts';
import { EventHub, type CloseReason, type StreamSink } from './hub.ts';
import { ChangeRing } from './ring.ts';
import { createStreamSlots } from './stream-slots.ts';

const logger = createLogger({ name: 'hub-spec', level: 'silent' });
const ORIGIN = 'https://api.example.com';

function change(n: number, commodity = 'GOLD', topic: NotificationTopic = 'price'): ChangeRecord {
  const dataset = cotDatasetOfType(topic);
  const cot = dataset === undefined ? undefined : COT_DATASETS[dataset];
  return {
    id: `evt_${n.toString(16).padStart(32, '0')}`,
    type: cot ? 'cot.updated' : 'series.updated',
    commodity,
    topic,
    ...(cot === undefined
      ? { series_type: topic as ChangeRecord['series_type'] }
      : { format: cot.format, ...(cot.scope === 'futures_and_options' ? { scope: cot.scope } : {}) }),
    first_date: '2025-01-02',
    newest_date: '2025-01-03',
    landed_at: '2025-01-03T10:00:00.000Z',
    path: `/api/v1/commodities/${commodity}/series?type=${topic}&start_date=2025-01-02&end_date=2025-01-03`,
  };
}

/** A response as the hub sees it: what was written, and a client that takes bytes only when told. */
class RecordingSink implements StreamSink {
  chunks: string[] = [];
  ended: string | undefined;
  pending = 0;
  /** A client that reads: every write is taken at once. */
  reading = true;
  #drain: (() => void)[] = [];
  write(chunk: string): void {
    this.chunks.push(chunk);
    if (!this.reading) this.pending += Buffer.byteLength(chunk);
  }
  unsent(): number {
    return this.pending;
  }
  onDrain(fn: () => void): void {
    this.#drain.push(fn);
  }
  end(last?: string): void {
    if (last !== undefined) this.chunks.push(last);
    this.ended = last ?? '';
  }
  /** The client took everything. */
  drain(): void {
    this.pending = 0;
    const fns = this.#drain.splice(0);
    for (const fn of fns) fn();
  }
  ids(): number[] {
    return this.chunks.flatMap((c) =>
      /^id: (\d+)\nevent: (series|cot)/.exec(c) ? [Number(/^id: (\d+)/.exec(c)![1])] : [],
    );
  }
  events(name: string): unknown[] {
    return this.chunks
      .filter((c) => c.includes(`event: ${name}\n`))
      .map((c) => JSON.parse(/\ndata: (.*)\n/.exec(`\n${c}`)![1]!) as unknown);
  }
}

function setup(opts: { capacity?: number; maxUnsent?: number; covered?: number } = {}) {
  const closed: CloseReason[] = [];
  let sent = 0;
  const slots = createStreamSlots({ logger });
  const hub = new EventHub({
    ring: new ChangeRing(opts.capacity ?? 100, opts.covered ?? 0),
    publicBaseUrl: ORIGIN,
    maxUnsentBytes: opts.maxUnsent ?? 256 * 1024,
    slowGraceMs: 10_000,
    heartbeatMs: 15_000,
    slots,
    logger,
    metrics: { eventsSent: (n) => (sent += n), closed: (r) => closed.push(r) },
  });
  let n = 0;
  const open = async (o: {
    plan?: Plan;
    keyId?: string;
    accountId?: string;
    types?: NotificationTopic[];
    commodities?: string[];
    after?: number;
  }) => {
    const sink = new RecordingSink();
    const accountId = o.accountId ?? 'acc_1';
    const member = slotMember(1_000 + n, 'r1', (n += 1), o.types);
    await slots.acquire(accountId, member, 1000);
    const handle = hub.open({
      requestId: `req_${n}`,
      principal: { keyId: o.keyId ?? 'key_1', accountId, plan: o.plan ?? 'enterprise' },
      requested: o.types,
      commodities: o.commodities,
      lastEventId: o.after,
      member,
      sink,
    });
    return { sink, handle, member };
  };
  return { hub, open, closed, slots, sent: () => sent };
}

describe('ring', () => {
  it('keeps the last N changes and knows from which sequence on it is complete', () => {
    const ring = new ChangeRing(3);
    for (const seq of [1, 2, 3, 4, 5]) ring.push({ seq, commodity: 'GOLD', topic: 'price', frame: `${seq}` });
    expect(ring.size).toBe(3);
    expect([0, 1, 2].map((i) => ring.at(i).seq)).toEqual([3, 4, 5]);
    expect(ring.covered).toBe(2);
    expect(ring.canResume(2)).toBe(true);
    expect(ring.canResume(1)).toBe(false);
    expect(ring.indexAfter(3)).toBe(1);
    expect(ring.indexAfter(0)).toBe(0);
    expect(ring.indexAfter(5)).toBe(3);
    expect(ring.push({ seq: 5, commodity: 'GOLD', topic: 'price', frame: '' })).toBe(false);
  });

  it('starts at the stream first retained sequence', () => {
    const ring = new ChangeRing(10);
    ring.startAt(41);
    expect(ring.canResume(39)).toBe(false);
    expect(ring.canResume(40)).toBe(true);
    expect(ring.lastSeq).toBe(40);
  });
});

describe('filters', () => {
  it('gives every topic a plan reads when no types are asked, and refuses a COT format it does not read', () => {
    const free = topicsFor('free', undefined);
    expect(free.ok && [...free.topics].includes('cot_legacy')).toBe(false);
    expect(free.ok && free.topics.has('price')).toBe(true);
    const pro = topicsFor('professional', undefined);
    expect(pro.ok && pro.topics.has('cot_legacy') && !pro.topics.has('cot_disaggregated')).toBe(true);
    expect(topicsFor('free', ['price', 'cot_legacy'])).toEqual({ ok: false, topic: 'cot_legacy' });
    expect(topicsFor('professional', ['cot_disaggregated'])).toEqual({ ok: false, topic: 'cot_disaggregated' });
    const asked = topicsFor('business', ['cot_disaggregated']);
    expect(asked.ok && [...asked.topics]).toEqual(['cot_disaggregated']);
    expect(matches({ commodities: new Set(['CORN']), topics: new Set(['price']) }, change(1, 'GOLD'))).toBe(false);
    expect(matches({ commodities: undefined, topics: new Set(['price']) }, change(1, 'GOLD'))).toBe(true);
  });

  it('gates the combined and CIT topics by their layout: cit and legacy_combined with legacy, disaggregated_combined with disaggregated', () => {
    expect(topicsFor('free', ['cot_cit'])).toEqual({ ok: false, topic: 'cot_cit' });
    expect(topicsFor('free', ['cot_legacy_combined'])).toEqual({ ok: false, topic: 'cot_legacy_combined' });
    const pro = topicsFor('professional', ['cot_cit', 'cot_legacy_combined']);
    expect(pro.ok && [...pro.topics]).toEqual(['cot_cit', 'cot_legacy_combined']);
    expect(topicsFor('professional', ['cot_cit', 'cot_disaggregated_combined'])).toEqual({
      ok: false,
      topic: 'cot_disaggregated_combined',
    });
    const every = topicsFor('professional', undefined);
    expect(every.ok && [...every.topics].filter((t) => t.startsWith('cot_')).sort()).toEqual([
      'cot_cit',
      'cot_legacy',
      'cot_legacy_combined',
    ]);
    const business = topicsFor('business', undefined);
    expect(business.ok && business.topics.has('cot_disaggregated_combined')).toBe(true);
    // A plan change ends a stream that asked for a layout the new plan lacks, whichever scope it named.
    expect(slotForbiddenUnder(slotMember(1, 'a', 1, ['cot_cit']), 'free')).toBe(true);
    expect(slotForbiddenUnder(slotMember(1, 'a', 1, ['cot_cit']), 'professional')).toBe(false);
    expect(slotForbiddenUnder(slotMember(1, 'a', 1, ['cot_disaggregated_combined']), 'professional')).toBe(true);
    expect(slotMember(1, 'a', 1, ['cot_disaggregated_combined', 'cot_legacy', 'cot_cit'])).toMatch(/:LD$/);
  });

  it('orders slots by start time and tells which a plan change ends', () => {
    const older = slotMember(1_000, 'a', 1, undefined);
    const cot = slotMember(2_000, 'b', 1, ['cot_legacy']);
    const newest = slotMember(3_000, 'a', 2, ['price']);
    expect(slotForbiddenUnder(cot, 'free')).toBe(true);
    expect(slotForbiddenUnder(cot, 'professional')).toBe(false);
    expect(slotForbiddenUnder(slotMember(1, 'a', 1, ['cot_disaggregated']), 'professional')).toBe(true);
    // Free allows 1: the COT stream ends as forbidden, so only the newest of the other two is excess.
    expect(excessSlots([newest, older, cot], 'free', 1)).toEqual([newest]);
    expect(excessSlots([newest, older, cot], 'professional', 1)).toEqual([newest, cot]);
    // Start times of different lengths still sort by time.
    expect(
      excessSlots([slotMember(10_000, 'a', 1, undefined), slotMember(9_999, 'a', 2, undefined)], 'free', 1),
    ).toEqual([slotMember(10_000, 'a', 1, undefined)]);
  });
});

describe('event hub', () => {
  it('fans a change out once to the streams whose filter matches, with the Notification as data', async () => {
    const { hub, open, sent } = setup();
    const gold = await open({ commodities: ['GOLD'] });
    const corn = await open({ commodities: ['CORN'] });
    const all = await open({});
    const prices = await open({ types: ['open_interest'] });
    hub.publish(7, change(7, 'GOLD'));
    expect(gold.sink.chunks[0]).toBe('retry: 3000\n\n');
    expect(gold.sink.ids()).toEqual([7]);
    expect(all.sink.ids()).toEqual([7]);
    expect(corn.sink.ids()).toEqual([]);
    expect(prices.sink.ids()).toEqual([]);
    expect(sent()).toBe(2);
    const [data] = gold.sink.events('series.updated') as { id: string; data: { url: string; commodity: string } }[];
    expect(data!.id).toBe(change(7).id);
    expect(data!.data.commodity).toBe('GOLD');
    expect(data!.data.url).toBe(`${ORIGIN}${change(7).path}`);
    expect(gold.sink.chunks[1]).toMatch(/^id: 7\nevent: series\.updated\ndata: \{.*\}\n\n$/);
  });

  it('resumes after Last-Event-ID with exactly the missed changes, then live ones, none twice', async () => {
    const { hub, open } = setup();
    for (let seq = 1; seq <= 5; seq += 1) hub.publish(seq, change(seq, seq % 2 === 0 ? 'CORN' : 'GOLD'));
    const resumed = await open({ after: 2 });
    const goldOnly = await open({ after: 2, commodities: ['GOLD'] });
    const fresh = await open({});
    hub.publish(6, change(6));
    hub.publish(6, change(6));
    expect(resumed.sink.ids()).toEqual([3, 4, 5, 6]);
    expect(goldOnly.sink.ids()).toEqual([3, 5, 6]);
    expect(fresh.sink.ids()).toEqual([6]);
  });

  it('writes a long backlog as the client takes it, while new changes keep coming, without gap or repeat', async () => {
    const paced = setup({ capacity: 1000, maxUnsent: 8 * 1024 });
    for (let seq = 1; seq <= 200; seq += 1) paced.hub.publish(seq, change(seq));
    const sink = new RecordingSink();
    sink.reading = false;
    await paced.slots.acquire('acc_1', 'm', 10);
    paced.hub.open({
      requestId: 'req',
      principal: { keyId: 'k', accountId: 'acc_1', plan: 'enterprise' },
      requested: undefined,
      commodities: undefined,
      lastEventId: 10,
      member: 'm',
      sink,
    });
    const first = sink.ids().length;
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(190);
    let seq = 200;
    while (sink.ids().length < 190 + 5 && sink.ended === undefined) {
      seq += 1;
      paced.hub.publish(seq, change(seq));
      sink.drain();
    }
    sink.drain();
    const ids = sink.ids();
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => 11 + i));
    expect(sink.ended).toBeUndefined();
  });

  it('sends resync first when Last-Event-ID is older than the ring', async () => {
    const { hub, open } = setup({ capacity: 3 });
    for (let seq = 1; seq <= 6; seq += 1) hub.publish(seq, change(seq));
    const old = await open({ after: 1 });
    expect(old.sink.chunks[1]).toMatch(/^id: 6\nevent: resync\n/);
    expect(old.sink.ids()).toEqual([]);
    const ok = await open({ after: 3 });
    expect(ok.sink.ids()).toEqual([4, 5, 6]);
    // Ahead of this replica: only what comes after it (another replica served it further).
    const ahead = await open({ after: 7 });
    expect(ahead.sink.chunks).toEqual(['retry: 3000\n\n']);
    hub.publish(7, change(7));
    expect(old.sink.ids()).toEqual([7]);
    expect(ahead.sink.ids()).toEqual([]);
    hub.publish(8, change(8));
    expect(ahead.sink.ids()).toEqual([8]);
  });

  it('sends resync for an id past the end of the stream (recreated since)', () => {
    const { hub } = setup();
    hub.publish(1, change(1));
    const sink = new RecordingSink();
    hub.open({
      requestId: 'r',
      principal: { keyId: 'k', accountId: 'a', plan: 'enterprise' },
      requested: undefined,
      commodities: undefined,
      lastEventId: 1042,
      pastStreamEnd: true,
      member: 'm',
      sink,
    });
    expect(sink.chunks[1]).toMatch(/^id: 1\nevent: resync\n/);
    hub.publish(2, change(2));
    expect(sink.ids()).toEqual([2]);
  });

  it('stops writing to a client past the bound, catches it up from the ring once it reads, none missed', async () => {
    const { hub, open, closed } = setup({ maxUnsent: 4 * 1024 });
    const burst = await open({});
    burst.sink.reading = false;
    for (let seq = 1; seq <= 50; seq += 1) hub.publish(seq, change(seq));
    const written = burst.sink.ids().length;
    expect(written).toBeLessThan(50);
    expect(burst.sink.pending).toBeLessThan(4 * 1024 + 1024);
    burst.sink.reading = true;
    burst.sink.drain();
    for (let seq = 51; seq <= 60; seq += 1) hub.publish(seq, change(seq));
    expect(burst.sink.ids()).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(closed).toEqual([]);
  });

  describe('with a clock', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('cuts a client that does not take its bytes within the grace, with a final slow_consumer event', async () => {
      vi.useFakeTimers();
      const { hub, open, closed } = setup({ maxUnsent: 4 * 1024 });
      const stuck = await open({});
      stuck.sink.reading = false;
      const reader = await open({});
      for (let seq = 1; seq <= 100; seq += 1) hub.publish(seq, change(seq));
      expect(stuck.sink.ended).toBeUndefined();
      // Held: the bound plus one event at most, however many changes come.
      expect(stuck.sink.pending).toBeLessThan(4 * 1024 + 1024);
      vi.advanceTimersByTime(9_999);
      expect(stuck.sink.ended).toBeUndefined();
      vi.advanceTimersByTime(1);
      expect(stuck.sink.ended).toMatch(/^event: error\n/);
      const [body] = stuck.sink.events('error') as { error: { code: string; message: string } }[];
      expect(body!.error.code).toBe('slow_consumer');
      expect(body!.error.message).toContain('Last-Event-ID');
      expect(reader.sink.ids()).toHaveLength(100);
      expect(closed).toEqual(['slow_consumer']);
      expect(hub.size).toBe(1);
    });

    it('cuts a paused client the ring has moved past, at once', async () => {
      vi.useFakeTimers();
      const { hub, open, closed } = setup({ maxUnsent: 2 * 1024, capacity: 20 });
      const stuck = await open({});
      stuck.sink.reading = false;
      for (let seq = 1; seq <= 30; seq += 1) hub.publish(seq, change(seq));
      expect(closed).toEqual(['slow_consumer']);
    });
  });

  it('ends a revoked key streams with a final unauthorized event, and only those', async () => {
    const { hub, open, slots } = setup();
    const a = await open({ keyId: 'key_a' });
    const b = await open({ keyId: 'key_b' });
    const revoke: KeyEvent = {
      id: 'e1',
      type: 'key.revoked',
      version: 1,
      occurred_at: '2025-01-01T00:00:00.000Z',
      source: 'admin',
      data: { key_id: 'key_a', account_id: 'acc_1', key_hash: 'a'.repeat(64) },
    } as unknown as KeyEvent;
    hub.onKeyEvent(revoke);
    expect((a.sink.events('error')[0] as { error: { code: string } }).error.code).toBe('unauthorized');
    expect(b.sink.ended).toBeUndefined();
    await Promise.resolve();
    expect(await slots.members('acc_1')).toEqual([b.member]);
  });

  it('applies a plan downgrade at once: COT stops flowing, explicit COT ends forbidden, newest over the limit end', async () => {
    const { hub, open, closed } = setup();
    const oldest = await open({ plan: 'business' });
    const cot = await open({ plan: 'business', types: ['cot_legacy'] });
    const newest = await open({ plan: 'business', commodities: ['GOLD'] });
    hub.publish(1, change(1, 'GOLD', 'cot_legacy'));
    expect(oldest.sink.ids()).toEqual([1]);
    await hub.planChanged('acc_1', 'free');
    expect((cot.sink.events('error')[0] as { error: { code: string; param: string } }).error).toMatchObject({
      code: 'forbidden',
      param: 'types',
    });
    // Free allows one stream: the newest of the two left ends.
    expect((newest.sink.events('error')[0] as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(oldest.sink.ended).toBeUndefined();
    hub.publish(2, change(2, 'GOLD', 'cot_legacy'));
    hub.publish(3, change(3, 'GOLD', 'price'));
    expect(oldest.sink.ids()).toEqual([1, 3]);
    expect(closed.sort()).toEqual(['forbidden', 'stream_limit']);
    // And an upgrade gives a stream without types what the new plan reads.
    await hub.planChanged('acc_1', 'business');
    hub.publish(4, change(4, 'GOLD', 'cot_disaggregated'));
    expect(oldest.sink.ids()).toEqual([1, 3, 4]);
  });

  it("sends a combined dataset's change to the streams that asked for its topic, with its scope", async () => {
    const { hub, open } = setup();
    const combined = await open({ plan: 'business', types: ['cot_legacy_combined', 'cot_cit'] });
    const futures = await open({ plan: 'business', types: ['cot_legacy'] });
    hub.publish(1, change(1, 'CORN', 'cot_legacy_combined'));
    hub.publish(2, change(2, 'CORN', 'cot_legacy'));
    hub.publish(3, change(3, 'CORN', 'cot_cit'));
    expect(combined.sink.ids()).toEqual([1, 3]);
    expect(futures.sink.ids()).toEqual([2]);
    const data = (sink: RecordingSink) => sink.events('cot.updated').map((e) => (e as { data: object }).data);
    expect(data(combined.sink)).toEqual([
      expect.objectContaining({ topic: 'cot_legacy_combined', format: 'legacy', scope: 'futures_and_options' }),
      expect.objectContaining({ topic: 'cot_cit', format: 'cit', scope: 'futures_and_options' }),
    ]);
    expect(data(futures.sink)).toEqual([expect.objectContaining({ topic: 'cot_legacy', format: 'legacy' })]);
    expect(data(futures.sink)[0]).not.toHaveProperty('scope');
  });

  it('heartbeats every stream, and closes all on shutdown with their slots freed', async () => {
    const { hub, open, slots, closed } = setup();
    const a = await open({});
    await hub.heartbeat();
    expect(a.sink.chunks.at(-1)).toBe(': keep-alive\n\n');
    await hub.closeAll();
    expect(a.sink.ended).toContain('shutting down');
    expect(await slots.members('acc_1')).toEqual([]);
    expect(closed).toEqual(['shutdown']);
    a.handle.close();
    expect(closed).toEqual(['shutdown']);
  });
});
