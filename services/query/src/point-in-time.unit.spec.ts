import { beforeEach, describe, expect, it } from 'vitest';
import { createResponseCache } from '@cds/response-cache';
import {
  foldRelease,
  type CotDoc,
  type ReleaseStamp,
  type SeriesBucketDoc,
  type StoredPoint,
  type VersionedParts,
} from '@cds/read-models';
import { buildApp } from './app.ts';
import { SETTLED_AS_OF_MAX_AGE_SECONDS } from './http/point-in-time.ts';
import {
  catalogDoc,
  cotDoc,
  createFakeRepository,
  createQueryResponseValidator,
  descriptorOf,
  seriesBuckets,
  type FakeRepository,
} from './testing/index.ts';

const NOW = '2026-11-27T12:00:00.000Z';
const validate = createQueryResponseValidator();

// Three Pink Sheet vintages of a monthly series: May 2021 (April), June 2021 (April revised, May),
// March 2022 (May revised; its time estimated).
const MAY = { publishedAt: '2021-05-04T00:00:00.000Z', firstSeenAt: '2021-05-05T08:00:00.000Z', estimated: false };
const JUNE = { publishedAt: '2021-06-02T00:00:00.000Z', firstSeenAt: '2021-06-02T09:00:00.000Z', estimated: false };
const MARCH = { publishedAt: '2022-03-02T00:00:00.000Z', firstSeenAt: '2022-03-03T10:00:00.000Z', estimated: true };
const vintages: [ReleaseStamp, StoredPoint[]][] = [
  [MAY, [{ d: '2021-04-01', v: 100 }]],
  [
    JUNE,
    [
      { d: '2021-04-01', v: 101 },
      { d: '2021-05-01', v: 200 },
    ],
  ],
  [MARCH, [{ d: '2021-05-01', v: 210 }]],
];

/** The bucket the projector folds from the vintages, here in an arrival order other than publication's. */
function copperBucket(): SeriesBucketDoc {
  let parts: VersionedParts<StoredPoint> = { current: [], revised: [], releases: [] };
  for (const i of [2, 0, 1]) {
    const [stamp, items] = vintages[i]!;
    parts = foldRelease(parts, stamp, items, { dateOf: (p) => p.d, same: (a, b) => a.v === b.v });
  }
  const [bucket] = seriesBuckets('COPPER', 'price', parts.current, { frequency: 'monthly' });
  return { ...bucket!, revised: parts.revised, releases: parts.releases };
}

const cotDates = ['2025-02-18', '2025-02-25', '2025-03-04'];
/** The Friday 15:30 New York release of each Tuesday's report, estimated from the calendar. */
const cotReleases = ['2025-02-21T20:30:00.000Z', '2025-02-28T20:30:00.000Z', '2025-03-07T20:30:00.000Z'];
function cotDocs(): CotDoc[] {
  return cotDates.map((d, i) => ({
    ...cotDoc('GOLD', 'legacy', d, i + 1),
    release: { p: cotReleases[i]!, f: cotReleases[i]!.replace('20:30', '21:05'), e: true, lo: d, hi: d },
  }));
}

let repo: FakeRepository;
let app: ReturnType<typeof buildApp>;

beforeEach(() => {
  const days = ['2026-11-02', '2026-11-03'].map((d, i) => ({ d, v: i + 1 }));
  repo = createFakeRepository({
    catalog: [
      catalogDoc('COPPER', {
        category: 'metals',
        series: [
          {
            ...descriptorOf('price', [{ d: '2021-04-01' }, { d: '2021-05-01' }], 'monthly', 'USD/mt'),
            first_published_at: MAY.publishedAt,
          },
          { ...descriptorOf('open_interest', days, 'daily'), first_published_at: MAY.publishedAt },
        ],
      }),
      catalogDoc('GOLD', {
        series: [
          {
            ...descriptorOf(
              'cot_legacy',
              cotDates.map((d) => ({ d })),
              'weekly',
            ),
            first_published_at: cotReleases[0],
          },
          // stored before versions were kept: no first_published_at
          descriptorOf('stocks', [{ d: '2025-01-01' }], 'monthly'),
        ],
      }),
    ],
    series: [
      copperBucket(),
      ...seriesBuckets('COPPER', 'open_interest', days),
      ...seriesBuckets('GOLD', 'stocks', [{ d: '2025-01-01', v: 5 }], { frequency: 'monthly' }),
    ],
    cot: cotDocs(),
  });
  app = buildApp({
    repository: repo,
    cache: createResponseCache({ maxEntries: 100, maxBytes: 10_000_000, ttlMs: 60_000 }),
    publicBaseUrl: 'https://api.example.com',
    checkResponses: true,
    clock: () => new Date(NOW),
  });
});

async function get(url: string) {
  const res = await app.inject({ method: 'GET', url });
  validate(url, res);
  return { status: res.statusCode, body: res.json(), headers: res.headers, raw: res.body };
}

async function expectBadParam(url: string, param: string) {
  const res = await get(url);
  expect(res.status, res.raw).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
  return res.body.error.message as string;
}

const COPPER = '/api/v1/commodities/COPPER/series?type=price';
const RANGE = '&start_date=2021-01-01&end_date=2021-12-31';
const values = (body: { data: { date: string; value: number }[] }) => body.data.map((p) => [p.date, p.value]);

describe('series as of an instant', () => {
  it('answers now with the newest version of each observation and the release that published it', async () => {
    const res = await get(COPPER + RANGE);
    expect(res.body.data).toEqual([
      { date: '2021-04-01', value: 101, published_at: JUNE.publishedAt, first_seen_at: JUNE.firstSeenAt },
      {
        date: '2021-05-01',
        value: 210,
        published_at: MARCH.publishedAt,
        first_seen_at: MARCH.firstSeenAt,
        published_at_estimated: true,
      },
    ]);
    expect(res.body.meta.as_of).toBeUndefined();
  });

  it('answers with what had been published then, echoes the instant, and defaults end_date to its date', async () => {
    const between = await get(`${COPPER}&as_of=2021-12-31`);
    expect(values(between.body)).toEqual([
      ['2021-04-01', 101],
      ['2021-05-01', 200],
    ]);
    expect(between.body.meta).toMatchObject({ as_of: '2021-12-31T23:59:59.999Z' });
    const first = await get(`${COPPER}${RANGE}&as_of=2021-05-10T12:00:00%2B02:00`);
    expect(first.body.data).toEqual([
      { date: '2021-04-01', value: 100, published_at: MAY.publishedAt, first_seen_at: MAY.firstSeenAt },
    ]);
    expect(first.body.meta.as_of).toBe('2021-05-10T10:00:00.000Z');
    const after = await get(`${COPPER}${RANGE}&as_of=2022-03-02T00:00:00Z`);
    expect(values(after.body)).toEqual([
      ['2021-04-01', 101],
      ['2021-05-01', 210],
    ]);
  });

  it('first_release=true gives the first published version; include=revisions the earlier ones, oldest first', async () => {
    const first = await get(`${COPPER}${RANGE}&first_release=true`);
    expect(values(first.body)).toEqual([
      ['2021-04-01', 100],
      ['2021-05-01', 200],
    ]);
    expect(first.body.meta.first_release).toBe(true);
    const revisions = await get(`${COPPER}${RANGE}&include=revisions`);
    expect(revisions.body.data.map((p: { revisions: unknown }) => p.revisions)).toEqual([
      [{ value: 100, published_at: MAY.publishedAt, first_seen_at: MAY.firstSeenAt }],
      [{ value: 200, published_at: JUNE.publishedAt, first_seen_at: JUNE.firstSeenAt }],
    ]);
    const asOf = await get(`${COPPER}${RANGE}&include=revisions&as_of=2021-12-31`);
    expect(asOf.body.data.map((p: { value: number; revisions: unknown[] }) => [p.value, p.revisions.length])).toEqual([
      [101, 1],
      [200, 0],
    ]);
  });

  it('a transformed point carries the latest publication of the values it comes from', async () => {
    const res = await get(`${COPPER}${RANGE}&transform=change`);
    expect(res.body.data).toEqual([
      {
        date: '2021-05-01',
        value: 109,
        published_at: MARCH.publishedAt,
        first_seen_at: MARCH.firstSeenAt,
        published_at_estimated: true,
      },
    ]);
  });

  it('an as_of after now, before the first publication, without versions or malformed is a 400 naming as_of', async () => {
    // a date means the end of that day: today's is still ahead
    expect(await expectBadParam(`${COPPER}&as_of=2026-11-27`, 'as_of')).toContain('after now');
    await expectBadParam(`${COPPER}&as_of=2026-11-27T12:00:01Z`, 'as_of');
    expect(await expectBadParam(`${COPPER}&as_of=2021-05-03`, 'as_of')).toContain(
      `no point-in-time data before ${MAY.publishedAt}`,
    );
    expect(await expectBadParam('/api/v1/commodities/GOLD/series?type=stocks&as_of=2025-06-01', 'as_of')).toContain(
      'no point-in-time data yet',
    );
    await expectBadParam(`${COPPER}&as_of=last-week`, 'as_of');
    await expectBadParam(`${COPPER}&as_of=2021-12-31T12:00:00`, 'as_of');
    await expectBadParam(`${COPPER}&first_release=1`, 'first_release');
  });

  it('include=revisions only at the native frequency and without a transform (400 naming include)', async () => {
    await expectBadParam(
      '/api/v1/commodities/COPPER/series?type=open_interest&include=revisions&frequency=weekly',
      'include',
    );
    await expectBadParam(`${COPPER}&include=revisions&transform=cumulative`, 'include');
    await expectBadParam(`${COPPER}&include=everything`, 'include');
    const native = await get('/api/v1/commodities/COPPER/series?type=open_interest&include=revisions&frequency=daily');
    expect(native.status).toBe(200);
  });

  it('a settled as_of is kept long; a recent one as the current data; the variants are cached apart', async () => {
    const settled = await get(`${COPPER}&as_of=2021-12-31`);
    expect(settled.headers['cache-control']).toBe(`private, max-age=${SETTLED_AS_OF_MAX_AGE_SECONDS}`);
    const recent = await get(`${COPPER}&as_of=2026-11-26T00:00:00Z${RANGE}`);
    const current = await get(COPPER + RANGE);
    expect(recent.headers['cache-control']).toBe(current.headers['cache-control']);
    expect(current.headers['cache-control']).not.toBe(settled.headers['cache-control']);
    const calls = repo.calls.seriesRange;
    await get(`${COPPER}&as_of=2021-12-31`);
    expect(repo.calls.seriesRange).toBe(calls);
    expect(values((await get(`${COPPER}${RANGE}&first_release=true`)).body)[1]).toEqual(['2021-05-01', 200]);
    expect(repo.calls.seriesRange).toBe(calls! + 1);
  });
});

describe('the detail', () => {
  it('tells the earliest as_of of each series, where it has versions', async () => {
    const res = await get('/api/v1/commodities/GOLD');
    const byType = Object.fromEntries(
      res.body.data.available_series.map((s: { type: string; first_published_at?: string }) => [
        s.type,
        s.first_published_at,
      ]),
    );
    expect(byType).toEqual({ cot_legacy: cotReleases[0], stocks: undefined });
  });
});

describe('COT as of an instant', () => {
  const COT = '/api/v1/commodities/GOLD/cot';

  it('every report carries its release; as_of keeps those published by then (15:30 New York)', async () => {
    const now = await get(COT);
    expect(now.body.data[0]).toMatchObject({
      report_date: '2025-03-04',
      published_at: cotReleases[2],
      first_seen_at: '2025-03-07T21:05:00.000Z',
      published_at_estimated: true,
    });
    const before = await get(`${COT}?as_of=2025-03-07T20:29:00Z`);
    expect(before.body.data[0].report_date).toBe('2025-02-25');
    expect(before.body.meta).toMatchObject({ total: 2, as_of: '2025-03-07T20:29:00.000Z' });
    const after = await get(`${COT}?as_of=2025-03-07T20:31:00Z`);
    expect(after.body.data[0].report_date).toBe('2025-03-04');
  });

  it('the analytics work on the view: changes of the first report as of then', async () => {
    const res = await get(`${COT}?as_of=2025-02-28T21:00:00Z&include=changes&per_page=1`);
    expect(res.body.data.map((r: { report_date: string }) => r.report_date)).toEqual(['2025-02-25']);
    expect(res.body.data[0].changes.open_interest).toBe(5000);
    expect(repo.calls.cotBefore).toBe(1);
  });

  it('refuses an as_of after now or before the format first published, naming as_of', async () => {
    await expectBadParam(`${COT}?as_of=2027-01-01`, 'as_of');
    expect(await expectBadParam(`${COT}?as_of=2025-02-21T20:29:00Z`, 'as_of')).toContain(
      'no point-in-time data before',
    );
    await expectBadParam(`${COT}?as_of=2025-02-30`, 'as_of');
  });
});
