import { readFileSync } from 'node:fs';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { startNats, type NatsHandle } from '@cds/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ownFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { createDataEventReader, type StoredDataEvent } from '../../../test/helpers/data-events.ts';
import { SourceServer } from '../../../test/helpers/source-server.ts';
import { createKvLedger } from '../../publish/ledger.ts';
import { createPublisher } from '../../publish/publisher.ts';
import { ensureEventStreams } from '../../publish/streams.ts';
import { runSync, type SyncOptions } from '../../sync/run-sync.ts';
import { createKvSyncStore, type SyncStore } from '../../sync/state.ts';
import { COMMODITIES } from '../registry.ts';

// `ingest sync --source wasde` against real NATS and the local stand-in for ESMIS on 127.0.0.1
// (test/helpers/source-server.ts): the recorded listing (fixtures/sync/wasde_esmis_listing_2026-06.json,
// a real ESMIS answer) and the real June 2026 XML (fixtures/wasde_0626_trimmed.xml) at the path the
// listing gives. No copy of the May re-post (wasde0526v2.xml) was found: the server leaves its entry
// out of the listing, but in the test of a listed file the server does not have.

type Row = Record<string, unknown>;
type Figure = { attribute: string; unit: string; value: number };

const JUNE_PATH = '/sites/default/release-files/795937/wasde0626.xml';
const JUNE_V2_PATH = '/sites/default/release-files/795999/wasde0626v2.xml';
const NOTE_V2 =
  '<p><strong>NOTE</strong><span>: On June 12, 2026, the June World Agricultural Supply and Demand Estimates ' +
  '(WASDE) report was reposted to correct an error in the U.S. corn table.</span></p>\n';

const server = new SourceServer();
let nats: NatsHandle;
let messaging: Messaging;
let store: SyncStore;
let newEvents: () => Promise<StoredDataEvent[]>;

/** The recorded page's releases (fresh copies). */
const recorded = () => server.wasdePages[0]!.results as Row[];
const setReleases = (results: Row[], page = 0) => {
  server.wasdePages[page] = { ...server.wasdePages[page], results };
};

async function sync(over: Partial<SyncOptions> = {}) {
  const ledger = await createKvLedger(messaging.js, { replicas: 1 });
  const [result] = await runSync({
    sources: ['wasde'],
    publisher: () => createPublisher({ js: messaging.js, ledger }),
    store,
    catalogEntries: COMMODITIES.map((c) => c.entry),
    baseUrls: { wasde: server.baseUrl },
    clock: () => new Date('2026-06-11T16:20:00Z'),
    http: { minIntervalMs: 0, baseDelayMs: 1, maxRetries: 1, timeoutMs: 2_000 },
    ...over,
  });
  return result!;
}

const sheets = (events: StoredDataEvent[]) => events.filter((e) => e.type === 'supply_demand.figures.recorded');
const sheet = (events: StoredDataEvent[], commodity: string, region: string, my: string, edition: string) =>
  sheets(events).find(
    (e) =>
      e.data.commodity_id === commodity &&
      e.data.region === region &&
      e.data.marketing_year === my &&
      e.data.edition === edition,
  );
const figure = (event: StoredDataEvent | undefined, attribute: string, unit: string) =>
  (event?.data.figures as Figure[] | undefined)?.find((f) => f.attribute === attribute && f.unit === unit)?.value;

beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  server.reset();
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'wasde-sync-int-spec' });
  await ensureEventStreams(messaging, { replicas: 1, duplicateWindowMs: 120_000 });
  store = await createKvSyncStore(messaging.js, { replicas: 1 });
  newEvents = createDataEventReader(messaging);
});
afterEach(async () => {
  await messaging?.close().catch(() => undefined);
  await nats?.stop();
});

describe('ingest sync --source wasde', () => {
  it('first takes every XML edition since July 2010, then only what is new: a second run publishes nothing', async () => {
    const first = await sync();
    expect(first.error).toBeUndefined();
    expect(first.series).toEqual([expect.objectContaining({ series: 'editions', from: '2010-07-01', ok: true })]);
    expect(server.requests.map((u) => `${u.pathname}${u.search}`)).toEqual([
      '/api/v1/release/findByIdentifier/wasde?page=0',
      JUNE_PATH,
    ]);
    const events = await newEvents();
    // the June edition at its release, 12:00 New York (16:00Z), as ESMIS lists it (its "+0000" read as New York)
    const june = sheet(events, 'CORN', 'united_states', '2026/27', '2026-06');
    expect(june?.data).toMatchObject({ status: 'projection', published_at: '2026-06-11T16:00:00.000Z' });
    expect(june?.data.published_at_estimated).toBeUndefined();
    expect(figure(june, 'ending_stocks', 'Million Bushels')).toBe(1960);
    expect(figure(june, 'area_planted', 'Million Acres')).toBe(95.3);
    // its May column: the May edition, published at the May release
    const may = sheet(events, 'CORN', 'united_states', '2026/27', '2026-05');
    expect(may?.data).toMatchObject({ published_at: '2026-05-12T16:00:00.000Z' });
    expect(figure(may, 'ending_stocks', 'Million Bushels')).toBe(1957);
    expect(
      figure(sheet(events, 'CORN', 'united_states', '2024/25', '2026-06'), 'ending_stocks', 'Million Bushels'),
    ).toBe(1551);
    expect(sheets(events).every((e) => String(e.data.source) === 'wasde:wasde0626.xml')).toBe(true);
    expect(first.status.newest_data_date).toBe('2026-06-01');
    expect((await store.getCursor('wasde', 'editions'))?.newest_date).toBe('2026-06-01');

    server.requests.length = 0;
    const second = await sync({ clock: () => new Date('2026-06-12T16:20:00Z') });
    expect(second.error).toBeUndefined();
    expect(second.series[0]).toMatchObject({ from: '2026-05-01', fresh: 0, revised: 0 });
    expect(second.series[0]!.records).toBe(first.series[0]!.records);
    expect(await newEvents()).toEqual([]);
  });

  it("a re-post (v2) is a revision published on the note's day, estimated; only the sheets it changed", async () => {
    await sync();
    await newEvents();
    const xml = server.wasdeFiles.get(JUNE_PATH)!;
    const corrected = xml.replace(
      'forecast_month2="June"><Cell cell_value2="1,960"',
      'forecast_month2="June"><Cell cell_value2="1,970"',
    );
    expect(corrected).not.toBe(xml);
    server.wasdeFiles.set(JUNE_V2_PATH, corrected);
    const v2 = {
      ...recorded()[0],
      id: '795999',
      files: [
        `https://esmis.nal.usda.gov${JUNE_V2_PATH}`,
        'https://esmis.nal.usda.gov/sites/default/release-files/795999/wasde0626v2.pdf',
      ],
      description: NOTE_V2,
    };
    setReleases([v2, ...recorded()]);
    const result = await sync({ clock: () => new Date('2026-06-13T10:00:00Z') });
    expect(result.error).toBeUndefined();
    expect(result.series[0]!.revised).toBe(1);
    const events = sheets(await newEvents());
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      commodity_id: 'CORN',
      region: 'united_states',
      marketing_year: '2026/27',
      edition: '2026-06',
      source: 'wasde:wasde0626v2.xml',
      published_at: '2026-06-12T16:00:00.000Z',
      published_at_estimated: true,
    });
    expect(figure(events[0], 'ending_stocks', 'Million Bushels')).toBe(1970);
  });

  it('a re-post without a note is published when the sync first sees it, estimated', async () => {
    await sync();
    await newEvents();
    const xml = server.wasdeFiles.get(JUNE_PATH)!;
    server.wasdeFiles.set(JUNE_V2_PATH, xml.replace('cell_value2="1,960"', 'cell_value2="1,961"'));
    setReleases([
      { ...recorded()[0], id: '795999', files: [`https://esmis.nal.usda.gov${JUNE_V2_PATH}`] },
      ...recorded(),
    ]);
    await sync({ clock: () => new Date('2026-06-15T09:30:00Z') });
    const [event] = sheets(await newEvents());
    expect(event?.data).toMatchObject({ published_at: '2026-06-15T09:30:00.000Z', published_at_estimated: true });
  });

  it('an ESMIS error is reported clearly, publishes nothing and moves no cursor; the next run retries', async () => {
    server.faults.push({
      match: (u) => u.pathname.startsWith('/api/v1/release/'),
      times: 2,
      respond: (res) => res.writeHead(503).end('unavailable'),
    });
    const failed = await sync();
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/^1 of 1 series failed; first: editions: .*wasde.*503/);
    expect(await newEvents()).toEqual([]);
    expect(await store.getCursor('wasde', 'editions')).toBeUndefined();
    expect(failed.status).toMatchObject({ last_success_at: null, newest_data_date: null });

    const retried = await sync();
    expect(retried.error).toBeUndefined();
    expect(retried.series[0]!.from).toBe('2010-07-01');
    expect(sheets(await newEvents()).length).toBeGreaterThan(0);
  });

  it('a listing that is not JSON, a file that times out, a listed file not served: each a clear error', async () => {
    server.faults.push({
      match: (u) => u.pathname.startsWith('/api/v1/release/'),
      times: 1,
      respond: (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>'),
    });
    const html = await sync();
    expect(html.series[0]!.error).toBe('wasde: ESMIS answered page 0 with something that is not JSON');

    server.faults.push({
      match: (u) => u.pathname === JUNE_PATH,
      times: 2,
      respond: (res) => setTimeout(() => res.destroy(), 5_000).unref(),
    });
    const slow = await sync({ http: { minIntervalMs: 0, baseDelayMs: 1, maxRetries: 1, timeoutMs: 300 } });
    expect(slow.ok).toBe(false);
    expect(slow.series[0]!.error).toMatch(/wasde0626\.xml/);
    expect(await newEvents()).toEqual([]);

    // the recorded listing as ESMIS answered it, with the May re-post, whose file the server does not have
    server.reset();
    server.wasdePages = [
      JSON.parse(readFileSync(ownFixturePath('sync/wasde_esmis_listing_2026-06.json'), 'utf8')) as Row,
    ];
    const missing = await sync();
    expect(missing.ok).toBe(false);
    expect(missing.series[0]!.error).toMatch(/wasde0526v2\.xml.*404/);
    expect(await newEvents()).toEqual([]);
    expect(await store.getCursor('wasde', 'editions')).toBeUndefined();
  });

  it('an edition the parser refuses is reported by name and passed over; the others are published', async () => {
    const OLD_PATH = '/sites/default/release-files/795800/wasde0526.xml';
    server.wasdeFiles.set(
      OLD_PATH,
      '<Report Name="wasde"><sr99><Report Name="sr99" Report_Month="May 2026"/></sr99></Report>',
    );
    const may = {
      ...recorded()[0],
      id: '795800',
      files: [`https://esmis.nal.usda.gov${OLD_PATH}`],
      release_datetime: '2026-05-12T12:00:00+0000',
    };
    setReleases([...recorded(), may]);
    const result = await sync();
    expect(result.error).toBeUndefined();
    expect(result.summary?.rejected).toBe(1);
    expect(result.summary?.rejections[0]).toMatchObject({ file: 'wasde:wasde0526.xml' });
    expect(result.summary?.rejections[0]?.reason).toMatch(/^wasde: wasde0526\.xml holds no WASDE sub-report/);
    expect(sheet(await newEvents(), 'CORN', 'united_states', '2026/27', '2026-06')).toBeDefined();
    expect((await store.getCursor('wasde', 'editions'))?.newest_date).toBe('2026-06-01');
  });

  it('an edition missing from the listing is no error; old editions without XML are skipped and counted; pages are followed', async () => {
    const [june, ...old] = recorded();
    setReleases([]);
    const empty = await sync();
    expect(empty.error).toBeUndefined();
    expect(await newEvents()).toEqual([]);

    // two pages: June on the first, the 1995 text and 1975 pdf editions on the second
    server.wasdePages = [
      { pager: { current_page: 0, items_per_page: 1, total_pages: 2, total_results: 3 }, results: [june] },
      { pager: { current_page: 1, items_per_page: 1, total_pages: 2, total_results: 3 }, results: old },
    ];
    const all = await sync({ since: '1970-01-01' });
    expect(all.error).toBeUndefined();
    expect(all.stats.skippedByReason['release without an XML edition (text or pdf only)']).toBe(2);
    expect(server.requested('/api/v1/release/').map((u) => u.search)).toEqual(['?page=0', '?page=0', '?page=1']);
    expect(sheet(await newEvents(), 'CORN', 'united_states', '2026/27', '2026-06')).toBeDefined();
  });
});
