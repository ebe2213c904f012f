import { describe, expect, it } from 'vitest';
import type { CotItem, SeriesItem } from '../sources/types.ts';
import { createBatcher, type Batch } from './batcher.ts';
import { prepareBatchEvent } from './events.ts';

const ctx = { source: 'test', occurredAt: '2025-01-01T00:00:00Z' };

function point(commodity: string, date: string, value: number): SeriesItem {
  return {
    kind: 'series',
    commodity_id: commodity,
    series_type: 'price',
    frequency: 'daily',
    unit: 'USD/bbl',
    point: { date, value },
  };
}

function cot(commodity: string, date: string, oi: number): CotItem {
  return {
    kind: 'cot',
    commodity_id: commodity,
    format: 'legacy',
    record: {
      report_date: date,
      open_interest: oi,
      commercial: { long: 1, short: 2 },
      non_commercial: { long: 3, short: 4, spreading: 5 },
      non_reportable: { long: 6, short: 7 },
    },
  };
}

/** Days of one year, newest first (as EIA files come), for two commodities interleaved. */
function interleaved(): SeriesItem[] {
  const items: SeriesItem[] = [];
  for (let d = 27; d >= 1; d--) {
    for (const m of ['12', '06', '01']) {
      for (const y of ['2023', '2024']) {
        const date = `${y}-${m}-${String(d).padStart(2, '0')}`;
        items.push(point('CRUDE_OIL_WTI', date, d));
        items.push(point('NATURAL_GAS', date, d * 2));
      }
    }
  }
  return items;
}

function run(items: (SeriesItem | CotItem)[], opts: Parameters<typeof createBatcher>[0] = {}): Batch[] {
  const b = createBatcher(opts);
  const out: Batch[] = [];
  for (const it of items) out.push(...b.add(it));
  out.push(...b.drain());
  expect(b.buffered).toBe(0);
  return out;
}

function eventOf(b: Batch) {
  const p = prepareBatchEvent(b, ctx);
  if (!p.ok) throw new Error(p.reason);
  return p.prepared;
}

const ids = (batches: Batch[]) => batches.map((b) => eventOf(b).event.id);

describe('createBatcher', () => {
  it('groups interleaved input by commodity, type and year, sorted by date', () => {
    const batches = run(interleaved());
    expect(batches).toHaveLength(4);
    for (const b of batches) {
      if (b.kind !== 'series') throw new Error('expected series');
      expect(b.points).toHaveLength(81);
      expect(b.points.every((p) => p.date.startsWith(b.period))).toBe(true);
      const dates = b.points.map((p) => p.date);
      expect(dates).toEqual([...dates].sort());
    }
    expect(batches.map((b) => `${b.commodity_id}/${b.kind === 'series' ? b.period : b.kind}`).sort()).toEqual([
      'CRUDE_OIL_WTI/2023',
      'CRUDE_OIL_WTI/2024',
      'NATURAL_GAS/2023',
      'NATURAL_GAS/2024',
    ]);
  });

  it('gives the same ids for the same input, also when flushing partial groups under a small budget', () => {
    expect(ids(run(interleaved()))).toEqual(ids(run(interleaved())));
    const small = ids(run(interleaved(), { budget: 50 }));
    expect(small.length).toBeGreaterThan(4);
    expect(ids(run(interleaved(), { budget: 50 }))).toEqual(small);
  });

  it('keeps every record exactly once when flushing partially', () => {
    const batches = run(interleaved(), { budget: 37 });
    const seen = batches.flatMap((b) =>
      b.kind === 'series' ? b.points.map((p) => `${b.commodity_id}:${p.date}`) : [],
    );
    expect(seen).toHaveLength(interleaved().length);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('changes the id when any content changes, and not when key order differs', () => {
    const base = ids(run([point('GOLD', '2024-01-02', 1), point('GOLD', '2024-01-03', 2)]));
    const changed = ids(run([point('GOLD', '2024-01-02', 1), point('GOLD', '2024-01-03', 2.5)]));
    expect(changed[0]).not.toBe(base[0]);
    const reordered = point('GOLD', '2024-01-03', 2);
    reordered.point = { value: 2, date: '2024-01-03' };
    expect(ids(run([reordered, point('GOLD', '2024-01-02', 1)]))).toEqual(base);
    const otherUnit = { ...point('GOLD', '2024-01-02', 1), unit: 'USD/oz' };
    expect(ids(run([otherUnit, { ...point('GOLD', '2024-01-03', 2), unit: 'USD/oz' }]))[0]).not.toBe(base[0]);
  });

  it('flushes a group that reaches the per-event cap and opens a new one', () => {
    const items = interleaved().filter((i) => i.commodity_id === 'GOLD' || i.commodity_id === 'CRUDE_OIL_WTI');
    const batches = run(items, { maxPoints: 20 });
    for (const b of batches) if (b.kind === 'series') expect(b.points.length).toBeLessThanOrEqual(20);
    expect(batches.reduce((n, b) => n + (b.kind === 'series' ? b.points.length : 0), 0)).toBe(items.length);
  });

  it('lets a later row of the same date win and counts it as replaced', () => {
    const b = createBatcher();
    b.add(point('GOLD', '2024-01-02', 1));
    b.add(point('GOLD', '2024-01-02', 9));
    expect(b.replaced).toBe(1);
    const [batch] = b.drain();
    expect(batch?.kind === 'series' && batch.points).toEqual([{ date: '2024-01-02', value: 9 }]);
  });

  it('batches COT reports by commodity, format and year', () => {
    const batches = run([cot('GOLD', '2024-01-02', 1), cot('CORN', '2024-01-02', 2), cot('GOLD', '2023-12-26', 3)]);
    expect(
      batches.map((b) => (b.kind === 'cot' ? `${b.commodity_id}/${b.format}/${b.period}/${b.reports.length}` : '')),
    ).toEqual(['CORN/legacy/2024/1', 'GOLD/legacy/2023/1', 'GOLD/legacy/2024/1']);
    const { event, payload, subject } = eventOf(batches[0]!);
    expect(event.type).toBe('cot.reports.recorded');
    expect(event.data).not.toHaveProperty('period');
    expect(subject).toBe('cds.data.cot.CORN.legacy');
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(event);
  });

  it('batches COT reports by dataset: futures-only, combined and CIT reports of one market and date never share a batch', () => {
    const combined: CotItem = { ...cot('CORN', '2024-01-02', 20), scope: 'futures_and_options' };
    const flagged: CotItem = { ...cot('CORN', '2024-01-09', 21), scope: 'futures_and_options' };
    (flagged.record as { failed_checks?: string[] }).failed_checks = ['old_plus_other_equals_all'];
    const cit: CotItem = {
      kind: 'cot',
      commodity_id: 'CORN',
      format: 'cit',
      scope: 'futures_and_options',
      record: {
        report_date: '2024-01-02',
        open_interest: 30,
        commercial: { long: 1, short: 2 },
        non_commercial: { long: 3, short: 4, spreading: 5 },
        index_traders: { long: 8, short: 9 },
        non_reportable: { long: 6, short: 7 },
      },
    };
    const batches = run([cot('CORN', '2024-01-02', 10), combined, cit, flagged]);
    expect(batches.map((b) => (b.kind === 'cot' ? `${b.format}/${b.scope ?? '-'}/${b.reports.length}` : ''))).toEqual([
      'cit/futures_and_options/1',
      'legacy/-/1',
      'legacy/futures_and_options/2',
    ]);
    const events = batches.map(eventOf);
    expect(events.map((e) => e.subject)).toEqual([
      'cds.data.cot.CORN.cit',
      'cds.data.cot.CORN.legacy',
      'cds.data.cot.CORN.legacy_combined',
    ]);
    expect(events[2]!.event.data).toMatchObject({ format: 'legacy', scope: 'futures_and_options' });
    expect((events[2]!.event.data as { reports: { failed_checks?: string[] }[] }).reports[1]!.failed_checks).toEqual([
      'old_plus_other_equals_all',
    ]);
    expect(events[1]!.event.data).not.toHaveProperty('scope');
    expect(new Set(events.map((e) => e.event.id)).size).toBe(3);
  });

  it('rejects a batch its contract refuses, with the reason', () => {
    const bad = prepareBatchEvent(
      {
        kind: 'series',
        commodity_id: 'lower_case',
        series_type: 'price',
        frequency: 'daily',
        period: '2024',
        points: [{ date: '2024-01-02', value: 1 }],
      },
      ctx,
    );
    expect(bad).toEqual({ ok: false, reason: expect.stringMatching(/^commodity_id: /) });
  });
});

describe('publication stamps on events', () => {
  const stated = { at: '2025-12-02T00:00:00.000Z', estimated: false };
  const stamped = (item: SeriesItem, published: SeriesItem['published']): SeriesItem => ({ ...item, published });

  it("gives a series batch its points' release, and keeps points of two releases in two batches", () => {
    const earlier = { at: '2025-11-04T00:00:00.000Z', estimated: false };
    const batches = run([
      stamped(point('OIL', '2024-01-02', 1), stated),
      stamped(point('OIL', '2024-01-03', 2), stated),
      stamped(point('OIL', '2024-01-02', 1), earlier),
    ]);
    expect(
      batches.map((b) => b.kind === 'series' && [b.published_at, b.published_at_estimated, b.points.length]),
    ).toEqual([
      ['2025-11-04T00:00:00.000Z', false, 1],
      ['2025-12-02T00:00:00.000Z', false, 2],
    ]);
    const data = eventOf(batches[1]!).event.data;
    expect(data).toMatchObject({ published_at: '2025-12-02T00:00:00.000Z', published_at_estimated: false });
  });

  it('stamps a batch without a release with the ingest time, estimated, and leaves it out of the id', () => {
    const [batch] = run([point('OIL', '2024-01-02', 1)]);
    const first = eventOf(batch!);
    expect(first.event.data).toMatchObject({ published_at: ctx.occurredAt, published_at_estimated: true });
    const rerun = prepareBatchEvent(batch!, { ...ctx, occurredAt: '2025-06-01T00:00:00Z' });
    if (!rerun.ok) throw new Error(rerun.reason);
    expect(rerun.prepared.event.data).toMatchObject({ published_at: '2025-06-01T00:00:00Z' });
    // a re-run of the same file (demo, OHLCV) stays a duplicate
    expect(rerun.prepared.event.id).toBe(first.event.id);
  });

  it("puts a release's stamp in the id: the same release again is a duplicate, another release a new event", () => {
    const id = (published: SeriesItem['published']) =>
      eventOf(run([stamped(point('OIL', '2024-01-02', 1), published)])[0]!).event.id;
    expect(id(stated)).toBe(id({ ...stated }));
    expect(id(stated)).not.toBe(id({ at: '2026-01-06T00:00:00.000Z', estimated: false }));
    expect(id(stated)).not.toBe(id({ ...stated, estimated: true }));
    expect(id(stated)).not.toBe(eventOf(run([point('OIL', '2024-01-02', 1)])[0]!).event.id);
  });

  it("gives a COT report without a stamp (demo) its calendar release, and keeps a report's own", () => {
    const own = {
      ...cot('GOLD', '2024-11-19', 2),
      record: {
        ...cot('GOLD', '2024-11-19', 2).record,
        published_at: '2024-11-22T21:00:00.000Z',
        published_at_estimated: false,
      },
    } as CotItem;
    const [batch] = run([cot('GOLD', '2024-11-26', 1), own]);
    const reports = (
      eventOf(batch!).event.data as {
        reports: { report_date: string; published_at?: string; published_at_estimated?: boolean }[];
      }
    ).reports;
    expect(reports.map((r) => [r.report_date, r.published_at, r.published_at_estimated])).toEqual([
      ['2024-11-19', '2024-11-22T21:00:00.000Z', false],
      // Thanksgiving week: the Monday after, 15:30 EST
      ['2024-11-26', '2024-12-02T20:30:00.000Z', true],
    ]);
  });
});
