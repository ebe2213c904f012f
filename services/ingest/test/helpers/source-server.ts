import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CotDataset } from '@cds/contracts';
import { ownFixturePath } from './source-fixtures.ts';
import { buildZip } from './zip.ts';

type Row = Record<string, unknown>;

/** The CFTC's Socrata dataset ids, by COT dataset. */
const SOCRATA_IDS: Readonly<Record<string, CotDataset>> = {
  '6dca-aqww': 'legacy',
  '72hh-3qpy': 'disaggregated',
  'jun7-fc8e': 'legacy_combined',
  'kh3c-gbw2': 'disaggregated_combined',
  '4zgm-a668': 'cit',
};

const emptyCot = (): Record<CotDataset, Row[]> => ({
  legacy: [],
  disaggregated: [],
  legacy_combined: [],
  disaggregated_combined: [],
  cit: [],
});

/** A fault served instead of the normal answer to the next `times` requests that `match`. */
export interface Fault {
  match: (url: URL) => boolean;
  times: number;
  respond: (res: ServerResponse, normal: () => string) => void;
}

/**
 * A local stand-in for the three official APIs on 127.0.0.1, answering from recorded rows
 * (test/fixtures/sync, see SOURCES.md there) the way each API does: EIA API v2 (`start`, sort by
 * period, `offset`/`length`, `response.total` as a string), NASS Quick Stats (`api_GET` and
 * `get_counts`, `year__GE`/`year__LE`, HTTP 400 "no data"), CFTC Socrata (its five COT datasets:
 * `$where` on codes and report date, `$order`, `$limit`/`$offset`), ESMIS (the WASDE listing by `page`, and
 * the release files it lists). Faults (429, 5xx, truncated bodies) are queued per test.
 */
export class SourceServer {
  server: Server | undefined;
  baseUrl = '';
  readonly requests: URL[] = [];
  readonly faults: Fault[] = [];
  eia = new Map<string, Row[]>();
  nass: Row[] = [];
  cftc: Record<CotDataset, Row[]> = emptyCot();

  constructor() {
    this.reset();
  }

  /** The recorded rows, fresh copies (tests edit them to revise a value or rename a field). */
  reset(): void {
    const load = (name: string) => JSON.parse(readFileSync(ownFixturePath(`sync/${name}`), 'utf8')) as unknown;
    const eiaRows = (name: string) => (load(name) as { response: { data: Row[] } }).response.data;
    this.eia = new Map([
      ['RWTC', eiaRows('eia_v2_rwtc_daily.json')],
      ['WCESTUS1', eiaRows('eia_v2_wcestus1_weekly.json')],
    ]);
    this.nass = (load('nass_corn_yield_national.json') as { data: Row[] }).data;
    this.cftc = { ...emptyCot(), legacy: load('cftc_socrata_legacy_wti_2025.json') as Row[] };
    this.faults.length = 0;
    this.requests.length = 0;
    this.worldbankWorkbook = 'worldbank_pink_sheet_2025-12_excerpt.xlsx';
    // the recorded listing, but for the May 2026 re-post: no copy of its file was found (SOURCES.md)
    const listing = load('wasde_esmis_listing_2026-06.json') as { results: Row[] };
    this.wasdePages = [{ ...listing, results: listing.results.filter((r) => r.id !== '795903') }];
    this.wasdeFiles = new Map([
      [
        '/sites/default/release-files/795937/wasde0626.xml',
        readFileSync(ownFixturePath('wasde_0626_trimmed.xml'), 'utf8'),
      ],
    ]);
  }

  /** ESMIS: the pages of the WASDE listing (the recorded one; specs edit or split it) and the release files by path. */
  wasdePages: Row[] = [];
  wasdeFiles = new Map<string, string>();

  /**
   * Adds the recorded WHEAT-SRW answers of the combined datasets and the CIT supplement
   * (`jun7-fc8e`, `kh3c-gbw2`, `4zgm-a668`; left out by default, so the other specs' counts stand).
   */
  loadCotDatasets(): void {
    const load = (name: string) => JSON.parse(readFileSync(ownFixturePath(`sync/${name}`), 'utf8')) as Row[];
    this.cftc.legacy_combined = load('cftc_socrata_legacy_combined_wheat_2026.json');
    this.cftc.disaggregated_combined = load('cftc_socrata_disaggregated_combined_wheat_2021.json');
    this.cftc.cit = load('cftc_socrata_cit_wheat_2024.json');
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Requests whose path starts with `prefix`, e.g. `/v2/` or `/api/api_GET/`. */
  requested(prefix: string): URL[] {
    return this.requests.filter((u) => u.pathname.startsWith(prefix));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.baseUrl);
    this.requests.push(url);
    if (this.answerWorldBank(url, res) || this.answerRatesHistory(url, res)) return;
    const normal = () => this.answer(url);
    const fault = this.faults.find((f) => f.times > 0 && f.match(url));
    if (fault) {
      fault.times--;
      fault.respond(res, () => normal().body);
      return;
    }
    const { status, body } = normal();
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  }

  /** World Bank: the Commodity Markets page (hand-written, linking here) and the workbook (a real excerpt). */
  worldbankWorkbook = 'worldbank_pink_sheet_2025-12_excerpt.xlsx';

  /** The address to give `WORLDBANK_PAGE_URL`. */
  get worldbankPageUrl(): string {
    return `${this.baseUrl}/en/research/commodity-markets`;
  }

  private answerWorldBank(url: URL, res: ServerResponse): boolean {
    if (url.pathname === '/en/research/commodity-markets') {
      const page = readFileSync(ownFixturePath('worldbank_commodity_markets_page_handwritten.html'), 'utf8');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page.replaceAll('https://thedocs.worldbank.org', this.baseUrl));
      return true;
    }
    if (url.pathname.endsWith('/related/CMO-Historical-Data-Monthly.xlsx')) {
      res.writeHead(200, { 'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
      res.end(readFileSync(ownFixturePath(this.worldbankWorkbook)));
      return true;
    }
    return false;
  }

  /** The address to give `ECB_API_URL`: the reference-rate files under it, as the ECB serves them. */
  get ecbRatesUrl(): string {
    return `${this.baseUrl}/stats/eurofxref/`;
  }

  /** The ECB's whole history, zipped as the ECB serves it: the real excerpt `ecb_eurofxref-hist_excerpt.csv`. */
  private answerRatesHistory(url: URL, res: ServerResponse): boolean {
    if (url.pathname !== '/stats/eurofxref/eurofxref-hist.zip') return false;
    res.writeHead(200, { 'content-type': 'application/zip' });
    res.end(
      buildZip([{ name: 'eurofxref-hist.csv', data: readFileSync(ownFixturePath('ecb_eurofxref-hist_excerpt.csv')) }]),
    );
    return true;
  }

  private answer(url: URL): { status: number; body: string } {
    const p = url.searchParams;
    // the ECB's last 90 days as XML (written in its shape: sync/ecb_eurofxref-hist-90d_handwritten.xml)
    if (url.pathname === '/stats/eurofxref/eurofxref-hist-90d.xml')
      return { status: 200, body: readFileSync(ownFixturePath('sync/ecb_eurofxref-hist-90d_handwritten.xml'), 'utf8') };
    if (url.pathname.startsWith('/v2/')) {
      const start = p.get('start') ?? '';
      const rows = (this.eia.get(p.get('facets[series][]') ?? '') ?? []).filter((r) => String(r.period) >= start);
      if (p.get('sort[0][column]') === 'period') rows.sort((a, b) => String(a.period).localeCompare(String(b.period)));
      const offset = Number(p.get('offset') ?? 0);
      const length = Math.min(Number(p.get('length') ?? 5000), 5000);
      const data = rows.slice(offset, offset + length);
      return { status: 200, body: JSON.stringify({ response: { total: String(rows.length), data } }) };
    }
    if (url.pathname === '/api/api_GET/' || url.pathname === '/api/get_counts/') {
      const ge = Number(p.get('year__GE') ?? 0);
      const le = Number(p.get('year__LE') ?? 9999);
      const rows = this.nass.filter(
        (r) =>
          r.short_desc === p.get('short_desc') &&
          r.agg_level_desc === p.get('agg_level_desc') &&
          p.getAll('source_desc').includes(String(r.source_desc)) &&
          Number(r.year) >= ge &&
          Number(r.year) <= le,
      );
      if (url.pathname === '/api/get_counts/') return { status: 200, body: JSON.stringify({ count: rows.length }) };
      if (rows.length === 0) return { status: 400, body: JSON.stringify({ error: ['no data'] }) };
      return { status: 200, body: JSON.stringify({ data: rows }) };
    }
    const m = /^\/resource\/([a-z0-9]{4}-[a-z0-9]{4})\.json$/.exec(url.pathname);
    const dataset = m ? SOCRATA_IDS[m[1]!] : undefined;
    if (dataset !== undefined) {
      const where = p.get('$where') ?? '';
      const codes = [...(/in \(([^)]*)\)/.exec(where)?.[1] ?? '').matchAll(/'([^']*)'/g)].map((x) => x[1]);
      const from = /report_date_as_yyyy_mm_dd >= '([^']+)'/.exec(where)?.[1] ?? '';
      const rows = this.cftc[dataset]
        .filter((r) => codes.includes(String(r.cftc_contract_market_code)))
        .filter((r) => String(r.report_date_as_yyyy_mm_dd) >= from)
        .sort((a, b) => String(a.report_date_as_yyyy_mm_dd).localeCompare(String(b.report_date_as_yyyy_mm_dd)));
      const offset = Number(p.get('$offset') ?? 0);
      return { status: 200, body: JSON.stringify(rows.slice(offset, offset + Number(p.get('$limit') ?? 1000))) };
    }
    if (url.pathname === '/api/v1/release/findByIdentifier/wasde') {
      const page = this.wasdePages[Number(p.get('page') ?? 0)];
      return page === undefined
        ? { status: 404, body: '{"error":"not found"}' }
        : { status: 200, body: JSON.stringify(page) };
    }
    const wasdeFile = this.wasdeFiles.get(url.pathname);
    if (wasdeFile !== undefined) return { status: 200, body: wasdeFile };
    // the USDA AMS datamart with nothing in the asked range (its own answers: ams-sync.int.spec.ts)
    if (/^\/services\/v1\.1\/reports\/\d+$/.test(url.pathname))
      return { status: 200, body: JSON.stringify({ message: 'No Results Found' }) };
    return { status: 404, body: '{"error":"not found"}' };
  }
}
