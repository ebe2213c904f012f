// CSV output and conditional requests (issue #13, last part) through the real system: events on
// NATS JetStream -> projector -> FerretDB -> query -> gateway. CSV answers, parsed by a real CSV
// parser (csv-parse), must equal the JSON answers value for value for the parameter combinations
// the conformance tests use; a 10,000-point series must stream; ETags and Last-Modified must give
// 304s that do not count against the rate windows (headers and the usage count in Redis), change
// exactly when the answer changes, and Cache-Control's max-age must not outlive the next release.
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RateHash, UsageHash, rateHashKey, subjectFor, usageByDay, usageHashKey, type DataEvent } from '@cds/contracts';
import { CATALOG, createPublisher, getCommodity, runIngest } from '@cds/ingest';
import { parseCftcCotCsv } from '@cds/ingest/sources/cftc';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { createRedis, type Redis } from '@cds/redis';
import { maxAgeSeconds, maxAgeSecondsOf } from '@cds/schedule';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectionsCaughtUp } from './support/projections.ts';
import { eventually, FIXTURES, startE2E, type ApiResponse, type E2E } from './support/harness.ts';
import { withoutPublication } from './support/publication.ts';

let e2e: E2E;
let messaging: Messaging;
let redis: Redis;
let key: string;
let accountId: string;

const API = '/api/v1/commodities';
const LONG_POINTS = 10_000;
const LONG_START = '1990-01-01';
const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const LONG_END = addDays(LONG_START, LONG_POINTS - 1);

let n = 0;
function event<T extends DataEvent['type']>(
  type: T,
  data: Extract<DataEvent, { type: T }>['data'],
  occurredAt = new Date().toISOString(),
): DataEvent {
  n += 1;
  return { id: `csv-cond-${n}`, type, version: 1, occurred_at: occurredAt, source: 'e2e', data } as DataEvent;
}

function series(
  commodity: string,
  type: 'price' | 'volume' | 'stocks',
  frequency: 'daily' | 'weekly',
  period: string,
  points: object[],
  occurredAt?: string,
) {
  return event(
    'series.points.recorded',
    {
      commodity_id: commodity,
      series_type: type,
      frequency,
      unit: type === 'price' ? 'USD/troy oz' : 'contracts',
      period,
      points: points as never,
    },
    occurredAt,
  );
}

/** Weekday prices from 2023-12-29 to 2024-02-29, with open/high/low/close/volume (decimals included). */
const PRICES = Array.from({ length: 63 }, (_, i) => addDays('2023-12-29', i))
  .filter((date) => ![0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay()))
  .map((date, i) => {
    const close = Math.round((100 + 7 * Math.sin(i / 3) + i / 7) * 100) / 100;
    return {
      date,
      value: close,
      open: close - 0.25,
      high: close + 1.5,
      low: close - 1.75,
      close,
      volume: 1000 + 37 * i,
    };
  });
const GOLD_2024 = series(
  'GOLD',
  'price',
  'daily',
  '2024',
  PRICES.filter((p) => p.date >= '2024'),
);

const COT_FILES = {
  legacy: 'cftc_legacy_fut_annual_2025_excerpt.txt',
  disaggregated: 'cftc_disagg_fut_f_year_2021_excerpt.txt',
} as const;
const COT_COMMODITIES = ['WHEAT_SRW', 'CORN', 'SOYBEANS', 'NATURAL_GAS', 'CRUDE_OIL_WTI', 'GOLD'] as const;

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'csv-conditional-e2e' });
  redis = createRedis({ url: e2e.infra.redisUrl, name: 'csv-conditional-e2e' });
  ({ key, accountId } = await e2e.account('enterprise'));

  const events: DataEvent[] = [
    event('catalog.commodity.upserted', { id: 'GOLD', name: 'Gold', category: 'metals', unit: 'USD/troy oz' }),
    event('catalog.commodity.upserted', { id: 'SILVER', name: 'Silver, "fine"', symbol: 'SI', category: 'metals' }),
    series(
      'GOLD',
      'price',
      'daily',
      '2023',
      PRICES.filter((p) => p.date < '2024'),
    ),
    GOLD_2024,
    series(
      'GOLD',
      'volume',
      'daily',
      '2024',
      PRICES.filter((p) => p.date >= '2024').map((p) => ({ date: p.date, value: p.volume })),
    ),
    series('GOLD', 'stocks', 'weekly', '2024', [
      { date: '2024-01-05', value: 0 },
      { date: '2024-01-12', value: 5 },
      { date: '2024-01-19', value: 10 },
    ]),
  ];
  // SILVER: 10,000 consecutive daily prices, one event per year.
  const byYear = new Map<string, object[]>();
  for (let i = 0; i < LONG_POINTS; i++) {
    const date = addDays(LONG_START, i);
    const year = date.slice(0, 4);
    const c = Math.round((20 + Math.sin(i / 50) * 5 + i / 1000) * 1000) / 1000;
    byYear.set(year, [
      ...(byYear.get(year) ?? []),
      { date, value: c, open: c, high: c + 0.5, low: c - 0.5, close: c, volume: i },
    ]);
  }
  for (const [year, points] of byYear) events.push(series('SILVER', 'price', 'daily', year, points));
  for (const e of events) await messaging.publish(subjectFor(e), e, { msgID: e.id });

  const publisher = createPublisher({ js: messaging.js });
  const catalog = COT_COMMODITIES.map((id) => getCommodity(id)!.entry);
  for (const format of ['legacy', 'disaggregated'] as const) {
    const file = COT_FILES[format];
    await runIngest({
      items: parseCftcCotCsv([readFileSync(join(FIXTURES, file))], { catalog: CATALOG, file, format }),
      publisher,
      catalog,
      source: `cftc-${format}:annual`,
    });
  }
  await eventually(
    'everything projected',
    async () => {
      const long = await e2e.get(`${API}/SILVER/series?type=price&start_date=${LONG_START}&end_date=${LONG_END}`, {
        key,
        validate: false,
      });
      const corn = await e2e.get(`${API}/CORN/cot?format=disaggregated`, { key, validate: false });
      const gold = await e2e.get(`${API}/GOLD/series?type=stocks&start_date=2024-01-01&end_date=2024-12-31`, {
        key,
        validate: false,
      });
      return long.json?.meta?.count === LONG_POINTS && corn.json?.meta?.total === 5 && gold.json?.meta?.count === 3;
    },
    180_000,
  );
}, 300_000);

afterAll(async () => {
  redis?.disconnect();
  await messaging?.close();
  await e2e?.stop();
}, 60_000);

const csvOf = (path: string, headers: Record<string, string> = {}) =>
  e2e.get(path, { key, headers: { accept: 'text/csv', ...headers } });

/** The leaves of a JSON item, their paths joined with `_` (the test's own flattening, not the product's). */
function flatten(value: unknown, prefix: string, out: Map<string, unknown>): Map<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix === '' ? k : `${prefix}_${k}`, out);
  } else out.set(prefix, value);
  return out;
}

/** CSV rows (parsed by csv-parse) equal the JSON items value for value, and every JSON leaf has a column. */
function expectSameValues(path: string, json: ApiResponse, csv: ApiResponse): void {
  expect(csv.status, `${path}: ${csv.text.slice(0, 200)}`).toBe(200);
  expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
  const records: string[][] = parse(csv.text, { relax_column_count: false });
  const [header, ...rows] = records;
  const items = (Array.isArray(json.json.data) ? json.json.data : [json.json.data]) as unknown[];
  expect(rows.length, path).toBe(items.length);
  for (const [i, item] of items.entries()) {
    // the publication fields are JSON only (docs/point-in-time.md), and so is a futures-only
    // report's scope (docs/decisions.md "COT in full"): the CSV keeps its columns
    const { scope, ...unscoped } = withoutPublication(item as Record<string, unknown>);
    const leaves = flatten(
      scope === undefined || scope === 'futures_only' ? unscoped : { scope, ...unscoped },
      '',
      new Map(),
    );
    for (const name of leaves.keys()) expect(header, `${path}: column ${name}`).toContain(name);
    for (const [c, name] of header!.entries()) {
      const expected = leaves.get(name);
      const cell = rows[i]![c]!;
      if (expected === undefined || expected === null) expect(cell, `${path} row ${i} ${name}`).toBe('');
      else if (typeof expected === 'number') expect(Number(cell), `${path} row ${i} ${name}`).toBe(expected);
      else
        expect(cell, `${path} row ${i} ${name}`).toBe(
          typeof expected === 'string' ? expected : JSON.stringify(expected),
        );
    }
  }
}

const RANGE = 'start_date=2024-01-01&end_date=2024-02-29';
const DAYS = 'start_date=2024-01-01&end_date=2024-01-10';
/** The parameter combinations of read-side.e2e.spec.ts and cot-analytics.e2e.spec.ts, plus paging and sorting. */
const COMBINATIONS = [
  API,
  `${API}?category=metals`,
  `${API}?search=go`,
  `${API}?sort_order=desc&per_page=2&page=2`,
  `${API}?page=50&per_page=100`,
  `${API}/GOLD/series?type=price&${RANGE}`,
  `${API}/GOLD/series?type=price&frequency=weekly&${RANGE}`,
  `${API}/GOLD/series?type=price&frequency=monthly&${RANGE}`,
  `${API}/GOLD/series?type=volume&frequency=weekly&${RANGE}`,
  `${API}/GOLD/series?type=stocks&frequency=monthly&${RANGE}`,
  `${API}/GOLD/series?type=price&transform=change&${DAYS}`,
  `${API}/GOLD/series?type=price&transform=pct_change&${DAYS}`,
  `${API}/GOLD/series?type=price&transform=cumulative&${DAYS}`,
  `${API}/GOLD/series?type=price&frequency=weekly&transform=change&${RANGE}`,
  `${API}/GOLD/series?type=stocks&transform=pct_change&start_date=2024-01-01&end_date=2024-01-31`,
  `${API}/GOLD/series?type=price&sort_order=desc&limit=3&${RANGE}`,
  `${API}/GOLD/series?type=price&start_date=2010-01-01&end_date=2010-12-31`,
  `${API}/CORN/cot?format=legacy`,
  `${API}/CORN/cot?format=disaggregated`,
  `${API}/WHEAT_SRW/cot?format=disaggregated&include=changes,pct_of_oi,cot_index&index_weeks=26`,
  `${API}/CRUDE_OIL_WTI/cot?format=legacy&include=changes,pct_of_oi&sort_order=asc&per_page=2&page=2`,
  `${API}/GOLD/cot?format=legacy&include=cot_index&index_weeks=26&start_date=2025-01-01&end_date=2025-12-31`,
];

describe('CSV (Accept: text/csv)', () => {
  it('equals the JSON answer value for value for every parameter combination', async () => {
    for (const path of COMBINATIONS) {
      const json = await e2e.get(path, { key });
      expect(json.status, `${path}: ${json.text.slice(0, 200)}`).toBe(200);
      expectSameValues(path, json, await csvOf(path));
    }
  });

  it('names the file after what it holds and quotes a field holding a quote or comma', async () => {
    const series = await csvOf(`${API}/GOLD/series?type=price&frequency=weekly&transform=change&${RANGE}`);
    expect(series.headers.get('content-disposition')).toBe(
      'attachment; filename="GOLD-series-price-weekly-change-2024-01-01_2024-02-29.csv"',
    );
    const list = await csvOf(`${API}?category=metals`);
    expect(list.headers.get('content-disposition')).toBe('attachment; filename="commodities-metals.csv"');
    expect(list.text.split('\r\n')[0]).toBe('id,name,symbol,category,exchange,unit');
    expect(list.text).toContain('SILVER,"Silver, ""fine""",SI,metals,,\r\n');
    const cot = await csvOf(`${API}/CORN/cot?format=legacy&page=2&per_page=2`);
    expect(cot.headers.get('content-disposition')).toBe('attachment; filename="CORN-cot-legacy-page-2.csv"');
  });

  it('streams a 10,000-point series: chunked, arriving in pieces before it is whole', async () => {
    const url = new URL(
      `${API}/SILVER/series?type=price&start_date=${LONG_START}&end_date=${LONG_END}`,
      e2e.gatewayUrl(),
    );
    const got = await new Promise<{ headers: Record<string, unknown>; chunks: number[]; text: string }>(
      (resolve, reject) => {
        const req = httpRequest(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/csv' } }, (res) => {
          const chunks: number[] = [];
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => {
            chunks.push(c.length);
            parts.push(c);
          });
          res.on('end', () => resolve({ headers: res.headers, chunks, text: Buffer.concat(parts).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      },
    );
    expect(got.headers['transfer-encoding']).toBe('chunked');
    expect(got.headers['content-length']).toBeUndefined();
    const total = got.chunks.reduce((a, b) => a + b, 0);
    // Received in many pieces: the first is a small part of the whole (the header row, or a chunk of rows).
    expect(got.chunks.length).toBeGreaterThan(10);
    expect(got.chunks[0]!).toBeLessThan(total / 10);
    const rows = parse<Record<string, string>>(got.text, { columns: true });
    expect(rows).toHaveLength(LONG_POINTS);
    expect(rows[0]!.date).toBe(LONG_START);
    expect(rows[LONG_POINTS - 1]!.date).toBe(LONG_END);
    // The same values as the JSON answer.
    const json = await e2e.get(url.pathname + url.search, { key });
    expect(rows.map((r) => Number(r.value))).toEqual(json.json.data.map((p: { value: number }) => p.value));
  });

  it('answers 406 in the error shape for an Accept it cannot serve; errors stay JSON with Accept: text/csv', async () => {
    for (const path of [API, `${API}/GOLD`, `${API}/GOLD/series?type=price`, `${API}/CORN/cot`]) {
      const png = await e2e.get(path, { key, headers: { accept: 'image/png' } });
      expect(png.status, path).toBe(406);
      expect(png.headers.get('content-type')).toMatch(/^application\/json/);
      expect(png.json.error.code).toBe('not_acceptable');
      expect(png.headers.get('cache-control')).toBe('no-store');
      expect(png.headers.get('x-ratelimit-remaining')).not.toBeNull();
    }
    // The detail endpoint is JSON only.
    expect((await csvOf(`${API}/GOLD`)).status).toBe(406);
    expect((await csvOf(`${API}/GOLD`, { accept: 'text/csv;q=1, application/json;q=0.5' })).status).toBe(200);
    for (const [path, status, code] of [
      [`${API}/NOPE/series?type=price`, 404, 'not_found'],
      [`${API}/GOLD/series?type=nope`, 400, 'invalid_parameter'],
      [`${API}/GOLD/cot?format=nope`, 400, 'invalid_parameter'],
    ] as const) {
      const res = await csvOf(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json.error.code).toBe(code);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });
});

/** The account's admitted requests today, as the rate script counts them in Redis (read as the dashboard reads them). */
async function usageToday(): Promise<number> {
  const day = Math.floor(Date.now() / 86_400_000);
  const rate = RateHash.parse(await redis.hgetall(rateHashKey('cds:rl:', accountId)));
  const usage = UsageHash.parse(await redis.hgetall(usageHashKey('cds:usage:', accountId)));
  return usageByDay(rate, usage.days).get(day) ?? 0;
}

describe('conditional requests', () => {
  const SERIES = `${API}/GOLD/series?type=price&${RANGE}`;

  it('a matching ETag gets 304 without a body and with the rate headers, and does not count', async () => {
    for (const accept of ['application/json', 'text/csv']) {
      // Within one minute window, so X-RateLimit-Remaining (the minute's) is comparable.
      for (let attempt = 0; ; attempt++) {
        const first = await e2e.get(SERIES, { key, headers: { accept } });
        const etag = first.headers.get('etag')!;
        expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
        const usage = await usageToday();
        // Twice: the first may be a proxied 304, the second a gateway cache hit (JSON).
        const again = await e2e.get(SERIES, { key, headers: { accept, 'if-none-match': etag } });
        const third = await e2e.get(SERIES, { key, headers: { accept, 'if-none-match': etag } });
        const after = await e2e.get(SERIES, { key, headers: { accept } });
        for (const res of [again, third]) {
          expect(res.status).toBe(304);
          expect(res.text).toBe('');
          expect(res.headers.get('etag')).toBe(etag);
          expect(res.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
          expect(res.headers.get('vary')).toBe('Accept');
          expect(res.headers.get('x-request-id')).not.toBeNull();
          expect(res.headers.get('ratelimit-policy')).not.toBeNull();
        }
        const resets = [first, again, third, after].map((r) => r.headers.get('x-ratelimit-reset'));
        if (new Set(resets).size > 1 && attempt < 3) continue; // a minute boundary fell in between
        const remaining = [first, again, third, after].map((r) => Number(r.headers.get('x-ratelimit-remaining')));
        expect(remaining, accept).toEqual([remaining[0], remaining[0], remaining[0], remaining[0]! - 1]);
        // The usage count in Redis: the two 304s were given back, the 200 after them counted.
        expect(await usageToday()).toBe(usage + 1);
        break;
      }
    }
  });

  it('JSON and CSV have different ETags; If-None-Match follows RFC 9110 (*, weak, lists, garbage); HEAD too', async () => {
    const json = await e2e.get(SERIES, { key });
    const csv = await csvOf(SERIES);
    const etag = json.headers.get('etag')!;
    expect(csv.headers.get('etag')).not.toBe(etag);
    const status = async (inm: string, accept = 'application/json') =>
      (await e2e.get(SERIES, { key, headers: { accept, 'if-none-match': inm } })).status;
    expect(await status('*')).toBe(304);
    expect(await status(`W/${etag}`)).toBe(304);
    expect(await status(`"nope", ${etag}`)).toBe(304);
    expect(await status('"nope"')).toBe(200);
    expect(await status('garbage')).toBe(200);
    expect(await status(etag.slice(1, -1))).toBe(200);
    expect(await status(etag, 'text/csv')).toBe(200); // the JSON tag is not the CSV form's
    expect(await status(csv.headers.get('etag')!, 'text/csv')).toBe(304);
    const head = await fetch(`${e2e.gatewayUrl()}${SERIES}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${key}`, 'if-none-match': etag },
    });
    expect(head.status).toBe(304);
  });

  it('If-Modified-Since: before Last-Modified 200, at or after it 304, garbage or future ignored', async () => {
    const json = await e2e.get(SERIES, { key });
    const lastModified = json.headers.get('last-modified')!;
    expect(lastModified).toMatch(/GMT$/);
    expect(Date.parse(lastModified)).toBe(Math.floor(Date.parse(json.json.meta.last_updated) / 1000) * 1000);
    const status = async (ims: string) =>
      (await e2e.get(SERIES, { key, headers: { 'if-modified-since': ims } })).status;
    expect(await status(lastModified)).toBe(304);
    expect(await status(new Date(Date.parse(lastModified) - 1000).toUTCString())).toBe(200);
    expect(await status('not a date')).toBe(200);
    expect(await status(new Date(Date.now() + 86_400_000).toUTCString())).toBe(200);
    // If-None-Match wins over If-Modified-Since.
    const both = await e2e.get(SERIES, { key, headers: { 'if-modified-since': lastModified, 'if-none-match': '"x"' } });
    expect(both.status).toBe(200);
  });

  it('Cache-Control max-age never outlives the next scheduled release of the data; errors are no-store', async () => {
    // Never more than the source's max-age now (a second of rounding); less by at most the gateway
    // cache's lifetime (10 s), as a kept answer's max-age counts down from when it arrived.
    const expectAge = (res: ApiResponse, expected: number) => {
      const m = /^private, max-age=(\d+)$/.exec(res.headers.get('cache-control') ?? '');
      expect(m, res.headers.get('cache-control') ?? '').not.toBeNull();
      expect(Number(m![1])).toBeLessThanOrEqual(expected + 1);
      expect(Number(m![1])).toBeGreaterThanOrEqual(expected - 12);
    };
    // Hand-made events (source e2e): no schedule, 60 s.
    expectAge(await e2e.get(SERIES, { key }), maxAgeSeconds('e2e', new Date()));
    const cot = await e2e.get(`${API}/CORN/cot?format=legacy`, { key });
    const source = cot.json.data[0].source as string;
    expect(source).toMatch(/^cftc:legacy:/);
    expectAge(cot, maxAgeSeconds(source, new Date()));
    expectAge(await csvOf(`${API}/CORN/cot?format=legacy`), maxAgeSeconds(source, new Date()));
    const detail = await e2e.get(`${API}/CORN`, { key });
    const sources = detail.json.data.available_series.map((s: { source?: string }) => s.source);
    expectAge(detail, maxAgeSecondsOf(sources, new Date()));
    expect((await e2e.get(`${API}/NOPE`, { key })).headers.get('cache-control')).toBe('no-store');
  });

  it('new data gives a new ETag and a 200; a re-projection that changes nothing keeps the ETag', async () => {
    const before = await e2e.get(SERIES, { key });
    const etag = before.headers.get('etag')!;
    // The same 2024 prices again, same ingest time, under a new event id: projected, nothing changes.
    const same = { ...GOLD_2024, id: 'csv-cond-same-again' } as DataEvent;
    await messaging.publish(subjectFor(same), same, { msgID: same.id });
    await eventually('the repeat projected', () => projectionsCaughtUp(messaging), 60_000);
    const unchanged = await e2e.get(SERIES, { key, headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    expect((await e2e.get(SERIES, { key })).headers.get('etag')).toBe(etag);

    const point = { date: '2024-02-03', value: 15.9, open: 15, high: 16, low: 14.9, close: 15.9, volume: 210 };
    const newer = series('GOLD', 'price', 'daily', '2024', [point]);
    await messaging.publish(subjectFor(newer), newer, { msgID: newer.id });
    await eventually('the new point served', async () => {
      const res = await e2e.get(SERIES, { key, headers: { 'if-none-match': etag } });
      return res.status === 200 && res.headers.get('etag') !== etag;
    });
    const after = await e2e.get(SERIES, { key });
    expect(after.json.data.map((p: { date: string }) => p.date)).toContain('2024-02-03');
    expect(Date.parse(after.headers.get('last-modified')!)).toBeGreaterThanOrEqual(
      Date.parse(before.headers.get('last-modified')!),
    );
  });
});
