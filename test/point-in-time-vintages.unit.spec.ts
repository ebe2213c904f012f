// Two real Pink Sheet vintages ("Updated on November 04, 2025" and "December 02, 2025", which
// revised 2025M10 SOYBEAN_OIL 1135.81 → 1132.14834869565 and SOYBEAN_MEAL 351.25 → 356) through the
// ingest's own parser and event building, then the projector's series reducer, in both load orders:
// the stored buckets are the same whatever the order, the newest vintage is current, the older one
// kept as the revised version (the e2e spec takes one order through the whole pipeline).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataEvent } from '@cds/contracts';
import { CATALOG, runIngest, type PreparedEvent, type Publisher } from '@cds/ingest';
import { parseWorldBankXlsx } from '@cds/ingest/sources/worldbank';
import { seriesProjection } from '@cds/projector';
import { viewItems, type SeriesBucketDoc, type StoredPoint } from '@cds/read-models';
import { REPO_ROOT } from '@cds/testkit';
import { describe, expect, it } from 'vitest';

const FIXTURES = join(REPO_ROOT, 'services', 'ingest', 'test', 'fixtures');
const VINTAGES = {
  november: 'worldbank_pink_sheet_2025-11_excerpt.xlsx',
  december: 'worldbank_pink_sheet_2025-12_excerpt.xlsx',
} as const;

/** The events the ingest publishes for a workbook (a publisher that keeps them). */
async function eventsOf(file: string, ingestedAt: string): Promise<DataEvent[]> {
  const events: DataEvent[] = [];
  const publisher: Publisher = {
    publish: (prepared: PreparedEvent) => {
      events.push(prepared.event);
      return Promise.resolve();
    },
    flush: () => Promise.resolve(),
    stats: {
      eventsPublished: 0,
      recordsPublished: 0,
      duplicatesSkipped: 0,
      duplicateRecords: 0,
      retries: 0,
      inFlight: 0,
    },
  };
  await runIngest({
    items: parseWorldBankXlsx(readFileSync(join(FIXTURES, file)), { catalog: CATALOG, file }),
    publisher,
    source: 'worldbank',
    clock: () => new Date(ingestedAt),
  });
  return events;
}

function fold(events: readonly DataEvent[]): Map<string, SeriesBucketDoc> {
  const docs = new Map<string, SeriesBucketDoc>();
  events.forEach((event, i) => {
    for (const id of seriesProjection.keyOf(event)) {
      docs.set(id, seriesProjection.evolve(docs.get(id) ?? seriesProjection.initial(id), event, i + 1));
    }
  });
  return docs;
}

/** What a bucket says, without where it was written from (stream positions differ with the order). */
const content = (doc: SeriesBucketDoc) => ({ points: doc.points, revised: doc.revised, releases: doc.releases });
const at = (doc: SeriesBucketDoc, date: string, asOf?: string) =>
  viewItems(
    { current: doc.points, revised: doc.revised, releases: doc.releases },
    { asOf },
    { dateOf: (p: StoredPoint) => p.d },
  ).find((x) => x.item.d === date);

describe('two real Pink Sheet vintages, loaded in either order', () => {
  it('give the same buckets: December current, November kept as the revised version, each with its publication', async () => {
    const november = await eventsOf(VINTAGES.november, '2025-11-05T08:00:00.000Z');
    const december = await eventsOf(VINTAGES.december, '2025-12-03T08:00:00.000Z');
    expect(
      november.every((e) => e.type !== 'series.points.recorded' || e.data.published_at === '2025-11-04T00:00:00.000Z'),
    ).toBe(true);
    const oldestFirst = fold([...november, ...december]);
    const newestFirst = fold([...december, ...november]);
    expect([...newestFirst.keys()].sort()).toEqual([...oldestFirst.keys()].sort());
    for (const [id, doc] of oldestFirst) expect(content(newestFirst.get(id)!), id).toEqual(content(doc));

    for (const [series, before, after] of [
      ['SOYBEAN_OIL', 1135.81, 1132.14834869565],
      ['SOYBEAN_MEAL', 351.25, 356],
    ] as const) {
      const bucket = newestFirst.get(`${series}:price:2025`)!;
      const current = at(bucket, '2025-10-31')!;
      expect(current.item.v).toBe(after);
      expect(current.release).toMatchObject({ p: '2025-12-02T00:00:00.000Z', f: '2025-12-03T08:00:00.000Z' });
      expect(current.release!.e).toBeUndefined();
      expect(at(bucket, '2025-10-31', '2025-12-01T23:59:59.999Z')!.item.v).toBe(before);
      expect(bucket.revised).toEqual([expect.objectContaining({ d: '2025-10-31', v: before })]);
      // unrevised months were first published in November; November 2025 exists only from December
      expect(at(bucket, '2025-01-31')!.release!.p).toBe('2025-11-04T00:00:00.000Z');
      expect(at(bucket, '2025-11-30', '2025-12-01T23:59:59.999Z')).toBeUndefined();
    }
  });
});
