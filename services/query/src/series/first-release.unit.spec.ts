import { beforeEach, describe, expect, it } from 'vitest';
import { createResponseCache } from '@cds/response-cache';
import { foldRelease, type ReleaseStamp, type StoredPoint, type VersionedParts } from '@cds/read-models';
import { buildApp } from '../app.ts';
import {
  catalogDoc,
  createFakeRepository,
  createQueryResponseValidator,
  dateRange,
  descriptorOf,
  seriesBuckets,
} from '../testing/index.ts';

// A daily spot price history loaded long after EIA published it (a snapshot's load: one release,
// its time estimated), then one price revised by a later sync. Under as_of, first_release and
// include=revisions the first version of each date counts from the weekly report that carried it.

const NOW = '2026-12-01T12:00:00.000Z';
const LOAD = '2026-11-27T15:00:00.000Z';
const REVISED = '2026-11-30T15:00:00.000Z';
/** The Weekly Petroleum Status Report of Wednesday 2025-03-05, 10:30 New York (EST): the week ending Friday 2025-02-28. */
const WPSR_MAR_5 = '2025-03-05T15:30:00.000Z';

const dates = [...dateRange('1950-01-03', '1950-01-06', true), ...dateRange('2025-02-24', '2025-03-07', true)];
const validate = createQueryResponseValidator();

function history(commodityId: string, load: ReleaseStamp) {
  const kind = { dateOf: (p: StoredPoint) => p.d, same: (a: StoredPoint, b: StoredPoint) => a.v === b.v };
  let parts: VersionedParts<StoredPoint> = { current: [], revised: [], releases: [] };
  const points = dates.map((d, i) => ({ d, v: 60 + i }));
  for (const y of ['1950', '2025']) {
    parts = foldRelease<StoredPoint>(
      parts,
      load,
      points.filter((p) => p.d.startsWith(y)),
      kind,
    );
  }
  parts = foldRelease<StoredPoint>(
    parts,
    { publishedAt: REVISED, firstSeenAt: REVISED, estimated: true },
    [{ d: '2025-02-28', v: 1 }],
    kind,
  );
  return seriesBuckets(commodityId, 'price', parts.current).map((b) => ({
    ...b,
    revised: parts.revised.filter((p) => p.d.startsWith(String(b.year))),
    releases: parts.releases,
  }));
}

function descriptor(source: string, frequency: 'daily' | 'monthly' = 'daily') {
  return {
    ...descriptorOf(
      'price',
      dates.map((d) => ({ d })),
      frequency,
      'USD/bbl',
    ),
    source,
    first_published_at: LOAD,
    last_updated: REVISED,
  };
}

let app: ReturnType<typeof buildApp>;

beforeEach(() => {
  const estimated = { publishedAt: LOAD, firstSeenAt: LOAD, estimated: true };
  const stated = { ...estimated, estimated: false };
  const repository = createFakeRepository({
    catalog: [
      catalogDoc('CRUDE_OIL_WTI', { category: 'energy', series: [descriptor('eia:RWTC')] }),
      catalogDoc('BRENT', { category: 'energy', series: [descriptor('eia:RBRTE')] }),
      // a dataset whose calendar no rule computes (its rule null): its stamps stay
      catalogDoc('NATURAL_GAS', { category: 'energy', series: [descriptor('eia:N9190US3', 'monthly')] }),
    ],
    series: [
      ...history('CRUDE_OIL_WTI', estimated),
      ...history('BRENT', stated),
      ...history('NATURAL_GAS', estimated).map((b) => ({ ...b, frequency: 'monthly' as const })),
    ],
  });
  app = buildApp({
    repository,
    cache: createResponseCache({ maxEntries: 100, maxBytes: 10_000_000, ttlMs: 60_000 }),
    publicBaseUrl: 'https://api.example.com',
    checkResponses: true,
    clock: () => new Date(NOW),
  });
});

interface Point {
  date: string;
  value: number;
  published_at?: string;
  first_seen_at?: string;
  published_at_estimated?: boolean;
  revisions?: { value: number; published_at: string }[];
}

async function get(url: string) {
  const res = await app.inject({ method: 'GET', url });
  validate(url, res);
  return { status: res.statusCode, body: res.json(), raw: res.body };
}

const series = (slug: string, params: string) =>
  get(`/api/v1/commodities/${slug}/series?type=price&start_date=2025-01-01&end_date=2025-12-31&${params}`);

describe('as_of over a history stamped at its load: the first version counts from its calendar release', () => {
  it('as_of 2025-03-07 answers with the prices up to the week the 2025-03-05 report carried, published then, estimated', async () => {
    const res = await series('CRUDE_OIL_WTI', 'as_of=2025-03-07');
    expect(res.status, res.raw).toBe(200);
    const data = res.body.data as Point[];
    expect(data.map((p) => p.date)).toEqual(dateRange('2025-02-24', '2025-02-28', true));
    expect(data.at(-1)).toEqual({
      date: '2025-02-28',
      value: 60 + dates.indexOf('2025-02-28'),
      published_at: WPSR_MAR_5,
      first_seen_at: LOAD,
      published_at_estimated: true,
    });
  });

  it('first_release gives each first version at its estimate; the revision keeps its own time, in revisions too', async () => {
    const first = await series('CRUDE_OIL_WTI', 'first_release=true');
    expect(first.status, first.raw).toBe(200);
    const friday = (first.body.data as Point[]).find((p) => p.date === '2025-02-28')!;
    expect(friday).toMatchObject({ value: 60 + dates.indexOf('2025-02-28'), published_at: WPSR_MAR_5 });
    const history = await series('CRUDE_OIL_WTI', 'include=revisions');
    const revised = (history.body.data as Point[]).find((p) => p.date === '2025-02-28')!;
    expect(revised).toMatchObject({ value: 1, published_at: REVISED });
    expect(revised.revisions).toEqual([expect.objectContaining({ published_at: WPSR_MAR_5 })]);
    // as of the day before the revision, the first version is in force
    const before = await series('CRUDE_OIL_WTI', 'as_of=2026-11-29');
    expect((before.body.data as Point[]).find((p) => p.date === '2025-02-28')!.value).not.toBe(1);
  });

  it('as_of before the earliest estimate is a 400 naming it (1950 is before any calendar: it keeps its stamp)', async () => {
    const res = await series('CRUDE_OIL_WTI', 'as_of=2025-03-05T15:29:59Z');
    expect(res.status, res.raw).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'as_of' });
    expect(res.body.error.message).toContain(`no point-in-time data before ${WPSR_MAR_5}`);
    const then = await get(
      '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=1950-01-01&as_of=2025-03-05T15:30:00Z',
    );
    expect(then.status, then.raw).toBe(200);
    expect((then.body.data as Point[]).map((p) => p.date)).toEqual(dateRange('2025-02-24', '2025-02-28', true));
  });

  it('a stated release time is never moved, nor one of a dataset without a calendar rule', async () => {
    for (const slug of ['BRENT', 'NATURAL_GAS']) {
      const res = await series(slug, 'as_of=2025-03-07');
      expect(res.status, `${slug}: ${res.raw}`).toBe(400);
      expect(res.body.error.message).toContain(`no point-in-time data before ${LOAD}`);
    }
    const first = await series('BRENT', 'first_release=true');
    expect((first.body.data as Point[])[0]).toMatchObject({ published_at: LOAD });
  });

  it('the current view serves every point the published_at the other views serve its version in force with', async () => {
    const now = (await series('CRUDE_OIL_WTI', '')).body.data as Point[];
    const asOf = (await series('CRUDE_OIL_WTI', `as_of=${NOW}`)).body.data as Point[];
    const revisions = (await series('CRUDE_OIL_WTI', 'include=revisions')).body.data as Point[];
    expect(now).toEqual(asOf);
    expect(now).toEqual(revisions.map(({ revisions: _, ...p }) => p));
    // a first version: its calendar release, estimated, first seen at the load
    expect(now[0]).toEqual({
      date: '2025-02-24',
      value: 60 + dates.indexOf('2025-02-24'),
      published_at: WPSR_MAR_5,
      first_seen_at: LOAD,
      published_at_estimated: true,
    });
    // the revised one keeps its own time
    expect(now.find((p) => p.date === '2025-02-28')).toMatchObject({ value: 1, published_at: REVISED });
    // the week of 2025-03-07: carried by the report of 2025-03-12
    expect(now.at(-1)).toMatchObject({ date: '2025-03-07', published_at: '2025-03-12T14:30:00.000Z' });
  });

  it('the current view keeps a stated time, a time of a dataset without a calendar rule, and a stamp before 1950 has any', async () => {
    for (const slug of ['BRENT', 'NATURAL_GAS']) {
      const data = (await series(slug, '')).body.data as Point[];
      expect(data.length, slug).toBeGreaterThan(0);
      for (const p of data) expect(p.published_at, `${slug} ${p.date}`).toBe(p.date === '2025-02-28' ? REVISED : LOAD);
    }
    const early = await get(
      '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=1950-01-01&end_date=1950-12-31',
    );
    expect((early.body.data as Point[]).map((p) => p.published_at)).toEqual([LOAD, LOAD, LOAD, LOAD]);
  });

  it('a weekly or monthly point, or a change, carries the latest publication of its observations, as with as_of', async () => {
    for (const params of ['frequency=weekly', 'frequency=monthly', 'transform=change']) {
      const now = (await series('CRUDE_OIL_WTI', params)).body.data as Point[];
      const asOf = (await series('CRUDE_OIL_WTI', `${params}&as_of=${NOW}`)).body.data as Point[];
      expect(now.length, params).toBeGreaterThan(0);
      expect(now, params).toEqual(asOf);
    }
    // the week of 2025-02-24..28: its latest input is the Friday revised on REVISED
    const weeks = (await series('CRUDE_OIL_WTI', 'frequency=weekly')).body.data as Point[];
    expect(weeks.map((p) => p.published_at)).toEqual([REVISED, '2025-03-12T14:30:00.000Z']);
  });

  it('GET /commodities/{slug}: first_published_at is the instant the as_of 400 names, the stored one where nothing moves it', async () => {
    const detail = await get('/api/v1/commodities/CRUDE_OIL_WTI');
    expect(detail.status, detail.raw).toBe(200);
    const price = (detail.body.data.available_series as { type: string; first_published_at?: string }[]).find(
      (s) => s.type === 'price',
    )!;
    expect(price.first_published_at).toBe(WPSR_MAR_5);
    const refused = await series('CRUDE_OIL_WTI', 'as_of=2025-03-01');
    expect(refused.status, refused.raw).toBe(400);
    expect(refused.body.error.message).toContain(`no point-in-time data before ${price.first_published_at}`);
    const at = await series('CRUDE_OIL_WTI', `as_of=${price.first_published_at}`);
    expect(at.status, at.raw).toBe(200);
    for (const slug of ['BRENT', 'NATURAL_GAS']) {
      const other = await get(`/api/v1/commodities/${slug}`);
      expect(other.body.data.available_series[0].first_published_at, slug).toBe(LOAD);
    }
  });
});
