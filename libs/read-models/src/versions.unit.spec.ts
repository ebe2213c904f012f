import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  firstPublished,
  foldRelease,
  normalizeInstant,
  releaseFolder,
  releaseOfFirst,
  viewItems,
  type ItemKind,
  type ReleaseStamp,
  type VersionedParts,
} from './versions.ts';

interface Item {
  d: string;
  v: number;
  r?: number;
}
const kind: ItemKind<Item> = { dateOf: (i) => i.d, same: (a, b) => a.v === b.v };
const empty = (): VersionedParts<Item> => ({ current: [], revised: [], releases: [] });

const DATES = ['2025-01-01', '2025-02-01', '2025-03-01', '2025-04-01', '2025-05-01', '2025-06-01'];
const instant = (day: number): string => new Date(Date.UTC(2025, 6, 1) + day * 86_400_000).toISOString();

/** A release as a source publishes it: an instant and a value for every date of a contiguous range. */
interface Release {
  day: number;
  seen: number;
  values: Map<string, number>;
}

function stampOf(r: Release): ReleaseStamp {
  return { publishedAt: instant(r.day), firstSeenAt: instant(r.seen), estimated: false };
}
function itemsOf(r: Release): Item[] {
  return [...r.values].map(([d, v]) => ({ d, v }));
}
function fold(releases: readonly Release[]): VersionedParts<Item> {
  return releases.reduce((parts, r) => foldRelease(parts, stampOf(r), itemsOf(r), kind), empty());
}

/** The reference: for each date, the value of the newest release at or before `t` that carried it. */
function bruteForce(releases: readonly Release[], t: string | undefined, first = false): Map<string, number> {
  const out = new Map<string, { at: string; v: number }>();
  for (const r of releases) {
    const at = instant(r.day);
    if (t !== undefined && at > t) continue;
    for (const [d, v] of r.values) {
      const known = out.get(d);
      if (known === undefined || (first ? at < known.at : at > known.at)) out.set(d, { at, v });
    }
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)).map(([d, x]) => [d, x.v]));
}

/** The reference for first_release: the value of the first version, i.e. of the oldest release carrying the date. */
function answer(parts: VersionedParts<Item>, t: string | undefined, firstRelease = false): Map<string, number> {
  return new Map(viewItems(parts, { asOf: t, firstRelease }, kind).map((x) => [x.item.d, x.item.v]));
}

const releaseArb = fc
  .record({
    day: fc.integer({ min: 0, max: 40 }),
    seenLag: fc.integer({ min: 0, max: 3 }),
    lo: fc.integer({ min: 0, max: DATES.length - 1 }),
    len: fc.integer({ min: 1, max: DATES.length }),
    // few distinct values, so confirmations and repeats are common
    values: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: DATES.length, maxLength: DATES.length }),
  })
  .map(({ day, seenLag, lo, len, values }): Release => {
    const dates = DATES.slice(lo, lo + len);
    return { day, seen: day + seenLag, values: new Map(dates.map((d, i) => [d, values[i]!])) };
  });

/** Releases with distinct publication instants (one instant is one release). */
const releasesArb = fc.uniqueArray(releaseArb, { selector: (r) => r.day, minLength: 1, maxLength: 8 });

describe('point in time: foldRelease and viewItems', () => {
  it('for any releases folded in any order and any instant, as_of equals a replay of the releases published by then', () => {
    fc.assert(
      fc.property(releasesArb, fc.func(fc.integer()), fc.integer({ min: -1, max: 42 }), (releases, order, day) => {
        const shuffled = [...releases].sort((a, b) => order(a.day) - order(b.day) || a.day - b.day);
        const parts = fold(shuffled);
        const t = instant(day);
        expect(answer(parts, t)).toEqual(bruteForce(releases, t));
        expect(answer(parts, undefined)).toEqual(bruteForce(releases, undefined));
        // the first release of every observation: the oldest release that carried it
        expect(answer(parts, undefined, true)).toEqual(bruteForce(releases, undefined, true));
      }),
      { numRuns: 500 },
    );
  });

  it('the stored form does not depend on the arrival order (equal documents: replicas and rebuilds hash the same)', () => {
    fc.assert(
      fc.property(releasesArb, fc.func(fc.integer()), (releases, order) => {
        const shuffled = [...releases].sort((a, b) => order(a.day) - order(b.day) || a.day - b.day);
        expect(fold(shuffled)).toEqual(fold(releases));
      }),
      { numRuns: 300 },
    );
  });

  it('a replay of a release already folded returns the very same object', () => {
    fc.assert(
      fc.property(releasesArb, (releases) => {
        const parts = fold(releases);
        for (const r of releases) expect(foldRelease(parts, stampOf(r), itemsOf(r), kind)).toBe(parts);
      }),
    );
  });

  it('an older vintage loaded after a newer one never brings old values back; both versions are kept', () => {
    const june: Release = { day: 0, seen: 0, values: new Map([['2025-05-01', 10]]) };
    const march: Release = { day: 30, seen: 30, values: new Map([['2025-05-01', 11]]) };
    const parts = fold([march, june]);
    expect(parts.current).toEqual([{ d: '2025-05-01', v: 11, r: 1 }]);
    expect(parts.revised).toEqual([{ d: '2025-05-01', v: 10, r: 0 }]);
    expect(answer(parts, instant(29))).toEqual(new Map([['2025-05-01', 10]]));
    expect(answer(parts, instant(-1))).toEqual(new Map());
    const history = viewItems(parts, { revisions: true }, kind);
    expect(history[0]!.earlier!.map((e) => [e.item.v, e.release!.p])).toEqual([[10, instant(0)]]);
    expect(firstPublished(parts.releases)).toBe(instant(0));
  });

  it('a release repeating the value in force only confirms it: no new version, the release is remembered', () => {
    const a: Release = { day: 0, seen: 0, values: new Map([['2025-01-01', 1]]) };
    const b: Release = { day: 5, seen: 5, values: new Map([['2025-01-01', 1]]) };
    const parts = fold([a, b]);
    expect(parts.current).toEqual([{ d: '2025-01-01', v: 1, r: 0 }]);
    expect(parts.revised).toEqual([]);
    expect(parts.releases.map((r) => r.p)).toEqual([instant(0), instant(5)]);
    // then a late release between them with another value: the value comes back at the confirmation
    const late = foldRelease(parts, stampOf({ day: 3, seen: 9, values: new Map() }), [{ d: '2025-01-01', v: 2 }], kind);
    expect(answer(late, instant(4))).toEqual(new Map([['2025-01-01', 2]]));
    expect(answer(late, instant(5))).toEqual(new Map([['2025-01-01', 1]]));
  });

  it('a different value under an instant already holding one is a correction published when first seen, estimated', () => {
    const base = foldRelease(
      empty(),
      stampOf({ day: 0, seen: 0, values: new Map() }),
      [{ d: '2025-01-01', v: 1 }],
      kind,
    );
    const corrected = foldRelease(
      base,
      { publishedAt: instant(0), firstSeenAt: instant(4), estimated: false },
      [{ d: '2025-01-01', v: 7 }],
      kind,
    );
    expect(answer(corrected, undefined)).toEqual(new Map([['2025-01-01', 7]]));
    expect(answer(corrected, instant(3))).toEqual(new Map([['2025-01-01', 1]]));
    const release = corrected.releases[corrected.current[0]!.r!]!;
    expect(release).toMatchObject({ p: instant(4), e: true, lo: '2025-01-01', hi: '2025-01-01' });
  });

  it('two values under one instant: the first seen keeps it, the restatement is a version from its sighting, in either arrival order', () => {
    const p = instant(0);
    const original: { stamp: ReleaseStamp; item: Item } = {
      stamp: { publishedAt: p, firstSeenAt: instant(1), estimated: true },
      item: { d: '2025-01-01', v: 110 },
    };
    const restated: { stamp: ReleaseStamp; item: Item } = {
      stamp: { publishedAt: p, firstSeenAt: instant(5), estimated: true },
      item: { d: '2025-01-01', v: 111 },
    };
    const apply = (order: (typeof original)[]) =>
      order.reduce<VersionedParts<Item>>((parts, x) => foldRelease(parts, x.stamp, [x.item], kind), empty());
    const inOrder = apply([original, restated]);
    expect(apply([restated, original])).toEqual(inOrder);
    expect(answer(inOrder, undefined)).toEqual(new Map([['2025-01-01', 111]]));
    expect(answer(inOrder, instant(4))).toEqual(new Map([['2025-01-01', 110]]));
    expect(inOrder.releases.map((r) => [r.p, r.e])).toEqual([
      [p, true],
      [instant(5), true],
    ]);
  });

  it('a folder over a run of releases gives what folding them one by one gives, and the same object when none changed', () => {
    fc.assert(
      fc.property(releasesArb, fc.integer({ min: 0, max: 8 }), (releases, split) => {
        const held = fold(releases.slice(0, split));
        const folder = releaseFolder(held, kind);
        const dates = new Set<string>();
        const changed = releases.slice(split).map((r) => folder.fold(stampOf(r), itemsOf(r), dates));
        const oneByOne = releases
          .slice(split)
          .reduce((parts, r) => foldRelease(parts, stampOf(r), itemsOf(r), kind), held);
        expect(folder.parts()).toEqual(oneByOne);
        if (!changed.includes(true)) expect(folder.parts()).toBe(held);
      }),
      { numRuns: 300 },
    );
  });

  it('a run of confirmations costs the dates it carries, not the bucket each time', () => {
    const big: Release = {
      day: 0,
      seen: 0,
      values: new Map(Array.from({ length: 1_000 }, (_, i) => [`2025-${String(i).padStart(5, '0')}`, i])),
    };
    const held = fold([big]);
    const cost = (releases: number): number => {
      let calls = 0;
      const counting: ItemKind<Item> = { dateOf: (i) => (calls++, i.d), same: kind.same };
      const folder = releaseFolder(held, counting);
      for (let k = 0; k < releases; k++) {
        const d = `2025-${String(k).padStart(5, '0')}`;
        expect(folder.fold(stampOf(big), [{ d, v: k }])).toBe(false);
      }
      expect(folder.parts()).toBe(held);
      return calls;
    };
    // indexing the bucket once (about 1,000 dates), then a few per release: ten times the releases
    // is far from ten times the cost
    expect(cost(100) / cost(10)).toBeLessThan(2);
  });

  it('items of documents written before versions (no r) count as published before any instant', () => {
    const legacy: { current: Item[] } = { current: [{ d: '2025-01-01', v: 1 }] };
    expect(viewItems(legacy, { asOf: instant(0) }, kind)).toEqual([
      { item: { d: '2025-01-01', v: 1 }, release: undefined },
    ]);
  });

  it('normalizeInstant: any RFC 3339 offset to toISOString text; unreadable to undefined', () => {
    expect(normalizeInstant('2025-03-07T15:30:00-05:00')).toBe('2025-03-07T20:30:00.000Z');
    expect(normalizeInstant('not a time')).toBeUndefined();
  });
});

describe('point in time: a first version stamped at its load counts from the calendar estimate', () => {
  // A history loaded on day 40 (estimated stamp), revised on day 45 (estimated too); the calendar
  // says an observation of each month came out the day its number says (days 0..5).
  const month = (d: string) => Number(d.slice(5, 7)) - 1;
  const estimate = (d: string): string | undefined => (d === '2025-06-01' ? undefined : instant(month(d)));
  const load: ReleaseStamp = { publishedAt: instant(40), firstSeenAt: instant(40), estimated: true };
  const revision: ReleaseStamp = { publishedAt: instant(45), firstSeenAt: instant(45), estimated: true };
  const history = (first: ReleaseStamp = load): VersionedParts<Item> =>
    foldRelease<Item>(
      foldRelease<Item>(
        empty(),
        first,
        DATES.map((d, i) => ({ d, v: i })),
        kind,
      ),
      revision,
      [{ d: '2025-03-01', v: 99 }],
      kind,
    );
  const at = (parts: VersionedParts<Item>, view: Parameters<typeof viewItems>[1]) =>
    viewItems(parts, { ...view, firstReleaseEstimate: estimate }, kind).map((x) => [x.item.d, x.item.v, x.release?.p]);

  it('as_of before the load answers each observation from its estimated release; later versions keep their own time', () => {
    expect(at(history(), { asOf: instant(2) })).toEqual([
      ['2025-01-01', 0, instant(0)],
      ['2025-02-01', 1, instant(1)],
      ['2025-03-01', 2, instant(2)],
    ]);
    // the revision is known from its own release only
    expect(at(history(), { asOf: instant(44) }).find(([d]) => d === '2025-03-01')).toEqual([
      '2025-03-01',
      2,
      instant(2),
    ]);
    expect(at(history(), { asOf: instant(45) }).find(([d]) => d === '2025-03-01')).toEqual([
      '2025-03-01',
      99,
      instant(45),
    ]);
    // a date the calendar cannot estimate keeps its stamp: absent before the load, there after it
    expect(at(history(), { asOf: instant(39) }).map(([d]) => d)).not.toContain('2025-06-01');
    expect(at(history(), { asOf: instant(40) }).find(([d]) => d === '2025-06-01')).toEqual([
      '2025-06-01',
      5,
      instant(40),
    ]);
  });

  it("first_release and revisions serve the estimate as the first version's publication, still estimated", () => {
    const first = viewItems(history(), { firstRelease: true, firstReleaseEstimate: estimate }, kind);
    expect(first.find((x) => x.item.d === '2025-03-01')).toMatchObject({
      item: { v: 2 },
      release: { p: instant(2), f: instant(40), e: true },
    });
    const revised = viewItems(history(), { revisions: true, firstReleaseEstimate: estimate }, kind);
    const march = revised.find((x) => x.item.d === '2025-03-01')!;
    expect(march.release?.p).toBe(instant(45));
    expect(march.earlier?.map((e) => e.release?.p)).toEqual([instant(2)]);
  });

  it('a stated time is never moved; nor is a stamp earlier than the estimate', () => {
    const stated = history({ ...load, estimated: false });
    expect(at(stated, { asOf: instant(39) })).toEqual([]);
    expect(
      releaseOfFirst({ p: instant(1), f: instant(1), e: true, lo: DATES[0]!, hi: DATES[0]! }, '2025-05-01', estimate),
    ).toMatchObject({ p: instant(1) });
    expect(viewItems(stated, { firstReleaseEstimate: estimate }, kind).map((x) => x.release?.p)).toEqual([
      instant(40),
      instant(40),
      instant(45),
      instant(40),
      instant(40),
      instant(40),
    ]);
  });

  it('the current view serves the first versions at their estimate too, the revision at its own time', () => {
    const current = viewItems(history(), { firstReleaseEstimate: estimate }, kind);
    expect(current.map((x) => [x.item.d, x.item.v, x.release?.p, x.release?.f, x.release?.e])).toEqual([
      ['2025-01-01', 0, instant(0), instant(40), true],
      ['2025-02-01', 1, instant(1), instant(40), true],
      ['2025-03-01', 99, instant(45), instant(45), true],
      ['2025-04-01', 3, instant(3), instant(40), true],
      ['2025-05-01', 4, instant(4), instant(40), true],
      // no estimate for that date: its stamp
      ['2025-06-01', 5, instant(40), instant(40), true],
    ]);
    // without the estimate, the stamps as stored
    expect(viewItems(history(), undefined, kind).map((x) => x.release?.p)).toEqual([
      instant(40),
      instant(40),
      instant(45),
      instant(40),
      instant(40),
      instant(40),
    ]);
  });

  it('for any releases, the current view serves each date the release the versions view serves its newest version with', () => {
    fc.assert(
      fc.property(
        releasesArb,
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        fc.func(fc.integer()),
        (releases, estimated, order) => {
          // folded in any order, some releases estimated (a load, a sync) and some stated
          const shuffled = [...releases].sort((a, b) => order(a.day) - order(b.day) || a.day - b.day);
          const parts = fold(shuffled);
          const marked = {
            ...parts,
            releases: parts.releases.map((r, i) => (estimated[i] === true ? { ...r, e: true as const } : r)),
          };
          const view = { firstReleaseEstimate: estimate };
          const current = viewItems(marked, view, kind).map((x) => [x.item.d, x.item.v, x.release]);
          const newest = viewItems(marked, { ...view, revisions: true }, kind).map((x) => [
            x.item.d,
            x.item.v,
            x.release,
          ]);
          expect(current).toEqual(newest);
          // and what as_of at the newest stamp answers
          const last = parts.releases.at(-1)!.p;
          expect(viewItems(marked, { ...view, asOf: last }, kind).map((x) => [x.item.d, x.item.v, x.release])).toEqual(
            current,
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('for any releases, the estimate only adds what the calendar says was out: as_of at or after every stamp is unchanged', () => {
    fc.assert(
      fc.property(releasesArb, fc.integer({ min: -1, max: 42 }), (releases, day) => {
        const parts = fold(releases);
        const estimatedParts = {
          ...parts,
          releases: parts.releases.map((r) => ({ ...r, e: true as const })),
        };
        const t = instant(day);
        const withEstimate = new Map(
          viewItems(estimatedParts, { asOf: t, firstReleaseEstimate: estimate }, kind).map((x) => [x.item.d, x.item.v]),
        );
        const without = answer(parts, t);
        // whatever was known without the estimate is known with it, with the same value
        for (const [d, v] of without) expect(withEstimate.get(d), d).toBe(v);
        // and a date known only thanks to the estimate shows its first version
        for (const [d, v] of withEstimate) if (!without.has(d)) expect(v).toBe(answer(parts, undefined, true).get(d));
      }),
      { numRuns: 300 },
    );
  });
});
