/* The data explorer in the browser: plain JavaScript served as a file (no build step).
 * It calls the public API with the key pasted into the form, which lives in that input only: it
 * is never written to storage, cookies, the URL, the DOM or window.cdsExplorer, and the curl shown
 * carries $KEY instead. In the dashboard (data-session-key-url), nothing need be pasted: the page
 * asks the dashboard for its session's short-lived key, keeps it in a variable of this closure
 * only (same rules), asks again once when the API answers 401, and shows a first chart on its own.
 * Charts are drawn with TradingView Lightweight Charts (served by the dashboard itself as
 * lightweight-charts.js, loaded before this file). */
/* global window, document, fetch, AbortSignal, FormData, URLSearchParams, LightweightCharts */
(() => {
  'use strict';

  const root = document.getElementById('cdsx');
  if (root === null) return;
  const apiBase = (root.dataset.apiBase || '').replace(/\/+$/, '');
  const sessionKeyUrl = root.dataset.sessionKeyUrl || '';
  const csrf = root.dataset.csrf || '';
  const $ = (id) => document.getElementById(id);
  const form = $('cdsx-form');
  const keyInput = $('cdsx-key');
  const commodityInput = $('cdsx-commodity');
  const commodityList = $('cdsx-commodities');
  const kindSelect = $('cdsx-kind');
  const kindHint = $('cdsx-kind-hint');
  const chartCard = $('cdsx-chart-card');
  const tableCard = $('cdsx-table-card');
  const seriesOptions = $('cdsx-series-options');
  const cotOptions = $('cdsx-cot-options');
  const scopeSelect = $('cdsx-scope');
  const scopeHint = $('cdsx-scope-hint');
  const statusBox = $('cdsx-status');
  const errorBox = $('cdsx-error');
  const results = $('cdsx-results');
  const chartBox = $('cdsx-chart');
  const legendBox = $('cdsx-legend');
  const sourceBox = $('cdsx-source');
  const noteBox = $('cdsx-note');
  const noteTitle = $('cdsx-note-title');
  const noteText = $('cdsx-note-text');
  const frequencySelect = $('cdsx-frequency');
  const curlBox = $('cdsx-curl');
  const copyButton = $('cdsx-copy');
  const table = $('cdsx-table');
  const caption = $('cdsx-caption');
  const submitButton = $('cdsx-show');
  const sdOptions = $('cdsx-sd-options');
  const regionSelect = $('cdsx-region');
  const yearSelect = $('cdsx-marketing-year');
  const yearHint = $('cdsx-marketing-year-hint');
  const asOfInput = $('cdsx-as-of');
  const startField = $('cdsx-start-field');
  const endField = $('cdsx-end-field');
  const editionsWrap = $('cdsx-editions-wrap');
  const editionsTable = $('cdsx-editions');
  const editionsCaption = $('cdsx-editions-caption');
  const checksBox = $('cdsx-checks');
  const currencySelect = $('cdsx-currency');
  const currencyHint = $('cdsx-currency-hint');
  const unitSelect = $('cdsx-unit');
  const unitHint = $('cdsx-unit-hint');
  const conversionBox = $('cdsx-conversion');

  const TIMEOUT_MS = 15000;
  const COT_GROUPS = {
    cot_legacy: ['commercial', 'non_commercial', 'non_reportable'],
    cot_disaggregated: ['producer_merchant', 'swap_dealer', 'managed_money', 'other_reportable'],
    cot_cit: ['commercial', 'non_commercial', 'index_traders', 'non_reportable'],
  };
  /** The report format of each COT kind (the API's format parameter). */
  const COT_FORMAT = { cot_legacy: 'legacy', cot_disaggregated: 'disaggregated', cot_cit: 'cit' };
  /** How the page names each COT kind in its messages. */
  const COT_WORDS = {
    cot_legacy: 'legacy COT reports',
    cot_disaggregated: 'disaggregated COT reports',
    cot_cit: 'Commodity Index Trader (CIT) supplement',
  };
  const CIT_ONLY_COMBINED = 'The CIT supplement is published for futures and options combined only.';
  const CIT_MARKETS =
    'The CFTC publishes the CIT supplement for 13 agricultural markets only (grains, softs and livestock).';
  const GROUP_COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706'];
  const UP = '#16a34a';
  const DOWN = '#dc2626';
  /** What a price series' numbers are, in words (PriceBasis in libs/contracts). */
  const BASIS_WORDS = {
    spot: 'spot price',
    cash: 'cash price',
    monthly_average: 'monthly average',
    received_by_farmers: 'price received by farmers',
    futures_settlement: 'futures settlement',
    demo: 'demo data (generated)',
  };
  const TRANSFORM_WORDS = { change: 'change', pct_change: 'percent change', cumulative: 'cumulative sum' };
  /** A request may ask for a coarser frequency than the series' own, never a finer one (a 400). */
  const FREQUENCY_RANK = { daily: 0, weekly: 1, monthly: 2 };
  /** Fewer points than this draw with a marker on each, so a sparse monthly or weekly line reads as observations. */
  const MARKERS_BELOW = 120;
  /** The balance sheets' kind (available_series supply_demand). */
  const SD = 'supply_demand';
  /** The figure drawn across editions when a balance sheet is shown, the first of these it has. */
  const FIRST_FIGURE = ['ending_stocks', 'stocks_to_use'];
  /** The consistency checks a balance sheet can fail, in words. */
  const CHECK_WORDS = {
    supply_equals_use_plus_ending_stocks: 'supply total differs from total use plus ending stocks',
  };
  const DERIVED_TITLE = 'Computed by this service (ending stocks / total use), not a figure USDA publishes.';
  /** Pages of a region's figures read to list its marketing years (100 figures each). */
  const YEAR_PAGES = 10;
  /** The first chart of a session without a pasted key: the first of these the list offers, else its first. */
  const FIRST_CHART = ['GOLD', 'CRUDE_OIL_WTI'];

  // --- currency and unit: the table of measures comes with the page (libs/contracts/src/conversion.ts) ---

  /** Pounds per bushel of each crop that has a weight (BUSHEL_POUNDS): only they are offered, or converted from, bushels. */
  const BUSHEL_POUNDS = JSON.parse(unitSelect.dataset.bushelPounds || '{}');
  const hasBushel = (slug) => Object.prototype.hasOwnProperty.call(BUSHEL_POUNDS, slug);
  /** How many days back a daily point may take an earlier day's rate (MAX_RATE_CARRY_DAYS). */
  const CARRY_DAYS = Number(currencySelect.dataset.carryDays || '0');
  /** Every spelling of a measure in a series' unit (`mt`, `troy oz`, `bushel`...), to its unit option. */
  const MEASURE_OPTIONS = new Map();
  for (const o of unitSelect.options) {
    if (o.value === '') continue;
    for (const spelling of JSON.parse(o.dataset.spellings || '[]')) MEASURE_OPTIONS.set(spelling, o);
  }
  /** Which rate each point used (meta.conversion.currency.rule), in words. */
  const RULE_WORDS = {
    daily: `each point at the rate of its day (or the latest earlier one, at most ${CARRY_DAYS} days back)`,
    weekly_average: "each point at the average of its week's daily rates",
    monthly_average: "each point at the average of its month's daily rates",
  };

  /**
   * The unit option of the measure a unit states, as parseUnit in libs/contracts/src/conversion.ts
   * takes a unit apart: a price `<money>/<measure>` (`USD/bu`, `USc/lb`), else a quantity
   * `[thousand ]<measure>[/acre|/d]`; undefined when the unit has no measure the API converts.
   */
  function measureOptionOf(unit) {
    if (!unit) return undefined;
    const price = /^(?:[A-Z]{3}|USc)\/(.+)$/.exec(unit);
    const quantity = /^(?:thousand |million |billion )?(.*?)(?:\/(?:acre|d|day|ha))?$/.exec(unit);
    const text = price ? price[1] : quantity ? quantity[1] : unit;
    return MEASURE_OPTIONS.get(text);
  }

  /** The unit each series was published in, by `<commodity> <type>`, as the answers said it. */
  const seriesUnits = new Map();

  /** What the page drew, for tests and curious users: never the key (keyKind: 'session', 'pasted' or null). */
  const state = {
    kind: null,
    url: null,
    points: [],
    response: null,
    drawing: '',
    shown: 0,
    keyKind: null,
    editionsUrl: null,
    editionsShown: 0,
    conversion: null,
  };
  window.cdsExplorer = state;

  let chart = null;

  const decimalsOf = (v) => {
    const s = String(v);
    const dot = s.indexOf('.');
    return dot === -1 || s.includes('e') ? 0 : s.length - dot - 1;
  };
  const label = (name) => name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
  const fmt = (v) => (v === undefined || v === null ? '' : String(v));

  /** The scope the user chose last for legacy or disaggregated (cit shows its only one meanwhile). */
  let chosenScope = 'futures_only';
  /** The available_series type of a COT kind in a scope (cot_legacy_combined, cot_cit, …); a series kind is its own. */
  function seriesTypeOf(kind, scope) {
    if (!(kind in COT_GROUPS)) return kind;
    return kind === 'cot_cit' || scope === 'futures_only' ? kind : `${kind}_combined`;
  }
  /** The types a kind stands for: a COT format in either scope, a series type itself. */
  const typesOf = (kind) => (kind in COT_GROUPS && kind !== 'cot_cit' ? [kind, `${kind}_combined`] : [kind]);
  /**
   * The scope of a COT kind: cit's only one; else the one chosen, or the other one when the
   * commodity followed offers the format in that scope only (the choice is kept for the next).
   */
  function scopeOf(kind) {
    if (kind === 'cot_cit') return 'futures_and_options';
    const other = chosenScope === 'futures_only' ? 'futures_and_options' : 'futures_only';
    const offers = (scope) => current !== null && current.offered.has(seriesTypeOf(kind, scope));
    return !offers(chosenScope) && offers(other) ? other : chosenScope;
  }
  /** What a request shows, in words: "Cot legacy" is "COT legacy, futures and options" here. */
  function kindWords(kind, scope) {
    if (kind === SD) return 'Supply and demand';
    if (!(kind in COT_GROUPS)) return label(kind);
    if (kind === 'cot_cit') return 'COT supplement (CIT), futures and options';
    return `COT ${COT_FORMAT[kind]}, ${scope === 'futures_only' ? 'futures only' : 'futures and options'}`;
  }

  function setStatus(text) {
    statusBox.textContent = text;
  }

  function clearError() {
    errorBox.hidden = true;
    errorBox.replaceChildren();
  }

  /** Shows an error: the API's error body (message, code, parameter, doc link, request id) or a local one. */
  function showError(err) {
    errorBox.replaceChildren();
    const title = document.createElement('p');
    title.className = 'cdsx-error-title';
    const body = err.body && err.body.error ? err.body.error : null;
    title.textContent = body
      ? `The API answered ${err.status}: ${body.message}`
      : err.message || 'Something went wrong.';
    // A known refusal (`hint`: the commodity has no CIT supplement) is said in words first.
    if (err.hint) title.textContent = err.hint;
    errorBox.append(title);
    if (body) {
      const dl = document.createElement('dl');
      const row = (name, value) => {
        if (value === undefined || value === null || value === '') return;
        const dt = document.createElement('dt');
        dt.textContent = name;
        const dd = document.createElement('dd');
        if (value instanceof window.Node) dd.append(value);
        else dd.textContent = String(value);
        dl.append(dt, dd);
      };
      if (err.hint) row('API answer', `${err.status}: ${body.message}`);
      const code = document.createElement('code');
      code.textContent = body.code;
      row('Code', code);
      row('Parameter', body.param);
      if (typeof body.doc_url === 'string' && /^https?:\/\//.test(body.doc_url)) {
        const a = document.createElement('a');
        a.href = body.doc_url;
        a.textContent = 'What this error means';
        a.rel = 'noopener';
        a.target = '_blank';
        row('Documentation', a);
      }
      row('Request id', body.request_id);
      errorBox.append(dl);
    }
    errorBox.hidden = false;
  }

  /** GET on the public API with the key as a Bearer token, within a deadline. */
  async function api(path, key) {
    let res;
    try {
      res = await fetch(apiBase + path, {
        headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
        cache: 'no-store',
        credentials: 'omit',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      const timedOut = e && (e.name === 'TimeoutError' || e.name === 'AbortError');
      throw new Error(
        timedOut
          ? `The API at ${apiBase} did not answer within ${TIMEOUT_MS / 1000} s.`
          : `Could not reach the API at ${apiBase}.`,
        { cause: e },
      );
    }
    let body;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    if (!res.ok) {
      const err = new Error(`The API answered ${res.status}${body === null ? ' with no error body' : ''}.`);
      err.status = res.status;
      err.body = body;
      throw err;
    }
    return body;
  }

  /** The session's key as a promise of { key, id }: in this variable only, dropped when the page is left. */
  let session = null;

  /** Asks the dashboard for the session's key; `replacing` names one the API refused, so another is made. */
  async function fetchSessionKey(replacing) {
    const form = new URLSearchParams({ _csrf: csrf });
    if (replacing) form.set('replace', replacing);
    let res;
    try {
      res = await fetch(sessionKeyUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        credentials: 'same-origin',
        cache: 'no-store',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      throw new Error('The dashboard did not answer with a key for this session: paste one of your keys.', {
        cause: e,
      });
    }
    let body;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    if (!res.ok || !body || typeof body.key !== 'string') {
      const said = body && body.error && body.error.message;
      throw new Error(said || `The dashboard answered ${res.status} for a session key: paste one of your keys.`);
    }
    return { key: body.key, id: body.key_id };
  }

  /**
   * The session's key, asked for once and shared by every call; `refused` (a key id the API answered
   * 401 to) asks for another, once, however many calls saw that 401.
   */
  function sessionKeyOf(refused) {
    if (session === null) session = fetchSessionKey('');
    else if (refused) {
      session = session.then(
        (k) => (k.id === refused ? fetchSessionKey(refused) : k),
        () => fetchSessionKey(refused),
      );
    }
    const asked = session;
    asked.catch(() => {
      if (session === asked) session = null;
    });
    return asked;
  }

  /** Whether a call has a key: one pasted, or the session's. */
  const hasKey = () => keyInput.value.trim() !== '' || sessionKeyUrl !== '';

  /** GET on the public API with the pasted key, else the session's (asked for again once on a 401). */
  async function call(path) {
    const pasted = keyInput.value.trim();
    if (pasted !== '' || sessionKeyUrl === '') {
      state.keyKind = 'pasted';
      return api(path, pasted);
    }
    state.keyKind = 'session';
    const held = await sessionKeyOf('');
    try {
      return await api(path, held.key);
    } catch (err) {
      if (err.status !== 401) throw err;
      return api(path, (await sessionKeyOf(held.id)).key);
    }
  }

  /** The series or COT request the form describes: its API path (with query) and kind. */
  function requestFromForm() {
    const data = new FormData(form);
    const slug = String(data.get('commodity') || '')
      .trim()
      .toUpperCase();
    // The select's own value: a selected option the commodity does not offer is disabled, and
    // FormData leaves disabled options out.
    const kind = kindSelect.value || 'price';
    const q = new URLSearchParams();
    const put = (name, value) => {
      const v = String(value || '').trim();
      if (v !== '') q.set(name, v);
    };
    let path;
    let scope = null;
    if (kind in COT_GROUPS) {
      path = `/commodities/${encodeURIComponent(slug)}/cot`;
      q.set('format', COT_FORMAT[kind]);
      // Futures only is the default of legacy and disaggregated: scope is sent only when it is not.
      scope = scopeOf(kind);
      if (scope !== 'futures_only') q.set('scope', scope);
      put('start_date', data.get('start_date'));
      put('end_date', data.get('end_date'));
      put('per_page', data.get('per_page'));
      put('page', data.get('page'));
    } else if (kind === SD) {
      path = `/commodities/${encodeURIComponent(slug)}/supply-demand`;
      put('region', data.get('region'));
      put('marketing_year', data.get('marketing_year'));
      put('as_of', data.get('as_of'));
    } else {
      path = `/commodities/${encodeURIComponent(slug)}/series`;
      q.set('type', kind);
      put('start_date', data.get('start_date'));
      put('end_date', data.get('end_date'));
      put('frequency', data.get('frequency'));
      const transform = String(data.get('transform') || 'none');
      if (transform !== 'none') q.set('transform', transform);
      put('limit', data.get('limit'));
      put('currency', data.get('currency'));
      put('unit', data.get('unit'));
    }
    const dated = q.has('start_date') || q.has('end_date');
    return { slug, kind, scope, type: seriesTypeOf(kind, scope), dated, query: q, path: `${path}?${q.toString()}` };
  }

  /** The shell command for the same call, with the key as $KEY. */
  function curlOf(url) {
    return `curl -H "Authorization: Bearer $KEY" \\\n  '${url.replace(/'/g, "'\\''")}'`;
  }

  function resetChart() {
    if (chart !== null) {
      chart.remove();
      chart = null;
    }
    chartBox.replaceChildren();
    legendBox.replaceChildren();
    sourceBox.replaceChildren();
    sourceBox.hidden = true;
    conversionBox.replaceChildren();
    conversionBox.hidden = true;
    editionsWrap.hidden = true;
  }

  function newChart() {
    resetChart();
    const styles = window.getComputedStyle(root);
    chart = LightweightCharts.createChart(chartBox, {
      autoSize: true,
      layout: {
        background: { type: 'solid', color: '#ffffff' },
        textColor: styles.color || '#1f2937',
        fontFamily: styles.fontFamily,
        attributionLogo: false,
      },
      grid: { vertLines: { color: '#eef0f3' }, horzLines: { color: '#eef0f3' } },
      rightPriceScale: { borderColor: '#d7dbe0' },
      // A narrower window shows the same dates, squeezed, not the last few points only.
      timeScale: { borderColor: '#d7dbe0', lockVisibleTimeRangeOnResize: true },
      crosshair: { mode: LightweightCharts.CrosshairMode.Normal },
    });
    return chart;
  }

  /** Legend items: [text, colour], the colour 'candles' for the up/down swatch of candlesticks. */
  function legend(items) {
    legendBox.replaceChildren(
      ...items.map(([name, color]) => {
        const li = document.createElement('li');
        const swatch = document.createElement('span');
        swatch.className = color === 'candles' ? 'cdsx-swatch cdsx-swatch-candles' : 'cdsx-swatch';
        if (color !== 'candles') swatch.style.backgroundColor = color;
        li.append(swatch, document.createTextNode(name));
        return li;
      }),
    );
  }

  /**
   * What a series is, for its legend: "Gold — monthly average, USD/troy oz", "Crude Oil WTI — spot
   * price, USD/bbl", "Corn — price received by farmers, USD/bu", "Gold — open interest, change, contracts".
   */
  function describeSeries(name, kind, meta) {
    const parts = [];
    if (kind === 'price') parts.push(BASIS_WORDS[meta.price_basis] || 'price');
    else parts.push(label(kind).toLowerCase());
    if (meta.transform && TRANSFORM_WORDS[meta.transform]) parts.push(TRANSFORM_WORDS[meta.transform]);
    if (meta.unit) parts.push(meta.unit);
    return `${name} — ${parts.join(', ')}`;
  }

  /**
   * The line under the chart: the source's attribution as its licence asks (meta.attribution, else
   * the descriptor's) and the source id, e.g. "Source: The World Bank: … CC BY 4.0 · worldbank:GOLD".
   */
  function showSource(attribution, source) {
    sourceBox.replaceChildren();
    if (!attribution && !source) {
      sourceBox.hidden = true;
      return;
    }
    const sourceLabel = (text) => {
      const b = document.createElement('span');
      b.className = 'cdsx-source-label';
      b.textContent = text;
      return b;
    };
    // EIA's attribution already reads "Source: …": no second label then, its own one in bold.
    const own = attribution ? /^(source:)(.*)$/is.exec(attribution) : null;
    if (!own) sourceBox.append(sourceLabel('Source:'), ' ');
    if (attribution) {
      const a = document.createElement('span');
      a.className = 'cdsx-attribution';
      if (own) a.append(sourceLabel(own[1]), own[2]);
      else a.textContent = attribution;
      sourceBox.append(a);
    }
    if (source) {
      const code = document.createElement('code');
      code.className = 'cdsx-source-id';
      code.textContent = source;
      if (attribution) sourceBox.append(' · ');
      sourceBox.append(code);
    }
    sourceBox.hidden = false;
  }

  const byDate = (a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0);

  /** Price with open/high/low/close on every point: candlesticks, and volume below when present. */
  function drawCandles(data, title) {
    const points = data
      .map((p) => ({ date: p.date, open: p.open, high: p.high, low: p.low, close: p.close, volume: p.volume }))
      .sort(byDate);
    const c = newChart();
    const candles = c.addSeries(LightweightCharts.CandlestickSeries, {
      upColor: UP,
      downColor: DOWN,
      borderUpColor: UP,
      borderDownColor: DOWN,
      wickUpColor: UP,
      wickDownColor: DOWN,
    });
    // A converted point without a rate (value null) is a gap.
    candles.setData(
      points.map((p) =>
        typeof p.open === 'number'
          ? { time: p.date, open: p.open, high: p.high, low: p.low, close: p.close }
          : { time: p.date },
      ),
    );
    const items = [[title, 'candles']];
    if (points.some((p) => typeof p.volume === 'number')) {
      const volume = c.addSeries(LightweightCharts.HistogramSeries, { priceFormat: { type: 'volume' } }, 1);
      volume.setData(
        points
          .filter((p) => typeof p.volume === 'number')
          .map((p) => ({
            time: p.date,
            value: p.volume,
            color: p.close >= p.open ? 'rgba(22,163,74,0.45)' : 'rgba(220,38,38,0.45)',
          })),
      );
      const panes = c.panes();
      if (panes[0] && panes[1]) {
        panes[0].setStretchFactor(3);
        panes[1].setStretchFactor(1);
      }
      items.push(['Volume', '#94a3b8']);
    }
    legend(items);
    c.timeScale().fitContent();
    return points;
  }

  /**
   * One line through the points at their own dates (a monthly or weekly series is not a daily one
   * with gaps: nothing is filled in between), with a marker on each point when they are few.
   */
  function drawLine(data, title, decimals) {
    const points = data.map((p) => ({ date: p.date, value: p.value })).sort(byDate);
    const c = newChart();
    const d = decimals ?? Math.min(4, Math.max(0, ...points.map((p) => decimalsOf(p.value))));
    const line = c.addSeries(LightweightCharts.LineSeries, {
      color: GROUP_COLORS[0],
      lineWidth: 2,
      pointMarkersVisible: points.length < MARKERS_BELOW,
      pointMarkersRadius: 3,
      priceFormat: { type: 'price', precision: d, minMove: 10 ** -d },
    });
    // A converted point without a rate (value null) is a gap.
    line.setData(
      points.map((p) => (typeof p.value === 'number' ? { time: p.date, value: p.value } : { time: p.date })),
    );
    legend([[title, GROUP_COLORS[0]]]);
    c.timeScale().fitContent();
    return points;
  }

  /** COT: one line per trader group, its net position (long - short), oldest report first. */
  function drawCot(data, kind) {
    const groups = COT_GROUPS[kind];
    const points = data
      .map((r) => {
        const p = { date: r.report_date };
        for (const g of groups) p[g] = r[g] ? r[g].net : null;
        return p;
      })
      .sort(byDate);
    const c = newChart();
    groups.forEach((g, i) => {
      const s = c.addSeries(LightweightCharts.LineSeries, {
        color: GROUP_COLORS[i % GROUP_COLORS.length],
        lineWidth: 2,
        title: label(g),
        priceFormat: { type: 'volume' },
      });
      s.setData(points.filter((p) => typeof p[g] === 'number').map((p) => ({ time: p.date, value: p[g] })));
    });
    legend(groups.map((g, i) => [`${label(g)} net`, GROUP_COLORS[i % GROUP_COLORS.length]]));
    c.timeScale().fitContent();
    return points;
  }

  function fillTable(columns, rows) {
    const thead = table.tHead || table.createTHead();
    const tbody = table.tBodies[0] || table.createTBody();
    const headRow = document.createElement('tr');
    for (const [title, numeric] of columns) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = title;
      if (numeric) th.className = 'num';
      headRow.append(th);
    }
    thead.replaceChildren(headRow);
    // Each numeric column with the same number of decimals (at most 4), so its digits line up.
    const decimals = columns.map((_, i) =>
      Math.min(4, Math.max(0, ...rows.map((r) => (typeof r[i] === 'number' ? decimalsOf(r[i]) : 0)))),
    );
    const formats = decimals.map(
      (d) => new Intl.NumberFormat('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }),
    );
    tbody.replaceChildren(
      ...rows.map((cells) => {
        const tr = document.createElement('tr');
        cells.forEach((v, i) => {
          const td = document.createElement('td');
          td.textContent = typeof v === 'number' ? formats[i].format(v) : fmt(v);
          if (columns[i][1]) td.className = 'num';
          tr.append(td);
        });
        return tr;
      }),
    );
  }

  /**
   * The decimals that show converted values to about five significant digits (at most 4): after a
   * rate and a factor, the digits of the published value say nothing of its precision.
   */
  function convertedDecimals(values) {
    const top = Math.max(0, ...values.filter((v) => typeof v === 'number').map((v) => Math.abs(v)));
    return top === 0 ? 2 : Math.min(4, Math.max(0, 4 - Math.floor(Math.log10(top))));
  }

  /** A series' points; converted (meta.conversion), the value's unit in its heading, each point's rate and its date. */
  function seriesTable(data, hasOhlc, meta) {
    const hasVolume = data.some((p) => typeof p.volume === 'number');
    const fx = meta.conversion && meta.conversion.currency;
    const hasRateDate = data.some((p) => typeof p.fx_rate_date === 'string');
    const cols = [['Date', false]];
    if (hasOhlc) cols.push(['Open', true], ['High', true], ['Low', true], ['Close', true]);
    else cols.push([meta.conversion && meta.unit ? `Value (${meta.unit})` : 'Value', true]);
    if (hasVolume) cols.push(['Volume', true]);
    if (fx) cols.push([`Rate (${fx.to} per ${fx.from})`, true]);
    if (hasRateDate) cols.push(['Rate date', false]);
    const NO_RATE = 'no rate';
    const d = meta.conversion ? convertedDecimals(data.map((p) => p.value)) : undefined;
    const shown = (v) => (d !== undefined && typeof v === 'number' ? Number(v.toFixed(d)) : v);
    fillTable(
      cols,
      data.map((p) => {
        const row = [p.date];
        const missing = p.value === null;
        if (hasOhlc)
          row.push(...(missing ? [NO_RATE, NO_RATE, NO_RATE, NO_RATE] : [p.open, p.high, p.low, p.close].map(shown)));
        else row.push(missing ? NO_RATE : shown(p.value));
        if (hasVolume) row.push(p.volume);
        if (fx) row.push(p.fx_rate);
        if (hasRateDate) row.push(p.fx_rate_date);
        return row;
      }),
    );
  }

  /** A factor as the working line shows it: six significant digits. */
  const factorText = (f) => String(Number(f.toPrecision(6)));

  /**
   * The line under the chart that shows the working of a conversion (meta.conversion): from and to,
   * the unit factor and how it comes about, the rates, their rule and how many points were carried
   * or had none, and the rates' attribution with the words that converted values are derived data.
   */
  function showConversion(conversion) {
    conversionBox.replaceChildren();
    conversionBox.hidden = !conversion;
    if (!conversion) return;
    const span = (className, text) => {
      const e = document.createElement('span');
      e.className = className;
      e.textContent = text;
      return e;
    };
    const from = (conversion.from && conversion.from.unit) || '';
    const to = (conversion.to && conversion.to.unit) || '';
    conversionBox.append(span('cdsx-source-label', 'Converted'), ` from ${from} to ${to}.`);
    const u = conversion.unit;
    if (u) conversionBox.append(' ', span('cdsx-working-unit', `Unit: × ${factorText(u.factor)} (${u.working}).`));
    const c = conversion.currency;
    if (c) {
      const rates = c.rates.length > 0 ? ` at the reference rates ${c.rates.join(' and ')}` : '';
      const counts = [
        c.rule === 'daily' ? `${c.carried} carried from an earlier day` : '',
        `${c.missing} without a rate`,
      ]
        .filter(Boolean)
        .join(', ');
      conversionBox.append(
        ' ',
        span(
          'cdsx-working-currency',
          `Currency: ${c.from} to ${c.to}${rates}, ${RULE_WORDS[c.rule] || c.rule}: ${counts}.`,
        ),
      );
      // The rates' terms: their attribution, and that a converted value is derived data, not theirs.
      const derived = /derived/i.test(c.note || '') ? c.note : `Converted values are derived data. ${c.note || ''}`;
      conversionBox.append(' ', span('cdsx-working-attribution', `${c.attribution} · ${derived.trim()}`));
    }
  }

  function cotTable(data, kind) {
    const groups = COT_GROUPS[kind];
    const cols = [
      ['Report date', false],
      ['Open interest', true],
    ];
    for (const g of groups)
      cols.push([`${label(g)} long`, true], [`${label(g)} short`, true], [`${label(g)} net`, true]);
    fillTable(
      cols,
      data.map((r) => {
        const row = [r.report_date, r.open_interest];
        for (const g of groups) row.push(r[g] && r[g].long, r[g] && r[g].short, r[g] && r[g].net);
        return row;
      }),
    );
  }

  // --- supply and demand: one balance sheet as a table, one figure across editions as a line -----

  /** The supply-demand path of a commodity with these parameters (empty ones left out). */
  function balanceSheetPath(slug, params) {
    const q = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && value !== null && String(value) !== '') q.set(name, String(value));
    }
    return `/commodities/${encodeURIComponent(slug)}/supply-demand?${q.toString()}`;
  }

  /** Every page of an answer (at most `pages`), its figures in the answer's order. */
  async function allFigures(path, pages) {
    const figures = [];
    let meta = {};
    for (let page = 1, last = 1; page <= last && page <= pages; page++) {
      const body = await call(`${path}&page=${page}`);
      meta = page === 1 ? (body && body.meta) || {} : meta;
      last = meta.total_pages || 1;
      figures.push(...((body && body.data) || []));
    }
    return { figures, meta };
  }

  /** The marketing years of a region (newest first) as of an edition: read once per commodity, region and as_of. */
  const yearLists = new Map();
  function yearsOf(slug, region, asOf) {
    const id = `${slug}|${region}|${asOf}`;
    let p = yearLists.get(id);
    if (p === undefined) {
      const path = balanceSheetPath(slug, { region, as_of: asOf, per_page: 100 });
      p = allFigures(path, YEAR_PAGES).then(({ figures }) => [...new Set(figures.map((f) => f.marketing_year))]);
      p.catch(() => yearLists.delete(id));
      yearLists.set(id, p);
    }
    return p;
  }

  /** The marketing year selector: the region's years, the one chosen kept when it has it, else the newest. */
  function offerYears(years, chosen) {
    yearSelect.replaceChildren(new window.Option('Newest', ''), ...years.map((y) => new window.Option(y, y)));
    const year = years.includes(chosen) ? chosen : years[0] || '';
    yearSelect.value = years.includes(chosen) ? chosen : '';
    yearHint.textContent =
      years.length > 1
        ? `${years.length} marketing years: ${years[years.length - 1]} to ${years[0]}.`
        : years.length === 1
          ? `1 marketing year: ${years[0]}.`
          : 'No marketing years for this region.';
    return year;
  }

  /** A number as the table shows it: its own decimals (a sheet mixes acres, bushels, dollars and ratios). */
  const figureNumber = (v) =>
    typeof v === 'number'
      ? new Intl.NumberFormat('en-US', {
          maximumFractionDigits: 4,
          minimumFractionDigits: Math.min(4, decimalsOf(v)),
        }).format(v)
      : '';
  const signed = (v) => (typeof v === 'number' && v > 0 ? `+${figureNumber(v)}` : figureNumber(v));
  const checksOf = (f) => (Array.isArray(f.failed_checks) ? f.failed_checks : []);

  /** A table's head and body from [title, numeric] columns and rows of cells (text, or a node). */
  function tableOf(target, columns, rows) {
    const thead = target.tHead || target.createTHead();
    const tbody = target.tBodies[0] || target.createTBody();
    const head = document.createElement('tr');
    for (const [title, numeric] of columns) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = title;
      if (numeric) th.className = 'num';
      head.append(th);
    }
    thead.replaceChildren(head);
    tbody.replaceChildren(
      ...rows.map((cells) => {
        const tr = document.createElement('tr');
        cells.forEach((v, i) => {
          const td = document.createElement('td');
          if (v instanceof window.Node) td.append(v);
          else td.textContent = fmt(v);
          if (columns[i][1]) td.className = 'num';
          tr.append(td);
        });
        return tr;
      }),
    );
    return [...tbody.rows];
  }

  /** The attribute cell: its name, "derived" on a figure this service computes. */
  function attributeCell(f) {
    const span = document.createElement('span');
    span.textContent = label(f.attribute);
    if (f.derived) {
      const badge = document.createElement('span');
      badge.className = 'cdsx-badge';
      badge.textContent = 'derived';
      badge.title = DERIVED_TITLE;
      span.append(' ', badge);
    }
    return span;
  }

  /**
   * One balance sheet as a table, the answer's attributes in its order; each row draws its figure
   * across editions when clicked (or Enter). Says which checks the sheet failed, if any.
   */
  function balanceSheetTable(figures, onPick) {
    const rows = tableOf(
      table,
      [
        ['Attribute', false],
        ['Value', true],
        ['Unit', false],
        ['Status', false],
        ['Edition', false],
        ['Checks', false],
      ],
      figures.map((f) => [
        attributeCell(f),
        figureNumber(f.value),
        f.unit,
        f.status,
        f.edition,
        checksOf(f).length
          ? `failed: ${checksOf(f)
              .map((c) => CHECK_WORDS[c] || c)
              .join('; ')}`
          : '',
      ]),
    );
    rows.forEach((tr, i) => {
      const f = figures[i];
      tr.className = 'cdsx-pick';
      tr.tabIndex = 0;
      tr.dataset.attribute = f.attribute;
      tr.dataset.unit = f.unit;
      tr.title = `Show ${label(f.attribute).toLowerCase()} across editions`;
      tr.addEventListener('click', () => onPick(f, tr));
      tr.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onPick(f, tr);
        }
      });
    });
    const failed = [...new Set(figures.flatMap(checksOf))];
    checksBox.textContent = failed.length
      ? `This balance sheet failed a consistency check (${failed.map((c) => CHECK_WORDS[c] || c).join('; ')}): its figures are shown as USDA published them.`
      : '';
    checksBox.hidden = failed.length === 0;
    return rows;
  }

  /**
   * One figure across the editions that published it (view=editions): a line through its values at
   * their release days, and a table of each edition with its change from the one before.
   */
  async function drawEditions(ctx, f) {
    const path = balanceSheetPath(ctx.slug, {
      region: f.region,
      marketing_year: f.marketing_year,
      attribute: f.attribute,
      view: 'editions',
      as_of: ctx.asOf,
      per_page: 100,
    });
    const { figures } = await allFigures(path, 5);
    const versions = figures.filter((v) => v.unit === f.unit);
    // One point a day (two releases the same day: the later one), oldest first.
    const byDay = new Map();
    for (const v of versions) {
      byDay.set(v.published_at.slice(0, 10), {
        date: v.published_at.slice(0, 10),
        edition: v.edition,
        value: v.value,
        change: v.change === undefined ? null : v.change,
      });
    }
    const points = [...byDay.values()].sort(byDate);
    const what = `${label(f.attribute)}, ${regionWords(f.region)} ${f.marketing_year}, ${f.unit}`;
    drawLine(points, `${ctx.name} — ${what}${f.derived ? ' (derived)' : ''}, by edition`);
    showSource(ctx.attribution, ctx.source);
    editionsCaption.textContent = `${what}: ${versions.length} edition${versions.length === 1 ? '' : 's'}`;
    tableOf(
      editionsTable,
      [
        ['Edition', false],
        ['Published', false],
        ['Value', true],
        ['Change', true],
        ['Status', false],
      ],
      versions.map((v) => [
        v.edition,
        v.published_at.slice(0, 16).replace('T', ' ') + ' UTC',
        figureNumber(v.value),
        v.change === null || v.change === undefined ? '—' : signed(v.change),
        v.status,
      ]),
    );
    editionsWrap.hidden = false;
    state.points = points;
    state.drawing = 'editions';
    state.editionsUrl = apiBase + path;
    chartBox.dataset.points = JSON.stringify(points);
    chartBox.dataset.drawing = 'editions';
  }

  /** Why the API refused a balance sheet, in words (its own message follows under it). */
  function balanceSheetRefusal(err, slug) {
    const param = err.body && err.body.error ? err.body.error.param : undefined;
    if (err.status === 404) return `No supply and demand balance sheets for ${slug}.`;
    if (err.status === 403) {
      return "Your key's plan does not reach this edition: Free keys read the editions of their last 12 months.";
    }
    if (err.status !== 400) return undefined;
    if (param === 'region') return `${slug} has no balance sheet for this region: choose one the Region list offers.`;
    if (param === 'marketing_year') return `${slug} has no balance sheet for this marketing year in this region.`;
    if (param === 'as_of') return 'No edition answers for this date: choose one between the first edition and today.';
    return 'The API refused this request.';
  }

  /** Kind supply_demand: the region's marketing years, the chosen year's balance sheet, a figure across editions. */
  async function showBalanceSheet(req, known, descriptor) {
    const region = req.query.get('region') || 'united_states';
    const asOf = req.query.get('as_of') || '';
    // The call that lists the years comes first: a refusal of it is the one the curl shows.
    curlBox.textContent = curlOf(apiBase + balanceSheetPath(req.slug, { region, as_of: asOf, per_page: 100 }));
    const years = await yearsOf(req.slug, region, asOf);
    const year = offerYears(years, req.query.get('marketing_year') || '');
    const name = (known && known.detail.name) || req.slug;
    state.kind = req.kind;
    state.editionsUrl = null;
    if (year === '') {
      state.url = null;
      state.response = null;
      resetChart();
      state.points = [];
      chartBox.dataset.points = '[]';
      chartBox.dataset.drawing = '';
      results.hidden = false;
      chartCard.hidden = true;
      const range = descriptor
        ? `: the editions of ${name} run from ${descriptor.first_date} to ${descriptor.last_date}`
        : '';
      fillTable([[`No balance sheets for this region${asOf ? ' as of this date' : ''}${range}.`, false]], []);
      caption.textContent = '';
      setStatus('');
      return;
    }
    const path = balanceSheetPath(req.slug, { region, marketing_year: year, as_of: asOf, per_page: 100 });
    const url = apiBase + path;
    curlBox.textContent = curlOf(url);
    results.hidden = false;
    const { figures, meta } = await allFigures(path, 5);
    state.url = url;
    state.response = { data: figures, meta };
    chartCard.hidden = figures.length === 0;
    tableCard.hidden = false;
    const ctx = {
      slug: req.slug,
      name,
      asOf,
      attribution: meta.attribution || (descriptor && descriptor.attribution),
      source: meta.source || (descriptor && descriptor.source),
    };
    const pick = async (f, tr) => {
      for (const row of table.tBodies[0].rows) row.removeAttribute('aria-selected');
      tr.setAttribute('aria-selected', 'true');
      clearError();
      try {
        await drawEditions(ctx, f);
      } catch (err) {
        err.hint = balanceSheetRefusal(err, req.slug);
        showError(err);
      } finally {
        state.editionsShown += 1;
      }
    };
    const rows = balanceSheetTable(figures, (f, tr) => void pick(f, tr));
    const first = FIRST_FIGURE.map((a) => figures.findIndex((f) => f.attribute === a)).find((i) => i >= 0);
    if (figures.length > 0) {
      const i = first === undefined ? 0 : first;
      rows[i].setAttribute('aria-selected', 'true');
      await drawEditions(ctx, figures[i]);
    }
    const editions = [...new Set(figures.map((f) => f.edition))].sort();
    caption.textContent =
      `${req.slug} · Supply and demand · ${regionWords(region)} ${year} · ${figures.length} figures` +
      ` (${asOf ? `as of ${asOf}` : 'newest editions'}: ${editions.join(', ')}). Click a row to see it across editions.`;
    setStatus(`${figures.length} figures loaded.`);
  }

  /** The commodity's detail (GET /commodities/{slug}), fetched once per commodity; null when that failed. */
  const details = new Map();
  function detailOf(slug) {
    let p = details.get(slug);
    if (p === undefined) {
      p = call(`/commodities/${encodeURIComponent(slug)}`).then(
        (body) => (body && body.data) || null,
        () => {
          // Unknown commodity, bad key...: Show reports the series call's own error; ask again next time.
          details.delete(slug);
          return null;
        },
      );
      details.set(slug, p);
    }
    return p;
  }

  /** The commodity the selectors follow: its detail and its available series by type (null: none loaded). */
  let current = null;
  /** Counts commodity changes, so an older detail arriving late does not overwrite a newer one. */
  let following = 0;

  /** Makes the kind selector offer only what the commodity lists in available_series. */
  const followed = (slug, detail) =>
    detail ? { slug, detail, offered: new Map((detail.available_series || []).map((s) => [s.type, s])) } : null;
  function follow(slug, detail) {
    current = followed(slug, detail);
    for (const o of kindSelect.options) {
      const offered = current === null || typesOf(o.value).some((t) => current.offered.has(t));
      o.hidden = !offered;
      o.disabled = !offered;
    }
    for (const g of kindSelect.querySelectorAll('optgroup')) {
      const none = [...g.children].every((o) => o.hidden);
      g.hidden = none;
      g.disabled = none;
    }
    root.dataset.commodity = current ? slug : '';
    syncKind();
  }

  async function loadAvailable() {
    const slug = commodityInput.value.trim().toUpperCase();
    if (current !== null && current.slug === slug) return;
    const n = ++following;
    follow(slug, null);
    if (!hasKey() || slug === '') return;
    const detail = await detailOf(slug);
    if (n === following) follow(slug, detail);
  }

  const capital = (s) => s.replace(/^./, (c) => c.toUpperCase());

  /**
   * The scope selector for a COT kind: cit shows its only scope (futures and options) and offers no
   * other; legacy and disaggregated show the one chosen, a scope the commodity does not offer disabled.
   */
  function syncScope(kind) {
    const cit = kind === 'cot_cit';
    for (const o of scopeSelect.options) {
      const offered =
        current === null || !typesOf(kind).some((t) => current.offered.has(t))
          ? true
          : current.offered.has(seriesTypeOf(kind, o.value));
      o.disabled = cit ? o.value !== 'futures_and_options' : !offered;
    }
    const scope = scopeOf(kind);
    scopeSelect.value = scope;
    scopeHint.textContent = cit
      ? CIT_ONLY_COMBINED
      : scope === 'futures_only'
        ? 'Futures positions only.'
        : 'Futures plus delta-adjusted options.';
  }

  /**
   * The currency selector for a price only (the API refuses currency on other series), and the unit
   * selector with the measures of the series' own dimension: the unit an answer said it was
   * published in, else the commodity's (its detail); a bushel only for a crop with a bushel weight.
   */
  function syncConversion(kind) {
    const series = !(kind in COT_GROUPS) && kind !== SD;
    const price = kind === 'price';
    currencySelect.disabled = !price;
    currencyHint.textContent = price ? 'Each point at the reference rate of its date.' : 'Prices only.';
    const slug = current ? current.slug : '';
    const seen = seriesUnits.get(`${slug} ${kind}`);
    const unit = seen || (current && current.detail.unit) || '';
    const own = measureOptionOf(unit);
    const dimension = own && (own.value !== 'bu' || hasBushel(slug)) ? own.dataset.dimension : '';
    let offered = 0;
    for (const o of unitSelect.options) {
      if (o.value === '') {
        o.textContent = seen ? `As published (${seen})` : 'As published';
        continue;
      }
      const fits =
        series && dimension !== '' && o.dataset.dimension === dimension && (o.value !== 'bu' || hasBushel(slug));
      o.hidden = !fits;
      o.disabled = !fits;
      if (fits) offered += 1;
    }
    const chosen = unitSelect.options[unitSelect.selectedIndex];
    if (chosen && chosen.disabled) unitSelect.value = '';
    unitSelect.disabled = offered === 0;
    if (current === null || !series) unitHint.textContent = '';
    else if (offered === 0) unitHint.textContent = `No other unit for ${unit || 'this series'}.`;
    else if (hasBushel(slug))
      unitHint.textContent = `A bushel of ${current.detail.name.toLowerCase()} is ${BUSHEL_POUNDS[slug]} lb.`;
    else unitHint.textContent = `Units of ${dimension}.`;
  }

  /**
   * Fits the form to the chosen kind of the chosen commodity: its dates and basis as a hint, no
   * frequency finer than its own, the COT or series options, and the commodity's price note.
   */
  function syncKind() {
    const kind = kindSelect.value;
    const cot = kind in COT_GROUPS;
    const sd = kind === SD;
    if (cot) syncScope(kind);
    const s = current ? current.offered.get(seriesTypeOf(kind, scopeOf(kind))) : undefined;
    if (sd) syncRegions(s);
    if (s) {
      // "Spot price · daily", then "2022-09-01 to 2022-11-28" on a line of its own.
      const what = [kind === 'price' ? BASIS_WORDS[s.price_basis] : '', s.frequency].filter(Boolean).join(' · ');
      const range = document.createElement('span');
      range.className = 'cdsx-range';
      range.textContent = `${s.first_date} to ${s.last_date}`;
      kindHint.replaceChildren(capital(what), range);
    } else if (current && cot && typesOf(kind).some((t) => current.offered.has(t))) {
      kindHint.textContent = `Not offered in this scope for ${current.slug}.`;
    } else {
      kindHint.textContent = current ? `Not offered for ${current.slug}.` : '';
    }
    const native = s && !cot ? s.frequency : null;
    for (const o of frequencySelect.options) {
      if (o.value === '') {
        o.textContent = native ? `Native (${native})` : 'Native';
        continue;
      }
      const finer = native !== null && FREQUENCY_RANK[o.value] < FREQUENCY_RANK[native];
      o.hidden = finer;
      o.disabled = finer;
    }
    const chosen = frequencySelect.options[frequencySelect.selectedIndex];
    if (chosen && chosen.disabled) frequencySelect.value = '';

    const detail = current && current.detail;
    if (kind === 'price' && detail && detail.price_note) {
      noteTitle.textContent = s ? `About the price of ${detail.name}` : `${detail.name} has no price series`;
      noteText.textContent = detail.price_note;
      noteBox.hidden = false;
    } else {
      noteBox.hidden = true;
      noteTitle.textContent = '';
      noteText.textContent = '';
    }
    seriesOptions.hidden = cot || sd;
    seriesOptions.disabled = cot || sd;
    cotOptions.hidden = !cot;
    cotOptions.disabled = !cot;
    sdOptions.hidden = !sd;
    sdOptions.disabled = !sd;
    // A balance sheet is chosen by marketing year and edition (as of), not by a date range.
    for (const field of [startField, endField]) {
      field.hidden = sd;
      for (const input of field.querySelectorAll('input')) input.disabled = sd;
    }
    syncConversion(kind);
  }

  /** The region selector offers the regions the commodity's descriptor lists (united_states first). */
  function syncRegions(descriptor) {
    const regions = descriptor && Array.isArray(descriptor.regions) ? descriptor.regions : [];
    const listed = [...regionSelect.options].map((o) => o.value);
    const ordered = [...regions].sort((a, b) => (a === 'united_states' ? -1 : b === 'united_states' ? 1 : 0));
    if (ordered.length === 0 || ordered.join() === listed.join()) return;
    const chosen = regionSelect.value;
    regionSelect.replaceChildren(
      ...ordered.map((r) => {
        const o = document.createElement('option');
        o.value = r;
        o.textContent = regionWords(r);
        return o;
      }),
    );
    regionSelect.value = ordered.includes(chosen) ? chosen : ordered[0];
    resetYears();
  }

  /** "united_states" as "United States", "eu" as "EU". */
  const regionWords = (r) =>
    r === 'eu'
      ? 'EU'
      : r
          .split('_')
          .map((w) => (w === 'and' ? w : w.replace(/^./, (c) => c.toUpperCase())))
          .join(' ');

  /** The marketing years offered are those of the region shown last: forgotten when the region or edition changes. */
  function resetYears() {
    yearSelect.replaceChildren(new window.Option('Newest', ''));
    yearHint.textContent = 'The years of the region, once shown.';
  }

  /** Nothing to ask the API for: the commodity does not offer the kind. */
  function notOffered(req) {
    state.kind = req.kind;
    state.url = null;
    state.response = null;
    state.points = [];
    state.drawing = '';
    resetChart();
    chartBox.dataset.points = '[]';
    chartBox.dataset.kind = req.kind;
    chartBox.dataset.drawing = '';
    results.hidden = true;
    const detail = current.detail;
    if (req.kind === 'price' && detail.price_note) {
      // The note under the form says why (syncKind shows it): no empty chart, no error.
      setStatus(`${detail.name} has no price series: see the note below.`);
      return;
    }
    setStatus('');
    if (req.kind === 'cot_cit') {
      showError(new Error(`${detail.name} (${current.slug}) has no ${COT_WORDS.cot_cit}. ${CIT_MARKETS}`));
      return;
    }
    if (req.kind === SD) {
      showError(new Error(`${detail.name} (${current.slug}) has no supply and demand balance sheets.`));
      return;
    }
    if (req.kind in COT_GROUPS) {
      const scope = req.scope === 'futures_only' ? 'futures only' : 'futures and options combined';
      showError(new Error(`${detail.name} (${current.slug}) has no ${COT_WORDS[req.kind]} for ${scope}.`));
      return;
    }
    const offered = [...current.offered.keys()].map((t) => label(t)).join(', ');
    showError(
      new Error(
        `${detail.name} (${current.slug}) has no ${label(req.kind).toLowerCase()} series${offered ? `. It offers: ${offered}.` : '.'}`,
      ),
    );
  }

  /** Keeps the unit a series was published in (an answer's meta), so the unit selector fits it. */
  function rememberUnit(req, meta) {
    if (req.kind in COT_GROUPS) return;
    const published = meta.conversion ? meta.conversion.from && meta.conversion.from.unit : meta.unit;
    const k = `${req.slug} ${req.kind}`;
    if (!published || seriesUnits.get(k) === published) return;
    seriesUnits.set(k, published);
    if (current !== null && current.slug === req.slug && kindSelect.value === req.kind) syncConversion(req.kind);
  }

  async function show() {
    clearError();
    let req = requestFromForm();
    if (!hasKey()) {
      showError(new Error('Paste an API key first: the explorer calls the public API with it.'));
      keyInput.focus();
      return;
    }
    if (req.slug === '') {
      showError(new Error('Choose a commodity.'));
      commodityInput.focus();
      return;
    }
    submitButton.disabled = true;
    setStatus('Loading…');
    try {
      // The selectors must follow this commodity before the request is built (the field's change
      // event may not have fired yet): its series, its native frequencies, its name and sources.
      // A key or commodity change may have started its own lookup meanwhile (the field's change event
      // fires as Show takes the focus): this request still knows its commodity from the detail it
      // fetched, and the form follows it unless the field names another commodity by then.
      let known = current !== null && current.slug === req.slug ? current : null;
      if (known === null) {
        following += 1;
        const detail = await detailOf(req.slug);
        const stillChosen = commodityInput.value.trim().toUpperCase() === req.slug;
        if (stillChosen) {
          if (current === null || current.slug !== req.slug) follow(req.slug, detail);
          req = requestFromForm();
        }
        known = followed(req.slug, detail);
      }
      const descriptor = known ? known.offered.get(req.type) : undefined;
      if (known && !descriptor) {
        notOffered(req);
        return;
      }
      if (req.kind === SD) {
        await showBalanceSheet(req, known, descriptor);
        return;
      }
      const url = apiBase + req.path;
      curlBox.textContent = curlOf(url);
      results.hidden = false;
      const body = await call(req.path);
      const data = Array.isArray(body && body.data) ? body.data : [];
      const meta = (body && body.meta) || {};
      const name = (known && known.detail.name) || req.slug;
      state.kind = req.kind;
      state.url = url;
      state.response = body;
      state.conversion = meta.conversion || null;
      chartCard.hidden = data.length === 0;
      tableCard.hidden = false;
      let drawing = '';
      // The table first: the chart then sizes itself to the final layout.
      if (data.length === 0) {
        resetChart();
        state.points = [];
        // Say where the data is: without dates the API answers the last 12 months, and a real
        // series may end earlier (an annual or a discontinued one, or a file loaded long ago).
        const where = descriptor
          ? (req.kind in COT_GROUPS
              ? `: the ${kindWords(req.kind, req.scope)} reports of ${name} run`
              : `: the ${label(req.kind).toLowerCase()} series of ${name} runs`) +
            ` from ${descriptor.first_date} to ${descriptor.last_date}` +
            (req.dated ? '' : ' (without dates, the API answers the last 12 months)')
          : '';
        fillTable([[`No data for this request${where}.`, false]], []);
      } else if (req.kind in COT_GROUPS) {
        cotTable(data, req.kind);
        state.points = drawCot(data, req.kind);
        drawing = 'lines';
        const sources = [...new Set(data.map((r) => r.source).filter(Boolean))];
        showSource(descriptor && descriptor.attribution, sources.join(', ') || (descriptor && descriptor.source));
      } else {
        // A converted point without a rate has no value and no open/high/low/close.
        const ohlc = (p) => ['open', 'high', 'low', 'close'].every((f) => typeof p[f] === 'number');
        const hasOhlc = req.kind === 'price' && data.some(ohlc) && data.every((p) => p.value === null || ohlc(p));
        seriesTable(data, hasOhlc, meta);
        const title = describeSeries(name, req.kind, meta);
        const decimals = meta.conversion ? convertedDecimals(data.map((p) => p.value)) : undefined;
        state.points = hasOhlc ? drawCandles(data, title) : drawLine(data, title, decimals);
        drawing = hasOhlc ? 'candles' : 'line';
        showSource(
          meta.attribution || (descriptor && descriptor.attribution),
          meta.source || (descriptor && descriptor.source),
        );
        showConversion(meta.conversion);
      }
      rememberUnit(req, meta);
      state.drawing = drawing;
      chartBox.dataset.points = JSON.stringify(state.points);
      chartBox.dataset.kind = req.kind;
      chartBox.dataset.drawing = drawing;
      const extra =
        req.kind in COT_GROUPS
          ? `page ${meta.page} of ${meta.total_pages}, ${meta.total} reports in all`
          : [
              req.kind === 'price' ? BASIS_WORDS[meta.price_basis] : '',
              meta.frequency,
              TRANSFORM_WORDS[meta.transform],
              meta.unit,
              meta.conversion && meta.conversion.from ? `converted from ${meta.conversion.from.unit}` : '',
            ]
              .filter(Boolean)
              .join(', ');
      caption.textContent = `${req.slug} · ${kindWords(req.kind, req.scope)} · ${data.length} rows (${extra})`;
      setStatus(`${data.length} rows loaded.`);
    } catch (err) {
      state.points = [];
      state.response = null;
      state.conversion = null;
      state.drawing = '';
      chartBox.dataset.points = '[]';
      chartBox.dataset.drawing = '';
      resetChart();
      fillTable([], []);
      chartCard.hidden = true;
      tableCard.hidden = true;
      caption.textContent = '';
      setStatus('');
      // A commodity without the CIT supplement is the API's 404 naming format: say why, then the API's words.
      if (req.kind === 'cot_cit' && err.status === 404) {
        err.hint = `${req.slug} has no ${COT_WORDS.cot_cit}. ${CIT_MARKETS}`;
      }
      if (req.kind === SD) err.hint = balanceSheetRefusal(err, req.slug);
      checksBox.hidden = true;
      showError(err);
    } finally {
      submitButton.disabled = false;
      state.shown += 1;
    }
  }

  /** Fills the commodity suggestions from GET /commodities once a key is pasted or the session's is used (up to 10 pages). */
  let listedWith = null;
  async function loadCommodities() {
    // The pasted key, or '' for the session's.
    const key = keyInput.value.trim();
    if (!hasKey() || key === listedWith) return;
    listedWith = key;
    try {
      const options = [];
      for (let page = 1, pages = 1; page <= pages && page <= 10; page++) {
        const body = await call(`/commodities?per_page=100&page=${page}`);
        pages = body.meta.total_pages;
        for (const c of body.data) {
          const o = document.createElement('option');
          o.value = c.id;
          o.label = `${c.name}${c.symbol ? ` (${c.symbol})` : ''} · ${c.category}`;
          options.push(o);
        }
      }
      commodityList.replaceChildren(...options);
      setStatus(`${options.length} commodities available with ${key === '' ? 'your session key' : 'this key'}.`);
    } catch (err) {
      listedWith = null;
      showError(err);
    }
  }

  syncKind();
  kindSelect.addEventListener('change', syncKind);
  scopeSelect.addEventListener('change', () => {
    if (kindSelect.value !== 'cot_cit') chosenScope = scopeSelect.value;
    syncKind();
  });
  keyInput.addEventListener('change', () => {
    clearError();
    // Another key may see other commodities: forget what the last one saw, and ask again.
    details.clear();
    following += 1;
    follow('', null);
    void loadCommodities().then(loadAvailable);
  });
  commodityInput.addEventListener('change', () => {
    resetYears();
    void loadAvailable();
  });
  regionSelect.addEventListener('change', resetYears);
  asOfInput.addEventListener('change', resetYears);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void show();
  });
  copyButton.addEventListener('click', () => {
    const text = curlBox.textContent || '';
    if (window.navigator.clipboard) {
      window.navigator.clipboard.writeText(text).then(
        () => setStatus('Command copied.'),
        () => setStatus('Copy failed: select the command and copy it.'),
      );
    }
  });
  /** Without a pasted key, in the dashboard: the commodity list, then a first chart, nothing to fill in. */
  async function firstChart() {
    await loadCommodities();
    if (commodityInput.value.trim() !== '' || keyInput.value.trim() !== '') return;
    const listed = [...commodityList.options].map((o) => o.value);
    const slug = FIRST_CHART.find((id) => listed.includes(id)) || listed[0];
    if (!slug) return;
    commodityInput.value = slug;
    await loadAvailable();
    const offers = (kind) => typesOf(kind).some((t) => current.offered.has(t));
    if (current !== null && !offers(kindSelect.value)) {
      const first = [...kindSelect.options].find((o) => offers(o.value));
      if (first) kindSelect.value = first.value;
      syncKind();
    }
    // A series that ended before the last 12 months (what the API answers without dates): its last year.
    const kind = kindSelect.value;
    const s = current !== null ? current.offered.get(seriesTypeOf(kind, scopeOf(kind))) : undefined;
    const yearBefore = (ms) => new Date(ms - 365 * 86400000).toISOString().slice(0, 10);
    if (s && s.last_date < yearBefore(Date.now())) {
      $('cdsx-start').value = yearBefore(Date.parse(s.last_date));
      $('cdsx-end').value = s.last_date;
    }
    await show();
  }

  // Drop the keys when the page is left, so a restored page (back/forward cache) does not hold them.
  window.addEventListener('pagehide', () => {
    keyInput.value = '';
    session = null;
  });
  root.dataset.ready = 'true';
  if (sessionKeyUrl !== '') void firstChart();
})();
