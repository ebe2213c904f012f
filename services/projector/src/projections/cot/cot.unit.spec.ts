import { describe, expect, it } from 'vitest';
import { DataEvent } from '@cds/contracts';
import type { CotBucketDoc } from '@cds/read-models';
import { fold, type PositionedEvent } from '../../runner/apply-event.ts';
import { cotRecorded, foldEvents } from '../../testing/events.ts';
import { cotProjection } from './index.ts';

describe('cot projection', () => {
  it('given nothing, when a batch of reports is recorded, then one bucket per year with raw groups, sorted by date', () => {
    const event = cotRecorded('GOLD', [
      ['2024-01-09', 110],
      ['2023-12-26', 90],
      ['2024-01-02', 100],
    ]);
    expect(DataEvent.safeParse(event).success).toBe(true);
    const docs = foldEvents(cotProjection, [[event, 3]]);
    expect([...docs.keys()].sort()).toEqual(['GOLD:legacy:2023', 'GOLD:legacy:2024']);
    expect(docs.get('GOLD:legacy:2024')).toEqual({
      _id: 'GOLD:legacy:2024',
      commodity_id: 'GOLD',
      format: 'legacy',
      year: 2024,
      first_date: '2024-01-02',
      last_date: '2024-01-09',
      count: 2,
      reports: [
        {
          report_date: '2024-01-02',
          open_interest: 100,
          groups: {
            commercial: { long: 100, short: 1 },
            non_commercial: { long: 2, short: 3, spreading: 4 },
            non_reportable: { long: 5, short: 6 },
          },
          last_updated: '2024-06-01T00:00:00Z',
          r: 0,
        },
        {
          report_date: '2024-01-09',
          open_interest: 110,
          groups: {
            commercial: { long: 110, short: 1 },
            non_commercial: { long: 2, short: 3, spreading: 4 },
            non_reportable: { long: 5, short: 6 },
          },
          last_updated: '2024-06-01T00:00:00Z',
          r: 1,
        },
      ],
      // no published_at: each report's release is the CFTC calendar's Friday 15:30 New York, estimated
      releases: [
        { p: '2024-01-05T20:30:00.000Z', f: '2024-06-01T00:00:00.000Z', e: true, lo: '2024-01-02', hi: '2024-01-02' },
        { p: '2024-01-12T20:30:00.000Z', f: '2024-06-01T00:00:00.000Z', e: true, lo: '2024-01-09', hi: '2024-01-09' },
      ],
      // the event that last changed each report (the runner's `reflected`)
      _meta: { position: 3, version: 6, parts: { '2024-01-02': 3, '2024-01-09': 3 } },
    });
    expect(docs.get('GOLD:legacy:2023')!.reports.map((r) => r.report_date)).toEqual(['2023-12-26']);
  });

  it('given a report, when a later event restates it, then the later values win and other dates stay', () => {
    const docs = foldEvents(cotProjection, [
      cotRecorded('GOLD', [
        ['2024-01-02', 100],
        ['2024-01-09', 110],
      ]),
      // seen a day later, under the same calendar release
      cotRecorded('GOLD', [['2024-01-02', 90]], { occurredAt: '2024-06-02T00:00:00Z' }),
    ]);
    const bucket = docs.get('GOLD:legacy:2024')!;
    expect(bucket.reports.map((r) => [r.report_date, r.open_interest])).toEqual([
      ['2024-01-02', 90],
      ['2024-01-09', 110],
    ]);
    expect(bucket.count).toBe(2);
    // under the same calendar release: a correction, its own version when it was seen; the old one kept
    expect(bucket.revised).toMatchObject([{ report_date: '2024-01-02', open_interest: 100 }]);
  });

  it('replay and late arrival: a replay changes nothing; a restatement published later wins in any order', () => {
    const e1 = cotRecorded('GOLD', [
      ['2024-01-02', 100],
      ['2024-01-16', 120],
    ]);
    const e2 = cotRecorded('GOLD', [['2024-01-02', 90]], { publishedAt: '2024-01-12T20:30:00Z' });
    const once = foldEvents(cotProjection, [e1, e2]);
    const replayed = foldEvents(cotProjection, [e1, e2], once);
    expect(replayed.get('GOLD:legacy:2024')).toBe(once.get('GOLD:legacy:2024'));
    const reversed = foldEvents(cotProjection, [
      [e2, 2],
      [e1, 1],
    ]);
    expect(reversed).toEqual(once);
    expect(once.get('GOLD:legacy:2024')!.reports.map((r) => r.open_interest)).toEqual([90, 120]);
  });

  it('stamps each report with its own release: stated, else the calendar (holiday shifts included), estimated', () => {
    const stated = cotRecorded('GOLD', [['2025-03-04', 1]], { publishedAt: '2025-03-07T15:30:00-05:00' });
    const doc = foldEvents(cotProjection, [stated]).get('GOLD:legacy:2025')!;
    expect(doc.releases).toEqual([
      { p: '2025-03-07T20:30:00.000Z', f: '2024-06-01T00:00:00.000Z', lo: '2025-03-04', hi: '2025-03-04' },
    ]);
    // Thanksgiving week 2026: the release moves from Friday to Monday
    const thanksgiving = cotRecorded('GOLD', [
      ['2026-11-17', 1],
      ['2026-11-24', 2],
    ]);
    const bucket = foldEvents(cotProjection, [thanksgiving]).get('GOLD:legacy:2026')!;
    expect(bucket.reports.map((r) => [r.report_date, bucket.releases![r.r!]])).toEqual([
      ['2026-11-17', expect.objectContaining({ p: '2026-11-20T20:30:00.000Z', e: true })],
      ['2026-11-24', expect.objectContaining({ p: '2026-11-30T20:30:00.000Z', e: true })],
    ]);
  });

  it('a report that repeats the version in force, with other provenance, changes nothing', () => {
    const first = cotRecorded('GOLD', [['2024-01-02', 100]], { source: 'cftc:legacy:1' });
    const again = cotRecorded('GOLD', [['2024-01-02', 100]], {
      source: 'cftc:legacy:2',
      occurredAt: '2024-07-01T00:00:00Z',
    });
    const once = foldEvents(cotProjection, [first]);
    const after = foldEvents(cotProjection, [[again, 2]], once);
    expect(after.get('GOLD:legacy:2024')).toBe(once.get('GOLD:legacy:2024'));
  });
});

describe('cot projection: datasets', () => {
  it('a combined batch and a futures-only batch of one commodity land in different buckets and never mix', () => {
    const futures = cotRecorded('CORN', [['2025-01-07', 100]]);
    const combined = cotRecorded('CORN', [['2025-01-07', 150]], { scope: 'futures_and_options' });
    // an explicit futures_only scope is the futures-only dataset, as an event without one
    const explicit = cotRecorded('CORN', [['2025-01-14', 120]], { scope: 'futures_only' });
    expect(cotProjection.keyOf(futures)).toEqual(['CORN:legacy:2025']);
    expect(cotProjection.keyOf(combined)).toEqual(['CORN:legacy_combined:2025']);
    expect(cotProjection.keyOf(explicit)).toEqual(['CORN:legacy:2025']);
    const docs = foldEvents(cotProjection, [futures, combined, explicit]);
    expect([...docs.keys()].sort()).toEqual(['CORN:legacy:2025', 'CORN:legacy_combined:2025']);
    const f = docs.get('CORN:legacy:2025')!;
    const c = docs.get('CORN:legacy_combined:2025')!;
    expect(f).not.toHaveProperty('scope');
    expect(f.reports.map((r) => [r.report_date, r.open_interest])).toEqual([
      ['2025-01-07', 100],
      ['2025-01-14', 120],
    ]);
    expect(c).toMatchObject({ format: 'legacy', scope: 'futures_and_options', count: 1 });
    expect(c.reports.map((r) => r.open_interest)).toEqual([150]);
    // a bucket's fold ignores another dataset's events, even handed to it
    const evolved = cotProjection.evolveAll!(c, [{ event: futures, position: 9 }]);
    expect(evolved.doc).toBe(c);
    const disaggregated = cotRecorded('CORN', [['2025-01-07', 100]], {
      format: 'disaggregated',
      scope: 'futures_and_options',
    });
    expect(cotProjection.keyOf(disaggregated)).toEqual(['CORN:disaggregated_combined:2025']);
    expect(cotProjection.initial('CORN:disaggregated_combined:2025')).toMatchObject({
      format: 'disaggregated',
      scope: 'futures_and_options',
    });
  });

  it('point in time per dataset: a combined restatement is a version of its own bucket; a confirming release writes nothing', () => {
    const scope = 'futures_and_options' as const;
    const first = cotRecorded('CORN', [['2025-01-07', 150]], { scope });
    const once = foldEvents(cotProjection, [first, cotRecorded('CORN', [['2025-01-07', 100]])]);
    const confirm = cotRecorded('CORN', [['2025-01-07', 150]], { scope, occurredAt: '2025-02-01T00:00:00Z' });
    const confirmed = foldEvents(cotProjection, [[confirm, 3]], once);
    expect(confirmed.get('CORN:legacy_combined:2025')).toBe(once.get('CORN:legacy_combined:2025'));
    const revised = foldEvents(
      cotProjection,
      [[cotRecorded('CORN', [['2025-01-07', 151]], { scope, publishedAt: '2025-01-17T20:30:00Z' }), 4]],
      once,
    );
    const bucket = revised.get('CORN:legacy_combined:2025')!;
    expect(bucket.reports.map((r) => r.open_interest)).toEqual([151]);
    expect(bucket.revised).toMatchObject([{ open_interest: 150 }]);
    expect(revised.get('CORN:legacy:2025')).toBe(once.get('CORN:legacy:2025'));
  });

  it('a CIT batch renders its four groups in a combined cit bucket', () => {
    const docs = foldEvents(cotProjection, [cotRecorded('WHEAT_SRW', [['2025-01-07', 400]], { format: 'cit' })]);
    const bucket = docs.get('WHEAT_SRW:cit:2025')!;
    expect(bucket).toMatchObject({ format: 'cit', scope: 'futures_and_options' });
    expect(bucket.reports[0]!.groups).toEqual({
      commercial: { long: 400, short: 1 },
      non_commercial: { long: 2, short: 3, spreading: 4 },
      index_traders: { long: 11, short: 12 },
      non_reportable: { long: 5, short: 6 },
    });
    expect(bucket.reports[0]).not.toHaveProperty('failed_checks');
  });

  it('change records name the dataset: topic cot_<dataset>, scope when combined, and the request that reads it', () => {
    const combined = cotProjection.changeOf!(
      cotRecorded('CORN', [['2025-01-07', 1]], { format: 'disaggregated', scope: 'futures_and_options' }),
    );
    expect(combined).toMatchObject({
      topic: 'cot_disaggregated_combined',
      format: 'disaggregated',
      scope: 'futures_and_options',
      path: '/api/v1/commodities/CORN/cot?format=disaggregated&scope=futures_and_options&start_date=2025-01-07&end_date=2025-01-07',
    });
    const cit = cotProjection.changeOf!(cotRecorded('CORN', [['2025-01-07', 1]], { format: 'cit' }));
    expect(cit).toMatchObject({
      topic: 'cot_cit',
      format: 'cit',
      scope: 'futures_and_options',
      path: '/api/v1/commodities/CORN/cot?format=cit&start_date=2025-01-07&end_date=2025-01-07',
    });
    const futures = cotProjection.changeOf!(cotRecorded('CORN', [['2025-01-07', 1]]));
    expect(futures).toMatchObject({ topic: 'cot_legacy', format: 'legacy' });
    expect(futures).not.toHaveProperty('scope');
    expect(futures!.path).toBe('/api/v1/commodities/CORN/cot?format=legacy&start_date=2025-01-07&end_date=2025-01-07');
  });
});

describe('cot projection: consistency checks', () => {
  const combined = { scope: 'futures_and_options' } as const;
  const checksOf = (docs: Map<string, CotBucketDoc>, id: string, date = '2025-01-07') =>
    docs.get(id)!.reports.find((r) => r.report_date === date)!.failed_checks;

  it('combined open interest equal to the futures-only one passes, one below fails (both ways round)', () => {
    const futures = cotRecorded('CORN', [['2025-01-07', 100]]);
    const equal = foldEvents(cotProjection, [futures, cotRecorded('CORN', [['2025-01-07', 100]], combined)]);
    expect(checksOf(equal, 'CORN:legacy_combined:2025')).toBeUndefined();
    const below = foldEvents(cotProjection, [futures, cotRecorded('CORN', [['2025-01-07', 99]], combined)]);
    expect(checksOf(below, 'CORN:legacy_combined:2025')).toEqual(['combined_oi_at_least_futures_only']);
    // the futures-only report stored first is not rewritten
    expect(checksOf(below, 'CORN:legacy:2025')).toBeUndefined();
    // the combined report first: the futures-only one completes the pair and carries the failure
    const reversed = foldEvents(cotProjection, [cotRecorded('CORN', [['2025-01-07', 99]], combined), futures]);
    expect(checksOf(reversed, 'CORN:legacy_combined:2025')).toBeUndefined();
    expect(checksOf(reversed, 'CORN:legacy:2025')).toEqual(['combined_oi_at_least_futures_only']);
    // disaggregated: combined against futures-only of the same format
    const d = foldEvents(cotProjection, [
      cotRecorded('CORN', [['2025-01-07', 100]], { format: 'disaggregated' }),
      cotRecorded('CORN', [['2025-01-07', 99]], { format: 'disaggregated', ...combined }),
    ]);
    expect(checksOf(d, 'CORN:disaggregated_combined:2025')).toEqual(['combined_oi_at_least_futures_only']);
  });

  it('legacy equal to disaggregated open interest passes, off by one either way fails, per scope', () => {
    const legacy = cotRecorded('CORN', [['2025-01-07', 100]]);
    for (const [oi, expected] of [
      [100, undefined],
      [101, ['legacy_oi_equals_disaggregated_oi']],
      [99, ['legacy_oi_equals_disaggregated_oi']],
    ] as const) {
      const docs = foldEvents(cotProjection, [
        legacy,
        cotRecorded('CORN', [['2025-01-07', oi]], { format: 'disaggregated' }),
      ]);
      expect(checksOf(docs, 'CORN:disaggregated:2025')).toEqual(expected);
    }
    // combined: legacy_combined against disaggregated_combined, never against a futures-only report
    const docs = foldEvents(cotProjection, [
      cotRecorded('CORN', [['2025-01-07', 150]], combined),
      cotRecorded('CORN', [['2025-01-07', 100]], { format: 'disaggregated' }),
      cotRecorded('CORN', [['2025-01-07', 151]], { format: 'disaggregated', ...combined }),
    ]);
    expect(checksOf(docs, 'CORN:disaggregated:2025')).toBeUndefined();
    expect(checksOf(docs, 'CORN:disaggregated_combined:2025')).toEqual(['legacy_oi_equals_disaggregated_oi']);
  });

  it('a check whose counterpart report is not stored is not run (another date, another commodity, another year)', () => {
    const docs = foldEvents(cotProjection, [
      cotRecorded('CORN', [['2025-01-07', 100]]),
      cotRecorded('CORN', [['2025-01-14', 1]], combined),
      cotRecorded('WHEAT_SRW', [['2025-01-07', 1]], combined),
      cotRecorded('CORN', [['2024-12-31', 1]], combined),
    ]);
    expect(checksOf(docs, 'CORN:legacy_combined:2025', '2025-01-14')).toBeUndefined();
    expect(checksOf(docs, 'WHEAT_SRW:legacy_combined:2025')).toBeUndefined();
    expect(checksOf(docs, 'CORN:legacy_combined:2024', '2024-12-31')).toBeUndefined();
    // cit has no cross check, whatever the legacy combined report says
    const cit = foldEvents(cotProjection, [
      cotRecorded('CORN', [['2025-01-07', 1000]], combined),
      cotRecorded('CORN', [['2025-01-07', 1]], { format: 'cit' }),
    ]);
    expect(checksOf(cit, 'CORN:cit:2025')).toBeUndefined();
  });

  it("keeps the record's own failed_checks and adds the cross ones, in COT_CHECKS order", () => {
    const docs = foldEvents(cotProjection, [
      cotRecorded('CORN', [['2025-01-07', 100]]),
      cotRecorded('CORN', [['2025-01-07', 101]], { format: 'disaggregated' }),
      cotRecorded('CORN', [['2025-01-07', 99]], {
        ...combined,
        failedChecks: ['old_plus_other_equals_all'],
      }),
    ]);
    expect(checksOf(docs, 'CORN:disaggregated:2025')).toEqual(['legacy_oi_equals_disaggregated_oi']);
    expect(checksOf(docs, 'CORN:legacy_combined:2025')).toEqual([
      'old_plus_other_equals_all',
      'combined_oi_at_least_futures_only',
    ]);
    const own = foldEvents(cotProjection, [
      cotRecorded('CORN', [['2025-01-07', 5]], { format: 'cit', failedChecks: ['old_plus_other_equals_all'] }),
    ]);
    expect(checksOf(own, 'CORN:cit:2025')).toEqual(['old_plus_other_equals_all']);
  });

  it('a corrected version that passes is current without failed_checks; the failing one stays among the revised', () => {
    const docs = foldEvents(cotProjection, [
      cotRecorded('CORN', [['2025-01-07', 100]]),
      cotRecorded('CORN', [['2025-01-07', 99]], combined),
      cotRecorded('CORN', [['2025-01-07', 100]], { ...combined, occurredAt: '2025-01-11T00:00:00Z' }),
    ]);
    const bucket = docs.get('CORN:legacy_combined:2025')!;
    expect(bucket.reports[0]).toMatchObject({ open_interest: 100 });
    expect(bucket.reports[0]).not.toHaveProperty('failed_checks');
    expect(bucket.revised).toMatchObject([{ open_interest: 99, failed_checks: ['combined_oi_at_least_futures_only'] }]);
  });

  it('in one batch, the runner folds the pair in stream order: the second bucket reads the first as folded', () => {
    const events = [
      { event: cotRecorded('CORN', [['2025-01-07', 100]]), position: 1 },
      { event: cotRecorded('CORN', [['2025-01-07', 99]], combined), position: 2 },
    ];
    const touched = new Map<string, PositionedEvent[]>();
    for (const pe of events) for (const id of cotProjection.keyOf(pe.event)) touched.set(id, [pe]);
    const { writes } = fold(cotProjection, touched, new Map());
    const written = new Map(writes.map((w) => [w.doc._id, w.doc]));
    expect(checksOf(written, 'CORN:legacy_combined:2025')).toEqual(['combined_oi_at_least_futures_only']);
    expect(cotProjection.related!('CORN:legacy_combined:2025')).toEqual([
      'CORN:legacy:2025',
      'CORN:disaggregated_combined:2025',
    ]);
    expect(cotProjection.related!('CORN:cit:2025')).toEqual([]);
  });
});
