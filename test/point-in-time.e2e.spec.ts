// Point in time (issue #25) through the real pipeline: two real Pink Sheet vintages ("Updated on
// November 04, 2025" and "December 02, 2025", which revised 2025M10 SOYBEAN_OIL 1135.81 →
// 1132.14834869565) loaded newest first, and the CFTC's real legacy annual file of early 2025
// (released Fridays 15:30 New York time) -> ingest CLI -> NATS -> projector -> FerretDB -> query
// -> gateway. `as_of` must answer exactly what had been published at the instant, never today's data.
import { join } from 'node:path';
import { connectMessaging } from '@cds/messaging';
import { REPO_ROOT } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from './support/harness.ts';
import { waitForProjections } from './support/projections.ts';

const REAL = '/work/shared/fixtures/real';
const FIXTURES = join(REPO_ROOT, 'services', 'ingest', 'test', 'fixtures');
const NOVEMBER = join(FIXTURES, 'worldbank_pink_sheet_2025-11_excerpt.xlsx');
const DECEMBER = join(FIXTURES, 'worldbank_pink_sheet_2025-12_excerpt.xlsx');
const NOV_AT = '2025-11-04T00:00:00.000Z';
const DEC_AT = '2025-12-02T00:00:00.000Z';
const OCT = '2025-10-31';
const SOY = '/api/v1/commodities/SOYBEAN_OIL/series?type=price&start_date=2025-01-01&end_date=2025-12-31';
const COT = '/api/v1/commodities/GOLD/cot?format=legacy&start_date=2025-01-01&end_date=2025-12-31';

interface Point {
  date: string;
  value: number;
  published_at?: string;
  first_seen_at?: string;
  published_at_estimated?: boolean;
  revisions?: { value: number; published_at: string; first_seen_at: string }[];
}
interface Report {
  report_date: string;
  published_at?: string;
  published_at_estimated?: boolean;
}

let e2e: E2E;
let key: string;
let freeKey: string;

const pointOn = (body: { data: Point[] }, date: string) => body.data.find((p) => p.date === date);

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  // the newer vintage first: loading the older one after it must not bring old values back
  for (const [source, file] of [
    ['worldbank', DECEMBER],
    ['worldbank', NOVEMBER],
    ['cftc-legacy', join(REAL, 'cftc_legacy_fut_annual_2025_excerpt.txt')],
  ] as const) {
    const run = await e2e.ingest(['backfill', '--source', source, '--file', file, '--quiet']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
  }
  const messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'pit-e2e' });
  try {
    await waitForProjections(messaging, 120_000);
  } finally {
    await messaging.close();
  }
  key = (await e2e.account('enterprise')).key;
  freeKey = (await e2e.account('free')).key;
}, 300_000);

afterAll(async () => {
  await e2e?.stop();
});

describe('series: every revision kept, as_of answers what was published then', () => {
  it('current: the newest vintage wins whatever the load order; each point says when it was first published', async () => {
    const res = await e2e.get(SOY, { key });
    expect(res.status).toBe(200);
    const oct = pointOn(res.json, OCT)!;
    expect(oct).toMatchObject({ value: 1132.14834869565, published_at: DEC_AT });
    expect(oct.published_at_estimated).toBeUndefined();
    expect(Date.parse(oct.first_seen_at!)).toBeGreaterThan(Date.parse(DEC_AT));
    // both vintages carry January with the same value: it was first published in November
    expect(pointOn(res.json, '2025-01-31')).toMatchObject({ published_at: NOV_AT });
    // November only exists in the December vintage
    expect(pointOn(res.json, '2025-11-30')).toMatchObject({ published_at: DEC_AT });
    expect(res.json.meta.as_of).toBeUndefined();
  });

  it('as_of between the vintages gives the older value and nothing published later; after it, the newer', async () => {
    for (const asOf of ['2025-11-20', '2025-12-01T23:59:59Z']) {
      const res = await e2e.get(`${SOY}&as_of=${encodeURIComponent(asOf)}`, { key });
      expect(res.status, res.text).toBe(200);
      expect(pointOn(res.json, OCT)).toMatchObject({ value: 1135.81, published_at: NOV_AT });
      expect(res.json.data.at(-1).date).toBe(OCT);
      expect(pointOn(res.json, '2025-11-30')).toBeUndefined();
    }
    const dated = await e2e.get(`${SOY}&as_of=2025-11-20`, { key });
    // a date means the end of that day (UTC)
    expect(dated.json.meta.as_of).toBe('2025-11-20T23:59:59.999Z');
    const after = await e2e.get(`${SOY}&as_of=2025-12-02`, { key });
    expect(pointOn(after.json, OCT)).toMatchObject({ value: 1132.14834869565, published_at: DEC_AT });
    expect(pointOn(after.json, '2025-11-30')).toBeDefined();
  });

  it('first_release=true gives the first published version; include=revisions lists the earlier ones', async () => {
    const first = await e2e.get(`${SOY}&first_release=true`, { key });
    expect(first.status, first.text).toBe(200);
    expect(pointOn(first.json, OCT)).toMatchObject({ value: 1135.81, published_at: NOV_AT });
    const history = await e2e.get(`${SOY}&include=revisions`, { key });
    expect(history.status, history.text).toBe(200);
    const oct = pointOn(history.json, OCT)!;
    expect(oct.value).toBe(1132.14834869565);
    expect(oct.revisions).toEqual([expect.objectContaining({ value: 1135.81, published_at: NOV_AT })]);
    // an unrevised point has no earlier version
    expect(pointOn(history.json, '2025-01-31')!.revisions ?? []).toEqual([]);
    // as of November, the December revision did not exist yet
    const then = await e2e.get(`${SOY}&include=revisions&as_of=2025-11-20`, { key });
    expect(pointOn(then.json, OCT)!.revisions ?? []).toEqual([]);
  });

  it('transforms and CSV work on the as_of view', async () => {
    const current = await e2e.get(`${SOY}&transform=change`, { key });
    const then = await e2e.get(`${SOY}&transform=change&as_of=2025-11-20`, { key });
    expect(then.status, then.text).toBe(200);
    const sep = pointOn(current.json, '2025-09-30')!;
    expect(sep).toBeDefined();
    const level = await e2e.get(`${SOY}&as_of=2025-11-20`, { key });
    const sepLevel = pointOn(level.json, '2025-09-30')!.value;
    expect(pointOn(then.json, OCT)!.value).toBeCloseTo(1135.81 - sepLevel, 6);
    expect(pointOn(current.json, OCT)!.value).toBeCloseTo(1132.14834869565 - sepLevel, 6);
    const csv = await e2e.get(`${SOY}&as_of=2025-11-20`, { key, headers: { accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(csv.text).toContain(`${OCT},1135.81`);
    expect(csv.text).not.toContain('1132.148');
  });

  it('ETags differ per as_of; an answer as of a past instant may be cached for long', async () => {
    const a = await e2e.get(`${SOY}&as_of=2025-11-20`, { key });
    const b = await e2e.get(`${SOY}&as_of=2025-12-02`, { key });
    const now = await e2e.get(SOY, { key });
    expect(new Set([a.headers.get('etag'), b.headers.get('etag'), now.headers.get('etag')]).size).toBe(3);
    const maxAge = (h: Headers) => Number(/max-age=(\d+)/.exec(h.get('cache-control') ?? '')?.[1] ?? 0);
    expect(maxAge(a.headers)).toBeGreaterThan(maxAge(now.headers));
    expect(maxAge(a.headers)).toBeGreaterThanOrEqual(86_400);
    const again = await e2e.get(`${SOY}&as_of=2025-11-20`, {
      key,
      headers: { 'if-none-match': a.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('a malformed, future or too early as_of is a 400 naming as_of, never today’s data', async () => {
    const future = new Date(Date.now() + 86_400_000 * 2).toISOString().slice(0, 10);
    for (const asOf of ['2025-13-01', 'yesterday', '2025-11-20T25:00:00Z', future, '2025-11-03']) {
      const res = await e2e.get(`${SOY}&as_of=${encodeURIComponent(asOf)}`, { key });
      expect(res.status, `${asOf}: ${res.text}`).toBe(400);
      expect(res.json.error.param, asOf).toBe('as_of');
    }
    const bad = await e2e.get(`${SOY}&include=revisions&transform=change`, { key });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('include');
  });

  it('Free keys get as_of within their 12-month history window only', async () => {
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const recent = SOY.replace('start_date=2025-01-01&end_date=2025-12-31', `start_date=${day(300)}`);
    const outside = await e2e.get(`${recent}&as_of=${day(400)}`, { key: freeKey });
    expect(outside.status, outside.text).toBe(403);
    const within = await e2e.get(`${recent}&as_of=${day(1)}`, { key: freeKey });
    expect(within.status, within.text).toBe(200);
    expect(within.json.meta.as_of).toBe(`${day(1)}T23:59:59.999Z`);
  });
});

describe('COT: a report exists from its Friday 15:30 New York release', () => {
  it('as_of one minute before the release of 2025-01-28 has 2025-01-21 as the newest report; one minute after, 2025-01-28', async () => {
    const before = await e2e.get(`${COT}&as_of=2025-01-31T20:29:00Z`, { key });
    expect(before.status, before.text).toBe(200);
    expect((before.json.data as Report[])[0]!.report_date).toBe('2025-01-21');
    const after = await e2e.get(`${COT}&as_of=2025-01-31T20:31:00Z`, { key });
    const newest = (after.json.data as Report[])[0]!;
    expect(newest).toMatchObject({
      report_date: '2025-01-28',
      published_at: '2025-01-31T20:30:00.000Z',
      published_at_estimated: true,
    });
    // paging counts the view's reports
    expect(after.json.meta.total - before.json.meta.total).toBe(1);
    expect(before.json.meta.as_of).toBe('2025-01-31T20:29:00.000Z');
  });

  it('analytics work on the view: changes of the newest report as of then', async () => {
    const res = await e2e.get(`${COT}&as_of=2025-01-31T20:29:00Z&include=changes`, { key });
    expect(res.status, res.text).toBe(200);
    const newest = res.json.data[0];
    expect(newest.report_date).toBe('2025-01-21');
    expect(newest.changes).toBeDefined();
  });
});
