import { describe, expect, it } from 'vitest';
import {
  packCotBucket,
  packSeriesBucket,
  packText,
  sortedPartsJson,
  unpackCotBucket,
  unpackPoints,
  unpackReleases,
  unpackReports,
  unpackRevised,
  unpackSeriesBucket,
  unpackText,
} from './ferretdb-packing.ts';
import type { CotBucketDoc, SeriesBucketDoc } from '@cds/read-models';

const series: SeriesBucketDoc = {
  _id: 'GOLD:price:2024',
  commodity_id: 'GOLD',
  type: 'price',
  year: 2024,
  frequency: 'daily',
  unit: 'USD/ozt',
  first_date: '2024-01-02',
  last_date: '2024-01-03',
  count: 2,
  points: [
    { d: '2024-01-02', v: 2050.5, o: 2040, h: 2060, l: 2035, c: 2050.5, vol: 1200 },
    { d: '2024-01-03', v: -0.25 },
  ],
  _meta: { position: 7, version: 2, rev: 3, parts: { '2024-01-03': 7, attrs: 5, '2024-01-02': 5 } },
};

const cot: CotBucketDoc = {
  _id: 'GOLD:legacy:2024',
  commodity_id: 'GOLD',
  format: 'legacy',
  year: 2024,
  first_date: '2024-01-02',
  last_date: '2024-01-02',
  count: 1,
  reports: [
    {
      report_date: '2024-01-02',
      exchange: 'CMX',
      open_interest: 500_000,
      groups: { commercial: { long: 1, short: 2 }, non_commercial: { long: 3, short: 4, spreading: 5 } },
    },
  ],
  _meta: { position: 9, version: 3 },
};

describe('bucket packing', () => {
  it('packs a series bucket into plain fields plus JSON text, and unpacks it to an equal bucket', () => {
    const packed = packSeriesBucket(series);
    expect(packed).not.toHaveProperty('points');
    expect(typeof packed.points_json).toBe('string');
    expect(packed._meta).toEqual({ position: 7, version: 2, rev: 3, parts_json: expect.any(String) as string });
    expect(packed.year).toBe(2024);
    expect(unpackSeriesBucket(packed)).toEqual(series);
  });

  it('packs equal parts to the same text whatever order their keys were written in', () => {
    const reordered = { ...series, _meta: { ...series._meta, parts: { attrs: 5, '2024-01-02': 5, '2024-01-03': 7 } } };
    expect(packSeriesBucket(reordered)._meta.parts_json).toBe(packSeriesBucket(series)._meta.parts_json);
    expect(unpackText(packSeriesBucket(series)._meta.parts_json!)).toEqual({
      '2024-01-02': 5,
      '2024-01-03': 7,
      attrs: 5,
    });
  });

  it('writes parts as the JSON text of the parts rebuilt in key order, keys escaped as JSON escapes them', () => {
    const parts: Record<string, number> = { attrs: 9 };
    for (let d = 31; d >= 1; d -= 1) parts[`2024-01-${String(d).padStart(2, '0')}`] = 1_000 + d;
    parts['2023-12-31'] = 0;
    parts['wheat|"bu"\\x'] = 12_345_678_901;
    const rebuilt = Object.fromEntries(Object.entries(parts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(sortedPartsJson(parts)).toBe(JSON.stringify(rebuilt));
    expect(JSON.parse(sortedPartsJson(parts))).toEqual(parts);
    expect(Object.keys(JSON.parse(sortedPartsJson(parts)) as object).slice(0, 2)).toEqual(['2023-12-31', '2024-01-01']);
    expect(sortedPartsJson({})).toBe('{}');
  });

  it('round-trips a COT bucket; a bucket without parts packs without parts_json', () => {
    const packed = packCotBucket(cot);
    expect(packed).not.toHaveProperty('reports');
    expect(packed._meta).toEqual({ position: 9, version: 3 });
    expect(unpackCotBucket(packed)).toEqual(cot);
  });

  it('reads a bucket written before packing (plain arrays) as it is, and an empty one as empty', () => {
    expect(unpackPoints({ points: series.points })).toEqual(series.points);
    expect(unpackReports({ reports: cot.reports })).toEqual(cot.reports);
    expect(unpackPoints({})).toEqual([]);
    expect(unpackReports({ reports_json: '[]' })).toEqual([]);
    const legacy = { ...packSeriesBucket(series), points_json: undefined, points: series.points };
    expect(unpackSeriesBucket(legacy as never).points).toEqual(series.points);
  });

  it('packs the versions apart as their own JSON text, and a bucket without versions without them', () => {
    const release = {
      p: '2024-01-05T20:30:00.000Z',
      f: '2024-01-06T00:00:00.000Z',
      e: true as const,
      lo: '2024-01-02',
      hi: '2024-01-03',
    };
    const versioned: SeriesBucketDoc = {
      ...series,
      points: series.points.map((p) => ({ ...p, r: 1 })),
      revised: [{ d: '2024-01-03', v: -0.5, r: 0 }],
      releases: [{ ...release, p: '2024-01-04T20:30:00.000Z' }, release],
    };
    const packed = packSeriesBucket(versioned);
    expect(packed).not.toHaveProperty('revised');
    expect(packed).not.toHaveProperty('releases');
    expect(unpackText(packed.revised_json!)).toEqual(versioned.revised);
    expect(JSON.parse(packed.releases_json!)).toEqual(versioned.releases);
    expect(unpackSeriesBucket(packed)).toEqual(versioned);
    expect(packSeriesBucket(series)).not.toHaveProperty('revised_json');
    expect(packSeriesBucket(series)).not.toHaveProperty('releases_json');
    const cotVersioned: CotBucketDoc = {
      ...cot,
      reports: cot.reports.map((r) => ({ ...r, r: 0 })),
      revised: [{ ...cot.reports[0]!, open_interest: 1, r: 0 }],
      releases: [release],
    };
    const packedCot = packCotBucket(cotVersioned);
    expect(Object.keys(packedCot)).toEqual(expect.arrayContaining(['reports_json', 'revised_json', 'releases_json']));
    expect(unpackCotBucket(packedCot)).toEqual(cotVersioned);
    expect(unpackRevised({})).toBeUndefined();
    expect(unpackRevised({ revised_json: JSON.stringify(versioned.revised) })).toEqual(versioned.revised);
    expect(unpackReleases({ releases: [release] })).toEqual([release]);
  });

  it('deflates the large texts to a fraction of their JSON, and reads texts written before as plain JSON', () => {
    const year = Array.from({ length: 365 }, (_, i) => ({
      d: new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10),
      v: 2_000 + (i % 50) / 4,
      r: 0,
    }));
    const packed = packSeriesBucket({ ...series, points: year, count: year.length });
    expect(packed.points_json.length).toBeLessThan(JSON.stringify(year).length / 3);
    expect(unpackPoints(packed)).toEqual(year);
    expect(unpackText(packText({ a: [1, 'z:'] }))).toEqual({ a: [1, 'z:'] });
    expect(unpackPoints({ points_json: JSON.stringify(year) })).toEqual(year);
  });
});
