// Point in time (issue #25) through the real pipeline: two real Pink Sheet vintages ("Updated on
// November 04, 2025" and "December 02, 2025", which revised 2025M10 SOYBEAN_OIL 1135.81 →
// 1132.14834869565) loaded newest first, and the CFTC's real legacy annual file of early 2025
// (released Fridays 15:30 New York time) -> ingest CLI -> NATS -> projector -> FerretDB -> query
// -> gateway. `as_of` must answer exactly what had been published at the instant, never today's data.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
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

// The bundled snapshot's own rows, cut to what the estimate cases read: WTI's daily spot prices of
// 2024 and 2025 (EIA states no release time: loaded, they are stamped with the snapshot's build,
// estimated) and CORN's legacy COT reports of 2025 (stamped by the CFTC calendar when read).
const SNAPSHOT = join(REPO_ROOT, 'data', 'snapshot');
let snapshotDir: string | undefined;

/** A snapshot of the bundled one's rows that `keep` selects, with a manifest of its own (same build time). */
function cutSnapshot(keep: { series: (row: string) => boolean; legacy: (row: string) => boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), 'pit-e2e-snapshot-'));
  const manifest = JSON.parse(readFileSync(join(SNAPSHOT, 'manifest.json'), 'utf8')) as { built_at: string };
  const files: Record<string, { sha256: string; bytes: number; rows: number }> = {};
  for (const [name, select] of [
    ['series.csv.gz', keep.series],
    ['cot-legacy.csv.gz', keep.legacy],
  ] as const) {
    const [header, ...rows] = gunzipSync(readFileSync(join(SNAPSHOT, name)))
      .toString('utf8')
      .trimEnd()
      .split('\n');
    const kept = rows.filter(select);
    const bytes = gzipSync(`${[header, ...kept].join('\n')}\n`);
    writeFileSync(join(dir, name), bytes);
    files[name] = { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, rows: kept.length };
  }
  const cut = { format: 4, built_at: manifest.built_at, built_from: 'files', files, sources: [] };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(cut));
  return dir;
}

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
  snapshotDir = cutSnapshot({
    series: (row) => /^CRUDE_OIL_WTI,price,daily,[^,]*,eia:RWTC,[^,]*,202[45]-/.test(row),
    legacy: (row) => /^CORN,[^,]*,2025-/.test(row),
  });
  const load = await e2e.ingest(['backfill', '--snapshot', snapshotDir, '--quiet']);
  expect(load.code, load.stderr + load.stdout).toBe(0);
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
  if (snapshotDir !== undefined) rmSync(snapshotDir, { recursive: true, force: true });
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

describe('a history loaded long after its release (the snapshot): as of the days it was out', () => {
  const WTI = '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price';

  it('WTI as of 2025-03-07: the prices up to the week the Weekly Petroleum Status Report of Wednesday 2025-03-05 carried', async () => {
    const res = await e2e.get(`${WTI}&start_date=2025-01-01&as_of=2025-03-07`, { key });
    expect(res.status, res.text).toBe(200);
    const newest = (res.json.data as Point[]).at(-1)!;
    // the report of Wednesday 2025-03-05 carries the week ending Friday 2025-02-28; the next one, 2025-03-12
    expect(newest.date <= '2025-02-28', newest.date).toBe(true);
    expect(newest.date >= '2025-02-24', newest.date).toBe(true);
    expect(newest.published_at_estimated).toBe(true);
    expect(newest.published_at! <= '2025-03-07T23:59:59.999Z', newest.published_at).toBe(true);
    expect(newest.published_at! > `${newest.date}T23:59:59.999Z`, newest.published_at).toBe(true);
    // the load itself was much later: first seen then
    expect(newest.first_seen_at! > '2026-01-01', newest.first_seen_at).toBe(true);
    // the current view serves the same publication (one published_at per observation)
    const now = await e2e.get(`${WTI}&start_date=${newest.date}&end_date=${newest.date}`, { key });
    expect((now.json.data as Point[])[0]).toEqual(newest);
  });

  it('WTI without as_of: each 2025 price with the published_at and first_seen_at as_of=2025-12-31 serves it', async () => {
    const now = await e2e.get(`${WTI}&start_date=2025-01-01&end_date=2025-12-31`, { key });
    const then = await e2e.get(`${WTI}&start_date=2025-01-01&end_date=2025-12-31&as_of=2025-12-31`, { key });
    expect(now.status, now.text).toBe(200);
    expect(then.status, then.text).toBe(200);
    const asOf = new Map((then.json.data as Point[]).map((p) => [p.date, p]));
    expect(asOf.size).toBeGreaterThan(240);
    const current = now.json.data as Point[];
    // the last week of December was carried by a report of January 2026: not out as of 2025-12-31
    for (const p of current.filter((x) => asOf.has(x.date))) expect(p, p.date).toEqual(asOf.get(p.date));
    expect(current.filter((p) => !asOf.has(p.date)).every((p) => p.date >= '2025-12-20')).toBe(true);
    // a 2025 price says 2025, not the load's 2026
    expect(current[0]!.published_at! < '2025-01-15', current[0]!.published_at).toBe(true);
    expect(current[0]!.published_at_estimated).toBe(true);
  });

  it("GET /commodities/CRUDE_OIL_WTI: the price series' first_published_at is the instant the as_of 400 names", async () => {
    const detail = await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI', { key });
    expect(detail.status, detail.text).toBe(200);
    const price = (detail.json.data.available_series as { type: string; first_published_at?: string }[]).find(
      (s) => s.type === 'price',
    )!;
    // the first estimated release of January 2024, not the load
    expect(price.first_published_at! < '2024-01-31', price.first_published_at).toBe(true);
    const before = new Date(Date.parse(price.first_published_at!) - 1).toISOString();
    const refused = await e2e.get(`${WTI}&start_date=2024-01-01&as_of=${before}`, { key });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.error.message).toContain(`no point-in-time data before ${price.first_published_at} `);
    const at = await e2e.get(`${WTI}&start_date=2024-01-01&as_of=${price.first_published_at}`, { key });
    expect(at.status, at.text).toBe(200);
    expect((at.json.data as Point[]).length).toBeGreaterThan(0);
  });

  it('first_release works over 2024: every price at its estimated release, days after its date; before the first, a 400', async () => {
    const res = await e2e.get(`${WTI}&start_date=2024-01-01&end_date=2024-12-31&first_release=true`, { key });
    expect(res.status, res.text).toBe(200);
    const points = res.json.data as Point[];
    expect(points.length).toBeGreaterThan(240);
    for (const p of points) {
      expect(p.published_at_estimated, p.date).toBe(true);
      const lag = Date.parse(p.published_at!) - Date.parse(`${p.date}T00:00:00Z`);
      expect(lag, `${p.date} ${p.published_at}`).toBeGreaterThan(0);
      expect(lag, `${p.date} ${p.published_at}`).toBeLessThan(16 * 86_400_000);
    }
    const early = await e2e.get(`${WTI}&start_date=2024-01-01&as_of=2024-01-03`, { key });
    expect(early.status, early.text).toBe(400);
    expect(early.json.error.param).toBe('as_of');
    // named: the first estimated release (January 2024), not the load
    expect(early.json.error.message).toMatch(/no point-in-time data before 2024-01-/);
  });

  it('a snapshot-loaded COT report is readable as of its Friday 15:30 New York release', async () => {
    const COT_CORN = '/api/v1/commodities/CORN/cot?format=legacy&start_date=2025-01-01&end_date=2025-12-31';
    const before = await e2e.get(`${COT_CORN}&as_of=2025-03-07T20:29:00Z`, { key });
    expect(before.status, before.text).toBe(200);
    expect((before.json.data as Report[])[0]!.report_date).toBe('2025-02-25');
    const after = await e2e.get(`${COT_CORN}&as_of=2025-03-07T20:31:00Z`, { key });
    expect((after.json.data as Report[])[0]).toMatchObject({
      report_date: '2025-03-04',
      published_at: '2025-03-07T20:30:00.000Z',
      published_at_estimated: true,
    });
  });
});
