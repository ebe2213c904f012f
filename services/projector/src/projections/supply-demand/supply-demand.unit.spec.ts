import { DataEvent, supplyDemandCheckKey } from '@cds/contracts';
import type { SupplyDemandBucketDoc } from '@cds/read-models';
import { describe, expect, it } from 'vitest';
import { supplyDemandCheckFindings } from '../../consumer/supply-demand-checks.ts';
import { foldEvents, JUNE_2026, supplyDemandRecorded } from '../../testing/events.ts';
import { catalogProjection } from '../catalog/index.ts';
import { supplyDemandProjection } from './index.ts';

const ID = 'CORN:united_states:2026/27';
const MAY_2026 = '2026-05-12T16:00:00.000Z';
const MAY_REPOST = '2026-05-13T18:30:00.000Z';
const JULY_2026 = '2026-07-10T16:00:00.000Z';

const may = supplyDemandRecorded(
  [
    ['ending_stocks', 1800],
    ['production', 15800],
    ['yield', 181, 'Bushels'],
  ],
  { publishedAt: MAY_2026, source: 'wasde:wasde0526.xml' },
);
const june = supplyDemandRecorded(
  [
    ['ending_stocks', 1750],
    ['production', 15800],
    ['yield', 181, 'Bushels'],
  ],
  { publishedAt: JUNE_2026, source: 'wasde:wasde0626.xml' },
);

function sheet(events: DataEvent[]): SupplyDemandBucketDoc {
  return foldEvents(supplyDemandProjection, events).get(ID)!;
}

/** What a sheet holds, whatever the stream positions that brought it. */
const held = (d: SupplyDemandBucketDoc) => ({
  figures: d.figures,
  revised: d.revised,
  releases: d.releases,
  source: d.source,
  last_updated: d.last_updated,
});

describe('supply_demand projection', () => {
  it('stores one release of a sheet: its figures by key (attribute|unit), the release and its provenance', () => {
    expect(DataEvent.safeParse(june).success).toBe(true);
    expect(supplyDemandProjection.keyOf(june)).toEqual([ID]);
    const doc = sheet([june]);
    expect(doc).toEqual({
      _id: ID,
      commodity_id: 'CORN',
      region: 'united_states',
      marketing_year: '2026/27',
      figures: [
        {
          k: 'ending_stocks|Million Bushels',
          a: 'ending_stocks',
          u: 'Million Bushels',
          v: 1750,
          s: 'projection',
          r: 0,
        },
        { k: 'production|Million Bushels', a: 'production', u: 'Million Bushels', v: 15800, s: 'projection', r: 0 },
        { k: 'yield|Bushels', a: 'yield', u: 'Bushels', v: 181, s: 'projection', r: 0 },
      ],
      releases: [{ p: JUNE_2026, f: JUNE_2026, lo: 'ending_stocks|Million Bushels', hi: 'yield|Bushels' }],
      source: 'wasde:wasde0626.xml',
      last_updated: JUNE_2026,
      _meta: {
        position: 1,
        version: 1,
        parts: { 'ending_stocks|Million Bushels': 1, 'production|Million Bushels': 1, 'yield|Bushels': 1 },
      },
    });
  });

  it('keeps every edition as a version, in publication order whatever order they arrive in', () => {
    const inOrder = sheet([may, june]);
    const late = sheet([june, may]);
    expect(held(late)).toEqual(held(inOrder));
    expect(inOrder.figures[0]).toMatchObject({ a: 'ending_stocks', v: 1750, r: 1 });
    // only the figure June changed has an earlier version; the others were confirmed
    expect(inOrder.revised).toEqual([
      { k: 'ending_stocks|Million Bushels', a: 'ending_stocks', u: 'Million Bushels', v: 1800, s: 'projection', r: 0 },
    ]);
    expect(inOrder.releases!.map((r) => r.p)).toEqual([MAY_2026, JUNE_2026]);
    // the provenance is the newest release's, even when it arrived first
    expect(late.source).toBe('wasde:wasde0626.xml');
  });

  it('a corrected re-post is a version of its own; the failed release keeps its checks on its figures', () => {
    const failed = supplyDemandRecorded(
      [
        ['imports', 5],
        ['supply_total', 123],
      ],
      { publishedAt: MAY_2026, failedChecks: ['supply_equals_use_plus_ending_stocks'] },
    );
    const fixed = supplyDemandRecorded(
      [
        ['imports', 7],
        ['supply_total', 125],
      ],
      { publishedAt: MAY_REPOST },
    );
    const doc = sheet([failed, fixed]);
    expect(doc.figures.map((f) => [f.a, f.v, f.x])).toEqual([
      ['imports', 7, undefined],
      ['supply_total', 125, undefined],
    ]);
    expect(doc.revised!.map((f) => [f.a, f.v, f.x])).toEqual([
      ['imports', 5, ['supply_equals_use_plus_ending_stocks']],
      ['supply_total', 123, ['supply_equals_use_plus_ending_stocks']],
    ]);
    expect(held(sheet([fixed, failed]))).toEqual(held(doc));
  });

  it('an edition that repeats the figures adds a release but no version; folding it again changes nothing', () => {
    const july = supplyDemandRecorded(
      [
        ['ending_stocks', 1750],
        ['production', 15800],
        ['yield', 181, 'Bushels'],
      ],
      { publishedAt: JULY_2026 },
    );
    const doc = sheet([june, july]);
    expect(doc.revised).toBeUndefined();
    expect(doc.figures.every((f) => f.r === 0)).toBe(true);
    expect(doc.releases!.map((r) => r.p)).toEqual([JUNE_2026, JULY_2026]);
    const again = supplyDemandProjection.evolveAll!(doc, [{ event: july, position: 3 }]);
    expect(again.changedBy).toEqual([]);
    expect(again.doc).toBe(doc);
  });

  it('a projection that becomes an estimate with the same value is a version (status is part of a figure)', () => {
    const estimated = supplyDemandRecorded([['production', 15800]], { publishedAt: JULY_2026, status: 'estimate' });
    const doc = sheet([june, estimated]);
    expect(doc.figures.find((f) => f.a === 'production')).toMatchObject({ v: 15800, s: 'estimate', r: 1 });
    expect(doc.revised).toEqual([expect.objectContaining({ a: 'production', s: 'projection', r: 0 })]);
  });

  it('records a change per release: supply_demand.updated on the release date, reading the sheet', () => {
    expect(supplyDemandProjection.changeOf!(june)).toEqual({
      type: 'supply_demand.updated',
      commodity: 'CORN',
      topic: 'supply_demand',
      first_date: '2026-06-11',
      newest_date: '2026-06-11',
      path: '/api/v1/commodities/CORN/supply-demand?region=united_states&marketing_year=2026%2F27',
    });
  });
});

describe('supply_demand consistency findings', () => {
  const now = new Date('2026-06-20T00:00:00Z');
  const failed = supplyDemandRecorded([['imports', 5]], {
    publishedAt: MAY_2026,
    failedChecks: ['supply_equals_use_plus_ending_stocks'],
  });
  const fixed = supplyDemandRecorded([['imports', 7]], { publishedAt: MAY_REPOST });
  const key = supplyDemandCheckKey('2026-05-12', 'CORN', 'united_states', '2026/27');

  const findings = (events: DataEvent[], folded: DataEvent[]) => {
    const doc = sheet(folded);
    const batch = events.map((event, i) => ({ event, position: i + 1, storedAtMs: 0 }));
    const changedBy = new Set(batch.map((e) => e.position));
    return supplyDemandCheckFindings(
      { events: batch, result: { changedBy, reflected: new Set(), writtenDocs: [doc] } },
      now,
    );
  };

  it('stores a failed release under its release date, counting each check', () => {
    const { failures, ops } = findings([failed], [failed]);
    expect(failures).toEqual(['supply_equals_use_plus_ending_stocks']);
    expect([...ops.values()]).toEqual([
      {
        key,
        value: {
          dataset: 'supply_demand',
          report_date: '2026-05-12',
          commodity: 'CORN',
          failed_checks: ['supply_equals_use_plus_ending_stocks'],
          sheet: { region: 'united_states', marketing_year: '2026/27' },
          checked_at: now.toISOString(),
        },
      },
    ]);
  });

  it('deletes the key once a later release of the same edition (a corrected re-post) passes, in either order', () => {
    expect([...findings([fixed], [failed, fixed]).ops.values()]).toEqual([{ key }]);
    expect([...findings([failed, fixed], [fixed, failed]).ops.values()]).toEqual([{ key }]);
  });

  it('keeps the failure when only the next edition passes (the failed edition was never corrected)', () => {
    const july = supplyDemandRecorded([['imports', 7]], { publishedAt: JULY_2026 });
    const { ops } = findings([failed, july], [failed, july]);
    expect([...ops.values()].map((op) => [op.key, op.value?.report_date])).toEqual([[key, '2026-05-12']]);
  });

  it('keeps nothing of a release older than COT_CHECKS_DAYS (it is still counted)', () => {
    const old = supplyDemandRecorded([['imports', 5]], {
      publishedAt: '2024-05-10T16:00:00.000Z',
      failedChecks: ['supply_equals_use_plus_ending_stocks'],
    });
    const { failures, ops } = findings([old], [old]);
    expect(failures).toHaveLength(1);
    expect(ops.size).toBe(0);
  });
});

describe('catalog: the supply_demand descriptor', () => {
  it('keeps the regions (sorted, unique), monthly, the release dates of the first and newest edition', () => {
    const world = supplyDemandRecorded([['production', 1200000, 'Million Metric Tons']], {
      region: 'world',
      publishedAt: JUNE_2026,
    });
    const doc = foldEvents(catalogProjection, [june, world, may, june]).get('CORN')!;
    expect(doc.series.supply_demand).toEqual({
      type: 'supply_demand',
      frequency: 'monthly',
      first_date: '2026-05-12',
      last_date: '2026-06-11',
      first_published_at: MAY_2026,
      last_updated: JUNE_2026,
      regions: ['united_states', 'world'],
      source: 'wasde:wasde0626.xml',
    });
  });
});
