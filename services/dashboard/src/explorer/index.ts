// The data explorer: a form that calls the public API from the browser with a key the user pastes,
// and shows a chart (TradingView Lightweight Charts), the table and the curl of the same call.
// Given `sessionKey` (the dashboard's session keys), nothing need be pasted: the script asks that URL
// for the session's short-lived key (a POST with the CSRF token), keeps it in a variable only, asks
// again once when the API answers 401 (the key expired or was replaced), and shows a first chart on
// its own; a pasted key is used instead whenever the field holds one.
//
// createExplorer() reads the assets once for one app: its render() gives the HTML fragments the
// dashboard puts in a page's <head> and <main>; its registerAssets() serves the client script, its
// stylesheet and the charting library from this service (no CDN). Both take the same prefix, e.g.
// `/dashboard/explorer`. renderExplorer() and registerExplorerAssets() do the same one call at a time.
//
// The page's Content-Security-Policy must allow: script-src 'self'; style-src 'self';
// connect-src <the origin of apiBaseUrl> (the browser calls the API itself). Nothing inline.
//
// What the chart shows follows the series, not an assumption that every price is daily futures
// OHLCV: a price whose points all carry open/high/low/close (futures settlements, demo data) draws
// candlesticks; any other series (a spot, cash, monthly average or farm price: `value` only) draws
// one line through its real dates, with markers when the points are sparse. The legend names the
// commodity, the price basis in words and the unit; the line under the chart cites the source
// (`meta.attribution`, else `meta.source`, else the commodity's descriptor). The kind selector
// offers only the commodity's `available_series`; a commodity without a price series shows its
// `price_note`; the frequency selector offers nothing finer than the series' native frequency.
//
// Test hook: after each "Show", the chart container (#cdsx-chart, role="img") carries the points it
// drew as JSON in `data-points`, the kind in `data-kind` and how it drew them in `data-drawing`
// (`candles`, `line`, `lines`, or empty when nothing was drawn); the same array is
// `window.cdsExplorer.points`, and `window.cdsExplorer.url` is the API URL called (null when the
// page answered from the commodity's detail, e.g. its price note). Points are in ascending date order:
//   - price with open/high/low/close: { date, open, high, low, close, volume } (candlesticks, volume);
//   - any other series, or a transformed price: { date, value } (one line);
//   - COT (kind cot_legacy / cot_disaggregated / cot_cit, a report format; the Scope field chooses
//     futures only or futures and options combined, sent as scope=futures_and_options only when
//     chosen; cit is combined only): { date: report_date, <group>: net, ... } per report.
//   - supply and demand (kind supply_demand, with a region, a marketing year and an as_of): the
//     table is one balance sheet (the answer's attributes in its order, value, unit, status, edition,
//     a "derived" mark, failed checks); the chart is one figure across editions (view=editions), the
//     row clicked (ending_stocks first): { date: published day, edition, value, change } per edition,
//     drawn as `editions`; `window.cdsExplorer.editionsUrl` is that call's URL.
//   - currency and unit (a series; currency on a price only): the API converts, the chart and table
//     show its values (a null value, no rate, is a gap and "no rate"), the table each point's rate,
//     and `#cdsx-conversion` under the chart the working of `meta.conversion`, which is also
//     `window.cdsExplorer.conversion` (null when nothing was converted). The unit selector offers
//     the measures of the series' dimension (from the unit an answer stated, else the commodity's).
// `#cdsx` gets `data-ready="true"` once the script has wired the form, and `data-commodity="<ID>"`
// once the selectors follow that commodity's detail (empty while none is loaded).
// `window.cdsExplorer.keyKind` says which key the last call used: 'session', 'pasted' or null.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BUSHEL_POUNDS,
  FREQUENCIES,
  MAX_RATE_CARRY_DAYS,
  MEASURE_NAMES,
  MEASURES,
  QUOTED_CURRENCIES,
  SERIES_TYPES,
  TRANSFORMS,
  type Measure,
} from '@cds/contracts';
import type { FastifyInstance } from 'fastify';

export interface ExplorerOptions {
  /** The public API base the browser calls and the curl shows, e.g. https://api.example.com/api/v1. */
  apiBaseUrl: string;
  /** Where registerExplorerAssets serves the assets, e.g. /dashboard/explorer. */
  assetPrefix: string;
  /**
   * Where the page gets the session's API key (a same-origin POST of `_csrf` = `csrf`, answering
   * `{ key, key_id, expires_at }` or the contract's error body); absent: only a pasted key is used.
   */
  sessionKey?: { url: string; csrf: string } | undefined;
}

interface Asset {
  body: Buffer;
  type: string;
  /** Short content hash: in the URL (so a long cache is safe) and the ETag. */
  version: string;
}

const here = dirname(fileURLToPath(import.meta.url));

function asset(path: string, type: string): Asset {
  const body = readFileSync(path);
  return { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}

/** The standalone production build of lightweight-charts (a global `LightweightCharts`). */
function chartLibraryPath(): string {
  // The package exports only its ESM entry and package.json: find the dist folder from the latter.
  const pkg = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
  return join(dirname(pkg), 'dist', 'lightweight-charts.standalone.production.js');
}

type AssetName = 'explorer.js' | 'explorer.css' | 'lightweight-charts.js';
type Assets = Record<AssetName, Asset>;

/** The three assets (about 220 kB in all), read from disk. */
function readAssets(): Assets {
  return {
    'explorer.js': asset(join(here, 'client', 'explorer.js'), 'text/javascript; charset=utf-8'),
    'explorer.css': asset(join(here, 'client', 'explorer.css'), 'text/css; charset=utf-8'),
    'lightweight-charts.js': asset(chartLibraryPath(), 'text/javascript; charset=utf-8'),
  };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
const trimSlash = (s: string): string => s.replace(/\/+$/, '');
const label = (name: string): string => name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

function assetUrl(assets: Assets, prefix: string, name: AssetName): string {
  return `${trimSlash(prefix)}/${name}?v=${assets[name].version}`;
}

/** The explorer with its assets read once (on first use): what the dashboard mounts. */
export function createExplorer(): {
  render(opts: ExplorerOptions): { head: string; body: string };
  registerAssets(app: FastifyInstance, opts: { prefix: string }): void;
} {
  let loaded: Assets | undefined;
  const assets = () => (loaded ??= readAssets());
  return {
    render: (opts) => renderWith(assets(), opts),
    registerAssets: (app, opts) => registerWith(assets(), app, opts),
  };
}

/** The explorer's <head> additions and its <main> content (reads the assets for their hashes at each call). */
export function renderExplorer(opts: ExplorerOptions): { head: string; body: string } {
  return renderWith(readAssets(), opts);
}

/**
 * The supply and demand options (kind supply_demand): the region (the script offers the
 * descriptor's regions), the marketing year (the region's years, once shown) and an as-of date.
 */
function balanceSheetOptions(): string {
  return `<fieldset id="cdsx-sd-options" hidden disabled>
      <legend>Balance sheet options</legend>
      <div class="cdsx-field">
        <label for="cdsx-region">Region</label>
        <select id="cdsx-region" name="region"><option value="united_states" selected>United States</option></select>
      </div>
      <div class="cdsx-field">
        <label for="cdsx-marketing-year">Marketing year</label>
        <select id="cdsx-marketing-year" name="marketing_year" aria-describedby="cdsx-marketing-year-hint"><option value="">Newest</option></select>
        <p id="cdsx-marketing-year-hint" class="cdsx-hint">The years of the region, once shown.</p>
      </div>
      <div class="cdsx-field">
        <label for="cdsx-as-of">As of</label>
        <input id="cdsx-as-of" name="as_of" type="date" aria-describedby="cdsx-as-of-hint" />
        <p id="cdsx-as-of-hint" class="cdsx-hint">Empty: the newest edition. A date: the editions released by then.</p>
      </div>
    </fieldset>`;
}

/** How the unit selector names a measure, where its own name is not enough. */
const MEASURE_WORDS: Readonly<Record<string, string>> = {
  t: 't (metric ton)',
  cwt: 'cwt (100 lb)',
  short_ton: 'short ton (2,000 lb)',
  bu: 'bu (bushel of the crop)',
  bbl: 'bbl (barrel)',
  gal: 'gal (US gallon)',
  m3: 'm³',
};

/**
 * The currency and unit selectors (GET /commodities/{slug}/series `currency` and `unit`): every
 * quoted currency, and every measure of libs/contracts/src/conversion.ts with its dimension and the
 * spellings a series' unit may use, and the bushel weight of each crop that has one. The script offers the
 * measures of the series' own dimension only (a bushel only for those crops): the table stays in
 * the contracts, the page carries it.
 */
function conversionFields(option: (value: string, text: string, selected?: boolean) => string): string {
  const currencies = option('', 'As published', true) + QUOTED_CURRENCIES.map((c) => option(c, c)).join('');
  const measures = MEASURE_NAMES.map((key) => {
    const m: Measure = MEASURES[key];
    const spellings = [...new Set([key, m.name, ...m.aliases])];
    return (
      `<option value="${esc(key)}" data-dimension="${esc(m.dimension)}" data-spellings="${esc(JSON.stringify(spellings))}">` +
      `${esc(MEASURE_WORDS[key] ?? m.name)}</option>`
    );
  }).join('');
  const bushels = esc(JSON.stringify(BUSHEL_POUNDS));
  return `<div class="cdsx-field">
        <label for="cdsx-currency">Currency</label>
        <select id="cdsx-currency" name="currency" aria-describedby="cdsx-currency-hint" data-carry-days="${MAX_RATE_CARRY_DAYS}">${currencies}</select>
        <p id="cdsx-currency-hint" class="cdsx-hint">Prices only: each point at the reference rate of its date.</p>
      </div>
      <div class="cdsx-field">
        <label for="cdsx-unit">Unit</label>
        <select id="cdsx-unit" name="unit" aria-describedby="cdsx-unit-hint" data-bushel-pounds="${bushels}">${option('', 'As published', true)}${measures}</select>
        <p id="cdsx-unit-hint" class="cdsx-hint"></p>
      </div>`;
}

/** Every interpolated value is escaped. */
function renderWith(assets: Assets, opts: ExplorerOptions): { head: string; body: string } {
  const p = opts.assetPrefix;
  const head =
    `<link rel="stylesheet" href="${esc(assetUrl(assets, p, 'explorer.css'))}" />\n` +
    `<script src="${esc(assetUrl(assets, p, 'lightweight-charts.js'))}" defer></script>\n` +
    `<script src="${esc(assetUrl(assets, p, 'explorer.js'))}" defer></script>`;

  const option = (value: string, text: string, selected = false) =>
    `<option value="${esc(value)}"${selected ? ' selected' : ''}>${esc(text)}</option>`;
  const kinds =
    `<optgroup label="Time series">${SERIES_TYPES.map((t) => option(t, label(t), t === 'price')).join('')}</optgroup>` +
    `<optgroup label="Commitments of Traders">${option('cot_legacy', 'COT legacy')}${option('cot_disaggregated', 'COT disaggregated')}` +
    `${option('cot_cit', 'COT CIT supplement')}</optgroup>` +
    `<optgroup label="Supply and demand">${option('supply_demand', 'Balance sheet')}</optgroup>`;
  const frequencies = option('', 'Native') + FREQUENCIES.map((f) => option(f, label(f))).join('');
  const transforms = TRANSFORMS.map((t) =>
    option(t, t === 'none' ? 'None' : t === 'pct_change' ? 'Percent change' : label(t), t === 'none'),
  ).join('');

  const session = opts.sessionKey;
  const sessionData =
    session === undefined ? '' : ` data-session-key-url="${esc(session.url)}" data-csrf="${esc(session.csrf)}"`;
  const keyHint =
    session === undefined
      ? 'Kept in this page only: never stored, never sent to the dashboard.'
      : 'Optional: without one, a short-lived key of your session is used (counted against your plan, never stored, revoked at log-out).';
  const commodityHint = session === undefined ? 'Suggestions appear once a key is pasted.' : 'Type to see suggestions.';
  const body = `<section id="cdsx" class="cdsx" data-api-base="${esc(trimSlash(opts.apiBaseUrl))}"${sessionData} aria-labelledby="cdsx-title">
  <header>
    <h1 id="cdsx-title">Data explorer</h1>
    <p class="cdsx-lead">Query the public API from your browser and see the chart, the table and the exact <code>curl</code> of the call.</p>
  </header>
  <form id="cdsx-form" novalidate>
    <fieldset>
      <legend>Request</legend>
      <div class="cdsx-field cdsx-wide">
        <label for="cdsx-key">API key</label>
        <input id="cdsx-key" name="key" type="password" autocomplete="off" spellcheck="false" autocapitalize="off" aria-describedby="cdsx-key-hint"${session === undefined ? '' : ' placeholder="Your session key is used"'} />
        <p id="cdsx-key-hint" class="cdsx-hint">${esc(keyHint)}</p>
      </div>
      <div class="cdsx-field">
        <label for="cdsx-commodity">Commodity</label>
        <input id="cdsx-commodity" name="commodity" type="text" list="cdsx-commodities" placeholder="e.g. GOLD" autocomplete="off" spellcheck="false" autocapitalize="characters" aria-describedby="cdsx-commodity-hint" />
        <datalist id="cdsx-commodities"></datalist>
        <p id="cdsx-commodity-hint" class="cdsx-hint">${esc(commodityHint)}</p>
      </div>
      <div class="cdsx-field">
        <label for="cdsx-kind">Kind</label>
        <select id="cdsx-kind" name="kind" aria-describedby="cdsx-kind-hint">${kinds}</select>
        <p id="cdsx-kind-hint" class="cdsx-hint"></p>
      </div>
      <div class="cdsx-field" id="cdsx-start-field">
        <label for="cdsx-start">Start date</label>
        <input id="cdsx-start" name="start_date" type="date" />
      </div>
      <div class="cdsx-field" id="cdsx-end-field">
        <label for="cdsx-end">End date</label>
        <input id="cdsx-end" name="end_date" type="date" />
      </div>
    </fieldset>
    <fieldset id="cdsx-series-options">
      <legend>Series options</legend>
      <div class="cdsx-field">
        <label for="cdsx-frequency">Frequency</label>
        <select id="cdsx-frequency" name="frequency">${frequencies}</select>
      </div>
      <div class="cdsx-field">
        <label for="cdsx-transform">Transform</label>
        <select id="cdsx-transform" name="transform">${transforms}</select>
      </div>
      <div class="cdsx-field">
        <label for="cdsx-limit">Limit</label>
        <input id="cdsx-limit" name="limit" type="number" min="1" max="10000" step="1" inputmode="numeric" placeholder="All points" />
      </div>
      ${conversionFields(option)}
    </fieldset>
    <fieldset id="cdsx-cot-options" hidden disabled>
      <legend>COT options</legend>
      <div class="cdsx-field">
        <label for="cdsx-scope">Scope</label>
        <select id="cdsx-scope" name="scope" aria-describedby="cdsx-scope-hint">${option('futures_only', 'Futures only', true)}${option('futures_and_options', 'Futures + options')}</select>
        <p id="cdsx-scope-hint" class="cdsx-hint"></p>
      </div>
      <div class="cdsx-field">
        <label for="cdsx-per-page">Reports per page</label>
        <input id="cdsx-per-page" name="per_page" type="number" min="1" max="100" step="1" inputmode="numeric" value="100" />
      </div>
      <div class="cdsx-field">
        <label for="cdsx-page">Page</label>
        <input id="cdsx-page" name="page" type="number" min="1" step="1" inputmode="numeric" value="1" />
      </div>
    </fieldset>
    ${balanceSheetOptions()}
    <div class="cdsx-actions">
      <button id="cdsx-show" type="submit">Show</button>
      <span id="cdsx-status" class="cdsx-status" role="status" aria-live="polite"></span>
    </div>
  </form>
  <div id="cdsx-note" class="cdsx-note" role="note" aria-labelledby="cdsx-note-title" hidden>
    <p id="cdsx-note-title" class="cdsx-note-title"></p>
    <p id="cdsx-note-text" class="cdsx-note-text"></p>
  </div>
  <div id="cdsx-error" class="cdsx-error" role="alert" hidden></div>
  <div id="cdsx-results" class="cdsx-results" hidden>
    <section id="cdsx-chart-card" class="cdsx-card" aria-labelledby="cdsx-chart-title">
      <h2 id="cdsx-chart-title">Chart</h2>
      <div id="cdsx-chart" class="cdsx-chart" role="img" aria-label="Chart of the data below" data-points="[]"></div>
      <ul id="cdsx-legend" class="cdsx-legend" aria-label="Legend"></ul>
      <div id="cdsx-editions-wrap" class="cdsx-table-wrap" hidden>
        <table id="cdsx-editions"><caption id="cdsx-editions-caption"></caption><thead></thead><tbody></tbody></table>
      </div>
      <p id="cdsx-source" class="cdsx-source" hidden></p>
      <p id="cdsx-conversion" class="cdsx-conversion" hidden></p>
      <p class="cdsx-credit">Charts by <a href="https://www.tradingview.com/" rel="noopener">TradingView</a> Lightweight Charts™.</p>
    </section>
    <section class="cdsx-card" aria-labelledby="cdsx-curl-title">
      <div class="cdsx-curl-head">
        <h2 id="cdsx-curl-title">API call</h2>
        <button id="cdsx-copy" type="button" class="cdsx-secondary">Copy</button>
      </div>
      <pre><code id="cdsx-curl"></code></pre>
      <p class="cdsx-hint">Set <code>KEY</code> to your API key in your shell first.</p>
    </section>
    <section id="cdsx-table-card" class="cdsx-card" aria-labelledby="cdsx-table-title">
      <h2 id="cdsx-table-title">Data</h2>
      <p id="cdsx-checks" class="cdsx-warning" role="note" hidden></p>
      <div class="cdsx-table-wrap" tabindex="0" role="region" aria-labelledby="cdsx-table-title">
        <table id="cdsx-table"><caption id="cdsx-caption"></caption><thead></thead><tbody></tbody></table>
      </div>
    </section>
  </div>
</section>`;
  return { head, body };
}

/**
 * Serves `${prefix}/explorer.js`, `${prefix}/explorer.css` and `${prefix}/lightweight-charts.js`
 * from this process, with a strict Content-Type and a year-long immutable cache (their URLs in
 * renderExplorer carry a content hash).
 */
export function registerExplorerAssets(app: FastifyInstance, opts: { prefix: string }): void {
  registerWith(readAssets(), app, opts);
}

function registerWith(assets: Assets, app: FastifyInstance, opts: { prefix: string }): void {
  for (const [name, a] of Object.entries(assets)) {
    const etag = `"${a.version}"`;
    app.get(`${trimSlash(opts.prefix)}/${name}`, (request, reply) => {
      reply
        .header('content-type', a.type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.send(a.body);
    });
  }
}
