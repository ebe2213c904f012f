/* The data explorer in the browser: plain JavaScript served as a file (no build step).
 * It calls the public API with the key pasted into the form, which lives in that input only: it
 * is never written to storage, cookies, the URL, the DOM or window.cdsExplorer, and the curl shown
 * carries $KEY instead. Charts are drawn with TradingView Lightweight Charts (served by the
 * dashboard itself as lightweight-charts.js, loaded before this file). */
/* global window, document, fetch, AbortSignal, FormData, URLSearchParams, LightweightCharts */
(() => {
  'use strict';

  const root = document.getElementById('cdsx');
  if (root === null) return;
  const apiBase = (root.dataset.apiBase || '').replace(/\/+$/, '');
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
  const statusBox = $('cdsx-status');
  const errorBox = $('cdsx-error');
  const results = $('cdsx-results');
  const chartBox = $('cdsx-chart');
  const legendBox = $('cdsx-legend');
  const curlBox = $('cdsx-curl');
  const copyButton = $('cdsx-copy');
  const table = $('cdsx-table');
  const caption = $('cdsx-caption');
  const submitButton = $('cdsx-show');

  const TIMEOUT_MS = 15000;
  const COT_GROUPS = {
    cot_legacy: ['commercial', 'non_commercial', 'non_reportable'],
    cot_disaggregated: ['producer_merchant', 'swap_dealer', 'managed_money', 'other_reportable'],
  };
  const GROUP_COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706'];
  const UP = '#16a34a';
  const DOWN = '#dc2626';

  /** What the page drew, for tests and curious users: never the key. */
  const state = { kind: null, url: null, points: [], response: null, shown: 0 };
  window.cdsExplorer = state;

  let chart = null;

  const decimalsOf = (v) => {
    const s = String(v);
    const dot = s.indexOf('.');
    return dot === -1 || s.includes('e') ? 0 : s.length - dot - 1;
  };
  const label = (name) => name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
  const fmt = (v) => (v === undefined || v === null ? '' : String(v));

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

  /** The series or COT request the form describes: its API path (with query) and kind. */
  function requestFromForm() {
    const data = new FormData(form);
    const slug = String(data.get('commodity') || '')
      .trim()
      .toUpperCase();
    const kind = String(data.get('kind') || 'price');
    const q = new URLSearchParams();
    const put = (name, value) => {
      const v = String(value || '').trim();
      if (v !== '') q.set(name, v);
    };
    let path;
    if (kind in COT_GROUPS) {
      path = `/commodities/${encodeURIComponent(slug)}/cot`;
      q.set('format', kind === 'cot_legacy' ? 'legacy' : 'disaggregated');
      put('start_date', data.get('start_date'));
      put('end_date', data.get('end_date'));
      put('per_page', data.get('per_page'));
      put('page', data.get('page'));
    } else {
      path = `/commodities/${encodeURIComponent(slug)}/series`;
      q.set('type', kind);
      put('start_date', data.get('start_date'));
      put('end_date', data.get('end_date'));
      put('frequency', data.get('frequency'));
      const transform = String(data.get('transform') || 'none');
      if (transform !== 'none') q.set('transform', transform);
      put('limit', data.get('limit'));
    }
    return { slug, kind, path: `${path}?${q.toString()}` };
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
      timeScale: { borderColor: '#d7dbe0' },
      crosshair: { mode: LightweightCharts.CrosshairMode.Normal },
    });
    return chart;
  }

  function legend(items) {
    legendBox.replaceChildren(
      ...items.map(([name, color]) => {
        const li = document.createElement('li');
        const swatch = document.createElement('span');
        swatch.className = 'cdsx-swatch';
        swatch.style.backgroundColor = color;
        li.append(swatch, document.createTextNode(name));
        return li;
      }),
    );
  }

  const byDate = (a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0);

  /** Price with open/high/low/close on every point: candlesticks, and volume below when present. */
  function drawCandles(data) {
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
    candles.setData(points.map((p) => ({ time: p.date, open: p.open, high: p.high, low: p.low, close: p.close })));
    const items = [['Open / high / low / close', UP]];
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

  function drawLine(data, name) {
    const points = data.map((p) => ({ date: p.date, value: p.value })).sort(byDate);
    const c = newChart();
    const d = Math.min(4, Math.max(0, ...points.map((p) => decimalsOf(p.value))));
    const line = c.addSeries(LightweightCharts.LineSeries, {
      color: GROUP_COLORS[0],
      lineWidth: 2,
      priceFormat: { type: 'price', precision: d, minMove: 10 ** -d },
    });
    line.setData(points.map((p) => ({ time: p.date, value: p.value })));
    legend([[name, GROUP_COLORS[0]]]);
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

  function seriesTable(data, hasOhlc) {
    const hasVolume = data.some((p) => typeof p.volume === 'number');
    const cols = [['Date', false]];
    if (hasOhlc) cols.push(['Open', true], ['High', true], ['Low', true], ['Close', true]);
    else cols.push(['Value', true]);
    if (hasVolume) cols.push(['Volume', true]);
    fillTable(
      cols,
      data.map((p) => {
        const row = [p.date];
        if (hasOhlc) row.push(p.open, p.high, p.low, p.close);
        else row.push(p.value);
        if (hasVolume) row.push(p.volume);
        return row;
      }),
    );
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

  async function show() {
    clearError();
    const key = keyInput.value.trim();
    const req = requestFromForm();
    if (key === '') {
      showError(new Error('Paste an API key first: the explorer calls the public API with it.'));
      keyInput.focus();
      return;
    }
    if (req.slug === '') {
      showError(new Error('Choose a commodity.'));
      commodityInput.focus();
      return;
    }
    const url = apiBase + req.path;
    curlBox.textContent = curlOf(url);
    results.hidden = false;
    submitButton.disabled = true;
    setStatus('Loading…');
    try {
      const body = await api(req.path, key);
      const data = Array.isArray(body && body.data) ? body.data : [];
      state.kind = req.kind;
      state.url = url;
      state.response = body;
      chartCard.hidden = data.length === 0;
      tableCard.hidden = false;
      // The table first: the chart then sizes itself to the final layout.
      if (data.length === 0) {
        resetChart();
        state.points = [];
        fillTable([['No data for this request', false]], []);
      } else if (req.kind in COT_GROUPS) {
        cotTable(data, req.kind);
        state.points = drawCot(data, req.kind);
      } else {
        const hasOhlc =
          req.kind === 'price' &&
          data.every((p) => ['open', 'high', 'low', 'close'].every((f) => typeof p[f] === 'number'));
        seriesTable(data, hasOhlc);
        state.points = hasOhlc ? drawCandles(data) : drawLine(data, label(req.kind));
      }
      chartBox.dataset.points = JSON.stringify(state.points);
      chartBox.dataset.kind = req.kind;
      const meta = (body && body.meta) || {};
      const unit = meta.unit ? `, ${meta.unit}` : '';
      const extra =
        req.kind in COT_GROUPS
          ? `page ${meta.page} of ${meta.total_pages}, ${meta.total} reports in all`
          : `${meta.frequency || ''}${meta.transform && meta.transform !== 'none' ? `, ${meta.transform}` : ''}${unit}`;
      caption.textContent = `${req.slug} · ${label(req.kind)} · ${data.length} rows (${extra})`;
      setStatus(`${data.length} rows loaded.`);
    } catch (err) {
      state.points = [];
      state.response = null;
      chartBox.dataset.points = '[]';
      resetChart();
      fillTable([], []);
      chartCard.hidden = true;
      tableCard.hidden = true;
      caption.textContent = '';
      setStatus('');
      showError(err);
    } finally {
      submitButton.disabled = false;
      state.shown += 1;
    }
  }

  /** Fills the commodity suggestions from GET /commodities once a key is pasted (up to 10 pages). */
  let listedWith = null;
  async function loadCommodities() {
    const key = keyInput.value.trim();
    if (key === '' || key === listedWith) return;
    listedWith = key;
    try {
      const options = [];
      for (let page = 1, pages = 1; page <= pages && page <= 10; page++) {
        const body = await api(`/commodities?per_page=100&page=${page}`, key);
        pages = body.meta.total_pages;
        for (const c of body.data) {
          const o = document.createElement('option');
          o.value = c.id;
          o.label = `${c.name}${c.symbol ? ` (${c.symbol})` : ''} · ${c.category}`;
          options.push(o);
        }
      }
      commodityList.replaceChildren(...options);
      setStatus(`${options.length} commodities available with this key.`);
    } catch (err) {
      listedWith = null;
      showError(err);
    }
  }

  /** What the chosen commodity offers (GET /commodities/{slug}): marks the kinds it lacks, hints the dates. */
  let offered = null;
  async function loadAvailable() {
    const key = keyInput.value.trim();
    const slug = commodityInput.value.trim().toUpperCase();
    offered = null;
    for (const o of kindSelect.options) o.textContent = o.dataset.label;
    syncKind();
    if (key === '' || slug === '') return;
    try {
      const body = await api(`/commodities/${encodeURIComponent(slug)}`, key);
      offered = new Map((body.data.available_series || []).map((s) => [s.type, s]));
      for (const o of kindSelect.options) {
        if (!offered.has(o.value)) o.textContent = `${o.dataset.label} (not offered)`;
      }
      syncKind();
    } catch {
      // Unknown commodity or another failure: Show reports it in full.
    }
  }

  function syncKind() {
    const s = offered && offered.get(kindSelect.value);
    kindHint.textContent = s ? `${label(s.frequency)}, ${s.first_date} to ${s.last_date}` : '';
    const cot = kindSelect.value in COT_GROUPS;
    seriesOptions.hidden = cot;
    seriesOptions.disabled = cot;
    cotOptions.hidden = !cot;
    cotOptions.disabled = !cot;
  }

  for (const o of kindSelect.options) o.dataset.label = o.textContent;
  syncKind();
  kindSelect.addEventListener('change', syncKind);
  keyInput.addEventListener('change', () => {
    clearError();
    void loadCommodities().then(loadAvailable);
  });
  commodityInput.addEventListener('change', () => void loadAvailable());
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
  // Drop the key when the page is left, so a restored page (back/forward cache) does not hold it.
  window.addEventListener('pagehide', () => {
    keyInput.value = '';
  });
  root.dataset.ready = 'true';
})();
