import { cotCsvColumns, type CsvColumn } from '@cds/contracts';
import { COLLECTIONS, type CotBucketDoc, type CotDoc, type StoredRelease } from '@cds/read-models';
import { INDEXES, packCotBucket } from '@cds/store';
import { getTestInfra, uniqueName } from '@cds/testkit';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, createMongoRepository, createResponseCache } from '../src/index.ts';
import {
  catalogDoc,
  cotBuckets,
  cotDoc,
  createQueryResponseValidator,
  dateRange,
  descriptorOf,
} from '../src/testing/index.ts';

// GET /commodities/{id}/cot per COT dataset (a format in a scope) against a real MongoDB API
// server (FerretDB in the testkit): CORN has futures-only and combined legacy reports and the CIT
// supplement, each dataset in its own buckets (`CORN:legacy:2025`, `CORN:legacy_combined:2025`,
// `CORN:cit:2025`); GOLD has futures-only legacy reports only. Every answer is checked against the
// OpenAPI document.

const TODAY = '2025-06-15';
const validate = createQueryResponseValidator();
const clock = () => new Date(`${TODAY}T08:00:00Z`);
const tuesdays = dateRange('2024-01-02', '2025-06-10').filter((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 2);
const BASE = '/api/v1/commodities/CORN/cot';

/** The Friday 15:30 New York (20:30 UTC in winter, 19:30 in summer: 20:30 here) after a Tuesday. */
function fridayOf(tuesday: string): string {
  return new Date(Date.parse(`${tuesday}T20:30:00.000Z`) + 3 * 86_400_000).toISOString();
}

/** A bucket as the projector keeps it with versions: one release per report (its Friday). */
function withReleases(bucket: CotBucketDoc): CotBucketDoc {
  const releases: StoredRelease[] = bucket.reports.map((r) => ({
    p: fridayOf(r.report_date),
    f: fridayOf(r.report_date),
    lo: r.report_date,
    hi: r.report_date,
  }));
  return { ...bucket, reports: bucket.reports.map((r, i) => ({ ...r, r: i })), releases };
}

// The futures-only and combined reports differ (combined open interest is twice futures-only's), so
// a mixed answer shows. One futures-only and one combined report failed checks.
const legacy = tuesdays.map((d, i) => cotDoc('CORN', 'legacy', d, i + 1));
const combined = tuesdays.map((d, i) => cotDoc('CORN', 'legacy', d, 2 * (i + 1), 'futures_and_options'));
const cit = tuesdays.map((d, i) => cotDoc('CORN', 'cit', d, i + 1));
const FAILED_FO = '2025-06-03';
const FAILED_COMBINED = '2025-05-27';
const flag = (docs: CotDoc[], date: string, checks: CotDoc['failed_checks']) =>
  docs.map((d) => (d.report_date === date ? { ...d, failed_checks: checks } : d));

// A revised combined report: 2025-06-10 was first published with 1 less open interest, then
// revised the day after its release (a later version in the same bucket).
const REVISED_DATE = '2025-06-10';
const REVISION_AT = '2025-06-14T14:00:00.000Z';

function buckets(): CotBucketDoc[] {
  const plain = cotBuckets([
    ...flag(legacy, FAILED_FO, ['old_plus_other_equals_all']),
    ...flag(combined, FAILED_COMBINED, ['combined_oi_at_least_futures_only', 'legacy_oi_equals_disaggregated_oi']),
    ...cit,
    ...tuesdays.map((d, i) => cotDoc('GOLD', 'legacy', d, i + 1)),
  ]).map(withReleases);
  return plain.map((b) => {
    if (b._id !== 'CORN:legacy_combined:2025') return b;
    // The revision: the current version carries r = the new release, the first one is kept in revised.
    const at = b.reports.findIndex((r) => r.report_date === REVISED_DATE);
    const first = { ...b.reports[at]!, open_interest: b.reports[at]!.open_interest - 1 };
    const releases = [...b.releases!, { p: REVISION_AT, f: REVISION_AT, lo: REVISED_DATE, hi: REVISED_DATE }];
    const reports = b.reports.map((r, i) => (i === at ? { ...r, r: releases.length - 1 } : r));
    return { ...b, reports, revised: [first], releases };
  });
}

const descriptor = (type: 'cot_legacy' | 'cot_legacy_combined' | 'cot_cit') => ({
  ...descriptorOf(
    type,
    tuesdays.map((d) => ({ d })),
    'weekly',
  ),
  source: `cftc:${type.slice(4)}:002602`,
  last_updated: '2025-06-13T21:00:00.000Z',
  first_published_at: fridayOf(tuesdays[0]!),
});

let client: MongoClient;
let db: Db;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  client = new MongoClient(getTestInfra().mongoUrl, { serverSelectionTimeoutMS: 2000 });
  db = client.db(uniqueName('query_cot_scopes'));
  await db.collection(COLLECTIONS.catalog).insertMany([
    catalogDoc('CORN', {
      name: 'Corn',
      symbol: 'ZC',
      category: 'agriculture',
      series: [descriptor('cot_legacy'), descriptor('cot_legacy_combined'), descriptor('cot_cit')],
    }),
    catalogDoc('GOLD', { name: 'Gold', symbol: 'GC', category: 'metals', series: [descriptor('cot_legacy')] }),
  ] as never[]);
  // With the MongoDB adapter's indexes: a format's buckets in two scopes are distinct.
  for (const spec of INDEXES.cot) {
    await db.collection(COLLECTIONS.cot).createIndex(spec.key, { name: spec.name, unique: spec.unique ?? false });
  }
  await db.collection(COLLECTIONS.cot).insertMany(buckets().map(packCotBucket) as never[]);
  app = buildApp({
    repository: createMongoRepository({ db, maxTimeMs: 2000 }),
    cache: createResponseCache({ maxEntries: 1000, maxBytes: 50_000_000, ttlMs: 60_000 }),
    publicBaseUrl: 'http://localhost:8080',
    checkResponses: true,
    clock,
  });
});

afterAll(async () => {
  await app?.close();
  await db?.dropDatabase().catch(() => undefined);
  await client?.close();
});

type Report = Record<string, unknown> & {
  report_date: string;
  open_interest: number;
  scope: string;
  format: string;
};

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  const json = res.headers['content-type']?.toString().startsWith('application/json') === true;
  // A JSON answer (200 or error) against the OpenAPI document; a CSV's header row is checked below.
  if (json) validate(url, res);
  return {
    status: res.statusCode,
    body: json ? res.json() : undefined,
    raw: res.body,
    headers: res.headers,
  };
}

const csvHeader = (columns: readonly CsvColumn[]) => columns.map((c) => c.name).join(',');
const dates = (data: Report[]) => data.map((r) => r.report_date);
const byDate = (docs: CotDoc[], date: string) => docs.find((d) => d.report_date === date)!;

describe('COT scopes', () => {
  it('the default answer is the futures-only one, as before, with scope futures_only on each report', async () => {
    const res = await get(`${BASE}?per_page=100`);
    expect(res.status).toBe(200);
    const data = res.body.data as Report[];
    expect(dates(data)).toEqual([...tuesdays].reverse());
    expect(res.body.meta).toMatchObject({ total: tuesdays.length });
    for (const r of data) {
      expect(r).toMatchObject({ format: 'legacy', scope: 'futures_only' });
      expect(r.open_interest).toBe(byDate(legacy, r.report_date).open_interest);
      expect(Object.keys(r)).not.toContain('index_traders');
    }
    // Asking for futures_only is the same answer.
    const explicit = await get(`${BASE}?per_page=100&scope=futures_only`);
    expect(explicit.body.data).toEqual(data);
  });

  it('scope=futures_and_options gives the combined reports only, paged and dated per dataset', async () => {
    const res = await get(`${BASE}?scope=futures_and_options&per_page=10&page=2`);
    const data = res.body.data as Report[];
    expect(dates(data)).toEqual([...tuesdays].reverse().slice(10, 20));
    expect(res.body.meta).toMatchObject({ total: tuesdays.length, total_pages: Math.ceil(tuesdays.length / 10) });
    for (const r of data) {
      expect(r).toMatchObject({ format: 'legacy', scope: 'futures_and_options' });
      expect(r.open_interest).toBe(byDate(combined, r.report_date).open_interest);
    }
    const range = await get(
      `${BASE}?scope=futures_and_options&start_date=2024-12-24&end_date=2025-01-14&sort_order=asc`,
    );
    expect(dates(range.body.data)).toEqual(['2024-12-24', '2024-12-31', '2025-01-07', '2025-01-14']);
  });

  it('analytics per dataset: changes, pct_of_oi and cot_index over the combined reports alone', async () => {
    const url = `${BASE}?scope=futures_and_options&include=changes,pct_of_oi,cot_index&index_weeks=26&per_page=1`;
    const [r] = (await get(url)).body.data as Report[];
    const cur = byDate(combined, '2025-06-10');
    const prev = byDate(combined, '2025-06-03');
    expect(r!.changes).toMatchObject({ open_interest: cur.open_interest - prev.open_interest });
    const nc = cur.groups.non_commercial!;
    expect(r!.pct_of_oi).toMatchObject({
      non_commercial: { long: Math.round((1000 * nc.long) / cur.open_interest) / 10 },
    });
    // Net rises with the seed every week: the newest report is the top of its window.
    expect(r!.cot_index).toEqual({ commercial: 100, non_commercial: 100, non_reportable: 100 });
  });

  it('as_of per dataset: the combined revision is seen only by a view after it, the futures-only reports never change', async () => {
    const before = await get(`${BASE}?scope=futures_and_options&as_of=2025-06-14T00:00:00Z&per_page=1`);
    expect(before.body.data[0]).toMatchObject({
      report_date: REVISED_DATE,
      open_interest: byDate(combined, REVISED_DATE).open_interest - 1,
      scope: 'futures_and_options',
      published_at: fridayOf(REVISED_DATE),
    });
    const current = await get(`${BASE}?scope=futures_and_options&per_page=1`);
    expect(current.body.data[0]).toMatchObject({
      open_interest: byDate(combined, REVISED_DATE).open_interest,
      published_at: REVISION_AT,
    });
    const fo = await get(`${BASE}?as_of=2025-06-14T00:00:00Z&per_page=1`);
    expect(fo.body.data[0]).toMatchObject({
      report_date: REVISED_DATE,
      open_interest: byDate(legacy, REVISED_DATE).open_interest,
      scope: 'futures_only',
    });
    // Before the Friday of 2025-06-10, that report is not in either view.
    const earlier = await get(`${BASE}?scope=futures_and_options&as_of=2025-06-13T00:00:00Z&per_page=1`);
    expect(earlier.body.data[0].report_date).toBe('2025-06-03');
  });

  it('failed_checks passes through on the report that failed, and only there; CSV leaves it out', async () => {
    const fo = (await get(`${BASE}?start_date=2025-05-27&end_date=2025-06-10&sort_order=asc`)).body.data as Report[];
    expect(fo.map((r) => [r.report_date, r.failed_checks])).toEqual([
      ['2025-05-27', undefined],
      ['2025-06-03', ['old_plus_other_equals_all']],
      ['2025-06-10', undefined],
    ]);
    const co = (await get(`${BASE}?scope=futures_and_options&start_date=2025-05-27&end_date=2025-06-03&sort_order=asc`))
      .body.data as Report[];
    expect(co.map((r) => [r.report_date, r.failed_checks])).toEqual([
      ['2025-05-27', ['combined_oi_at_least_futures_only', 'legacy_oi_equals_disaggregated_oi']],
      ['2025-06-03', undefined],
    ]);
    const csv = await get(`${BASE}?scope=futures_and_options&start_date=2025-05-27&end_date=2025-05-27`, {
      accept: 'text/csv',
    });
    expect(csv.status).toBe(200);
    expect(csv.raw).not.toContain('failed_checks');
    expect(csv.raw).not.toContain('combined_oi_at_least_futures_only');
  });

  it('CSV: a combined answer has a scope column after format and names its dataset; futures-only keeps its columns', async () => {
    const combinedCsv = await get(`${BASE}?scope=futures_and_options&per_page=2`, { accept: 'text/csv' });
    const [header, first] = combinedCsv.raw.trim().split('\r\n');
    const columns = cotCsvColumns({ format: 'legacy', scope: 'futures_and_options' });
    expect(header).toBe(csvHeader(columns));
    expect(header!.startsWith('report_date,commodity,format,scope,exchange,open_interest,')).toBe(true);
    expect(first!.startsWith('2025-06-10,CORN,legacy,futures_and_options,')).toBe(true);
    expect(String(combinedCsv.headers['content-disposition'])).toContain('CORN-cot-legacy_combined.csv');
    const plain = await get(`${BASE}?per_page=2`, { accept: 'text/csv' });
    expect(plain.raw.split('\r\n')[0]).toBe(csvHeader(cotCsvColumns({ format: 'legacy' })));
    expect(plain.raw.split('\r\n')[0]).not.toContain('scope');
    expect(String(plain.headers['content-disposition'])).toContain('CORN-cot-legacy.csv');
  });

  it('an unknown scope is a 400 naming scope; a scope a commodity lacks is a 404 naming format and the scope', async () => {
    for (const bad of ['options', 'FUTURES_ONLY', '']) {
      const res = await get(`${BASE}?scope=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'scope' });
    }
    const gold = await get('/api/v1/commodities/GOLD/cot?scope=futures_and_options');
    expect(gold.status).toBe(404);
    expect(gold.body.error).toMatchObject({ code: 'not_found', param: 'format' });
    expect(gold.body.error.message).toContain('futures_and_options');
    expect(gold.body.error.message).toContain('cot_legacy_combined');
  });
});

describe('COT format=cit (the CIT supplement)', () => {
  it('serves the supplement in scope futures_and_options with its four groups, net computed here', async () => {
    const res = await get(`${BASE}?format=cit&per_page=3`);
    expect(res.status).toBe(200);
    const [r] = res.body.data as Report[];
    const stored = byDate(cit, '2025-06-10').groups;
    const net = (g: { long: number; short: number }) => g.long - g.short;
    expect(r).toMatchObject({
      report_date: '2025-06-10',
      commodity: 'CORN',
      format: 'cit',
      scope: 'futures_and_options',
      open_interest: byDate(cit, '2025-06-10').open_interest,
      commercial: { ...stored.commercial, net: net(stored.commercial!) },
      non_commercial: { ...stored.non_commercial, net: net(stored.non_commercial!) },
      index_traders: { ...stored.index_traders, net: net(stored.index_traders!) },
      non_reportable: { ...stored.non_reportable, net: net(stored.non_reportable!) },
    });
    expect(Object.keys(r!.non_commercial as object).sort()).toEqual(['long', 'net', 'short', 'spreading']);
    // Asking for its only scope is the same answer.
    expect((await get(`${BASE}?format=cit&scope=futures_and_options&per_page=3`)).body.data).toEqual(res.body.data);
  });

  it('analytics over the cit groups, index traders included', async () => {
    const res = await get(`${BASE}?format=cit&include=changes,pct_of_oi,cot_index&index_weeks=26&per_page=1`);
    const [r] = res.body.data as Report[];
    // seeds 75 → 76 (fixtures.cotDoc): long +1000, short +700 in every group, open interest +5000
    expect(r!.changes).toEqual({
      open_interest: 5000,
      commercial: { long: 1000, short: 700, net: 300 },
      non_commercial: { long: 1000, short: 700, spreading: 0, net: 300 },
      index_traders: { long: 1000, short: 700, net: 300 },
      non_reportable: { long: 1000, short: 700, net: 300 },
    });
    expect(Object.keys(r!.pct_of_oi as object)).toEqual([
      'commercial',
      'non_commercial',
      'index_traders',
      'non_reportable',
    ]);
    expect(r!.cot_index).toEqual({ commercial: 100, non_commercial: 100, index_traders: 100, non_reportable: 100 });
  });

  it('CSV of cit: the scope column and the index_traders columns, named for the cit dataset', async () => {
    const res = await get(`${BASE}?format=cit&include=changes&per_page=2`, { accept: 'text/csv' });
    const [header, first] = res.raw.trim().split('\r\n');
    expect(header).toBe(csvHeader(cotCsvColumns({ format: 'cit', include: ['changes'] })));
    expect(header).toContain('format,scope,exchange');
    expect(header).toContain('index_traders_long,index_traders_short,index_traders_net');
    expect(header).toContain('changes_index_traders_net');
    expect(first!.startsWith('2025-06-10,CORN,cit,futures_and_options,')).toBe(true);
    expect(String(res.headers['content-disposition'])).toContain('CORN-cot-cit.csv');
  });

  it('a commodity outside the supplement is the documented 404 naming format; cit with futures_only is a 400 naming scope', async () => {
    const gold = await get('/api/v1/commodities/GOLD/cot?format=cit');
    expect(gold.status).toBe(404);
    expect(gold.body.error).toMatchObject({ code: 'not_found', param: 'format' });
    expect(gold.body.error.message).toBe(
      "Commodity 'GOLD' has no CIT supplement reports: the supplement covers 13 agricultural markets " +
        '(see available_series: cot_cit).',
    );
    const futuresOnly = await get(`${BASE}?format=cit&scope=futures_only`);
    expect(futuresOnly.status).toBe(400);
    expect(futuresOnly.body.error).toMatchObject({ code: 'invalid_parameter', param: 'scope' });
    expect(futuresOnly.body.error.message).toContain('futures and options combined only');
  });

  it('the response cache keeps datasets apart', async () => {
    // Each asked twice: the second from the cache, the answers never crossed.
    for (let i = 0; i < 2; i++) {
      expect((await get(`${BASE}?per_page=1`)).body.data[0]).toMatchObject({ scope: 'futures_only' });
      expect((await get(`${BASE}?scope=futures_and_options&per_page=1`)).body.data[0]).toMatchObject({
        scope: 'futures_and_options',
        format: 'legacy',
      });
      expect((await get(`${BASE}?format=cit&per_page=1`)).body.data[0]).toMatchObject({ format: 'cit' });
    }
  });
});
