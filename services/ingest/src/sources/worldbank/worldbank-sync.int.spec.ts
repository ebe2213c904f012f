import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { startNats, type NatsHandle } from '@cds/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ownFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { COMMODITIES } from '../registry.ts';
import { createKvLedger } from '../../publish/ledger.ts';
import { createHttpClient, SourceFetchError } from '../common/http.ts';
import { createPublisher } from '../../publish/publisher.ts';
import { ensureEventStreams } from '../../publish/streams.ts';
import { runSync, type SyncOptions } from '../../sync/run-sync.ts';
import { createKvSyncStore, type SyncStore } from '../../sync/state.ts';
import { createDataEventReader, type StoredDataEvent } from '../../../test/helpers/data-events.ts';

// Real NATS (libs/testkit) and a local HTTP server on 127.0.0.1 standing in for the publisher: the
// hand-written Commodity Markets page (real link format) and the real workbook excerpts.
const PAGE_PATH = '/en/research/commodity-markets';
const PAGE = readFileSync(ownFixturePath('worldbank_commodity_markets_page_handwritten.html'), 'utf8');
const NOV_2025 = readFileSync(ownFixturePath('worldbank_pink_sheet_2025-11_excerpt.xlsx'));
const DEC_2025 = readFileSync(ownFixturePath('worldbank_pink_sheet_2025-12_excerpt.xlsx'));
const RENAMED = readFileSync(ownFixturePath('worldbank_pink_sheet_2025-12_EDITED_renamed_code.xlsx'));

let server: Server;
let baseUrl = '';
const requests: string[] = [];
/** What the server answers now: the page (with its links pointed here) and the workbook. */
const site = { page: '', workbook: NOV_2025 };

let nats: NatsHandle;
let messaging: Messaging;
let store: SyncStore;

/** The data events stored since the last call (catalog entries left out); a new reader per test. */
let newEvents: () => Promise<StoredDataEvent[]>;

async function sync(over: Partial<SyncOptions> = {}) {
  const ledger = await createKvLedger(messaging.js, { replicas: 1 });
  return runSync({
    sources: ['worldbank'],
    publisher: () => createPublisher({ js: messaging.js, ledger }),
    store,
    catalogEntries: COMMODITIES.map((c) => c.entry),
    baseUrls: { worldbank: `${baseUrl}${PAGE_PATH}` },
    clock: () => new Date('2025-12-03T17:00:00Z'),
    http: { minIntervalMs: 0, baseDelayMs: 1, maxRetries: 1 },
    ...over,
  });
}

type Points = { date: string; value: number }[];
/** Every published point as `source date value`, sorted. */
const published = (events: { data: Record<string, unknown> }[]) =>
  events.flatMap((e) => (e.data.points as Points).map((p) => `${String(e.data.source)} ${p.date} ${p.value}`)).sort();

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === PAGE_PATH) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(site.page);
    } else if (req.url === '/big' || req.url === '/big-chunked') {
      // 3 MB, announced in Content-Length or sent in chunks without one
      res.writeHead(200, req.url === '/big' ? { 'content-length': String(3 * 1024 * 1024) } : {});
      for (let i = 0; i < 3; i++) res.write(Buffer.alloc(1024 * 1024, 120));
      res.end();
    } else if (req.url === '/moved/CMO-Historical-Data-Monthly.xlsx') {
      // a redirect off the publisher's origin (a compromised page, an open redirect)
      res.writeHead(302, { location: 'https://mirror.example/CMO-Historical-Data-Monthly.xlsx' });
      res.end();
    } else if (req.url?.endsWith('/related/CMO-Historical-Data-Monthly.xlsx')) {
      res.writeHead(200, { 'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
      res.end(site.workbook);
    } else {
      res.writeHead(404);
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'worldbank-sync-int-spec' });
  await ensureEventStreams(messaging, { replicas: 1, duplicateWindowMs: 120_000 });
  store = await createKvSyncStore(messaging.js, { replicas: 1 });
  site.page = PAGE.replaceAll('https://thedocs.worldbank.org', baseUrl);
  site.workbook = NOV_2025;
  requests.length = 0;
  newEvents = createDataEventReader(messaging);
});
afterEach(async () => {
  await messaging?.close().catch(() => undefined);
  await nats?.stop();
});

describe('ingest sync --source worldbank', () => {
  it('finds the workbook on the page, downloads it once for all 13 series, then publishes only what is new or revised', async () => {
    const [first] = await sync();
    expect(first!.error).toBeUndefined();
    expect(first!.series).toHaveLength(13);
    expect(first!.series.every((s) => s.ok && s.from === '1960-01-01')).toBe(true);
    // one page and one workbook, not one per series; the monthly workbook, not the annual one
    expect(requests).toEqual([
      PAGE_PATH,
      '/en/doc/5d903e848db1d1b83e0ec8f744e55570-0050012025/related/CMO-Historical-Data-Monthly.xlsx',
    ]);
    const events = await newEvents();
    const gold = events.find(
      (e) => e.data.commodity_id === 'GOLD' && (e.data.points as Points)[0]!.date.startsWith('2025'),
    );
    expect(gold?.data).toMatchObject({
      series_type: 'price',
      frequency: 'monthly',
      unit: 'USD/troy oz',
      source: 'worldbank:GOLD',
      price_basis: 'monthly_average',
    });
    // every event of the November file published on its "Updated on" day (stated by the source)
    const seriesEvents = events.filter((e) => e.type === 'series.points.recorded');
    expect(new Set(seriesEvents.map((e) => [e.data.published_at, e.data.published_at_estimated].join(' ')))).toEqual(
      new Set(['2025-11-04T00:00:00.000Z false']),
    );
    expect(published(events)).toContain('worldbank:SOYBEAN_OIL 2025-10-31 1135.81');
    expect(first!.status.newest_data_date).toBe('2025-10-31');
    expect((await store.getCursor('worldbank', 'SOYBEAN_OIL'))?.newest_date).toBe('2025-10-31');

    // December's workbook: November is new, October's soybean oil and meal were revised
    site.workbook = DEC_2025;
    const [second] = await sync({ clock: () => new Date('2026-01-05T17:00:00Z') });
    expect(second!.error).toBeUndefined();
    expect(second!.series.find((s) => s.series === 'SOYBEAN_OIL')).toMatchObject({ from: '2025-05-01', revised: 1 });
    expect(second!.series.reduce((n, s) => n + s.revised, 0)).toBe(2);
    const secondEvents = await newEvents();
    expect(new Set(secondEvents.map((e) => e.data.published_at))).toEqual(new Set(['2025-12-02T00:00:00.000Z']));
    const again = published(secondEvents);
    expect(again.filter((p) => p.includes(' 2025-10-31 '))).toEqual([
      'worldbank:SOYBEAN_MEAL 2025-10-31 356',
      'worldbank:SOYBEAN_OIL 2025-10-31 1132.14834869565',
    ]);
    expect(again.filter((p) => p.includes(' 2025-11-30 '))).toHaveLength(13);
    expect(again).toHaveLength(15);
    expect(second!.status.newest_data_date).toBe('2025-11-30');
  });

  it('fails clearly and publishes nothing when the page has no workbook link', async () => {
    site.page = PAGE.replace(/href="[^"]*CMO-Historical-Data-Monthly\.xlsx"/, 'href="/en/research/prices"');
    const [result] = await sync();
    expect(result!.ok).toBe(false);
    expect(result!.series.every((s) => !s.ok)).toBe(true);
    expect(result!.series[0]!.error).toBe(
      `worldbank: no CMO-Historical-Data-Monthly.xlsx link on ${baseUrl}${PAGE_PATH}; the publisher changed its page`,
    );
    expect(requests).toEqual([PAGE_PATH]);
    expect(await newEvents()).toEqual([]);
    expect(await store.getCursor('worldbank', 'GOLD')).toBeUndefined();
    expect(result!.status).toMatchObject({ last_success_at: null, newest_data_date: null });
  });

  it('refuses an http workbook link and a redirect to another host, publishing nothing', async () => {
    // the real page's link, in plain http: not followed (the page itself is this local stand-in)
    site.page = PAGE.replaceAll('https://thedocs.worldbank.org', 'http://thedocs.worldbank.org');
    const [plain] = await sync();
    expect(plain!.ok).toBe(false);
    expect(plain!.series[0]!.error).toMatch(/^worldbank: no CMO-Historical-Data-Monthly\.xlsx link on /);
    expect(requests).toEqual([PAGE_PATH]);
    requests.length = 0;
    site.page = `<a href="/moved/CMO-Historical-Data-Monthly.xlsx">xlsx</a>`;
    const [moved] = await sync();
    expect(moved!.ok).toBe(false);
    expect(moved!.series[0]!.error).toBe(
      `worldbank: GET ${baseUrl}/moved/CMO-Historical-Data-Monthly.xlsx: HTTP 302 redirects to another host or scheme (https://mirror.example): not followed`,
    );
    // refused at once: no retry, and nothing asked of the other host
    expect(requests).toEqual([PAGE_PATH, '/moved/CMO-Historical-Data-Monthly.xlsx']);
    expect(await newEvents()).toEqual([]);
  });

  it('publishes nothing when the workbook layout changed (a renamed code)', async () => {
    site.workbook = RENAMED;
    const [result] = await sync();
    expect(result!.ok).toBe(false);
    expect(result!.error).toMatch(
      /^13 of 13 series failed; first: GOLD: worldbank: the "Monthly Prices" sheet has no column GOLD \(renamed\?\)/,
    );
    expect(await newEvents()).toEqual([]);
  });
});

describe('the HTTP client reads a binary body up to a bound', () => {
  it('returns the bytes, and refuses a body over maxBytes, announced or streamed, without retrying', async () => {
    const client = createHttpClient({ source: 'worldbank', minIntervalMs: 0, baseDelayMs: 1 });
    const bytes = await client.getBytes(new URL('/en/doc/x/related/CMO-Historical-Data-Monthly.xlsx', baseUrl), {
      maxBytes: 1024 * 1024,
    });
    expect(Buffer.from(bytes).equals(site.workbook)).toBe(true);
    requests.length = 0;
    for (const path of ['/big', '/big-chunked']) {
      const err = await client.getBytes(new URL(path, baseUrl), { maxBytes: 1024 * 1024 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SourceFetchError);
      expect((err as Error).message).toMatch(/the body is .* bytes, more than the 1048576 read/);
    }
    expect(requests).toEqual(['/big', '/big-chunked']);
  });
});
