// Supply and demand (issue #39) through the real pipeline: USDA's own June 2026 WASDE XML (four
// sub-reports: US feed grains and corn, US soybeans and products, world corn in two parts; see
// services/ingest/test/fixtures/README.md) -> `ingest backfill --source wasde` -> NATS -> projector
// -> FerretDB -> query -> gateway. The expected figures are read from the XML here, by a small walk
// of its elements in this file, not through the product's parser: every served value must be the
// cell USDA published, in USDA's unit, as of the edition that published it. A corrected re-post
// (a copy with one cell changed, named as USDA names a re-post) must be a revision that overwrites
// nothing; a balance sheet that does not add up must be stored, flagged and listed on /status.
// Every answer through e2e.get is validated against the OpenAPI document by the harness.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATA_STREAM } from '@cds/contracts';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { REPO_ROOT } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startE2E, type ApiResponse, type E2E } from './support/harness.ts';
import { spawnIngest } from './support/ingest-child.ts';
import { dataStreamState } from './support/projections.ts';

const FIXTURES = join(REPO_ROOT, 'services', 'ingest', 'test', 'fixtures');
const JUNE_XML = join(FIXTURES, 'wasde_0626_trimmed.xml');
const SD = (slug: string) => `/api/v1/commodities/${slug}/supply-demand`;
/** The May and June 2026 releases: 12:00 New York (EDT) on USDA's release dates. */
const MAY_AT = Date.parse('2026-05-12T16:00:00Z');
const JUNE_AT = Date.parse('2026-06-11T16:00:00Z');
/** The corrected re-post this test makes of the June file: a day after the release. */
const REPOST_AT = '2026-06-12T16:00:00Z';
/** The one cell the re-post changes: US corn 2026/27 average farm price, June column, 4.40 -> 4.30. */
const REPOST_PRICE = 4.3;
/** Every ingest run ends within this (a hung child is killed and the test fails). */
const INGEST_DEADLINE_MS = 120_000;

// --- the test's own reading of the XML -------------------------------------------------------------

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e.startsWith('#x') || e.startsWith('#X')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return ENTITIES[e] ?? whole;
  });

/** A cell of the XML with the attributes of every element above it (numeric suffixes stripped). */
interface XmlCell {
  table: string;
  matrix: string;
  ctx: Record<string, string>;
  raw: string;
}

/** Every `<Cell cell_valueN="…">` of the file, with its context: one pass over the tags. */
function walkCells(xml: string): XmlCell[] {
  const out: XmlCell[] = [];
  type Frame = { ctx: Record<string, string>; table: string; matrix: string };
  const stack: Frame[] = [{ ctx: {}, table: '', matrix: '' }];
  const tag = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
  const attr = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  for (const [, close, name, attrs, selfClosing] of xml.matchAll(tag)) {
    if (close === '/') {
      stack.pop();
      continue;
    }
    const top = stack.at(-1)!;
    const ctx = { ...top.ctx };
    let raw: string | undefined;
    for (const a of attrs!.matchAll(attr)) {
      const key = a[1]!.replace(/\d+$/, '');
      const value = decode(a[2] ?? a[3] ?? '');
      if (key === 'cell_value') raw = value;
      else ctx[key] = value;
    }
    const frame: Frame = {
      ctx,
      table: /^sr\d+$/.test(name!) ? name! : top.table,
      matrix: /^matrix\d+$/.test(name!) ? name! : top.matrix,
    };
    if (name === 'Cell' && raw !== undefined) out.push({ table: frame.table, matrix: frame.matrix, ctx, raw });
    if (selfClosing !== '/') stack.push(frame);
  }
  return out;
}

/** The commodity of each table part, as its rows and title say (sr12 matrix1 is all feed grains: not a commodity of ours). */
const PARTS: Record<string, string> = {
  'sr12 matrix2': 'CORN',
  'sr15 matrix1': 'SOYBEANS',
  'sr15 matrix2': 'SOYBEAN_OIL',
  'sr15 matrix3': 'SOYBEAN_MEAL',
  'sr22 matrix1': 'CORN',
  'sr22 matrix2': 'CORN',
  'sr23 matrix1': 'CORN',
};

const snake = (s: string) =>
  s
    .replace(/\([^)]*\)/g, ' ')
    .replace(/\b\d+\//g, ' ')
    .replace(/[*&]/g, ' ')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
/** The one row whose name the API shortens (docs/sources.md): "Yield per Harvested Acre" is yield. */
const attributeOf = (row: string) => (snake(row) === 'yield_per_harvested_acre' ? 'yield' : snake(row));

/** One figure as the XML states it. `column`: the previous edition's (May), this edition's (June), or a year's only column. */
interface XmlFigure {
  commodity: string;
  region: string;
  marketingYear: string;
  status: 'estimate' | 'projection';
  column: 'may' | 'june' | 'only';
  attribute: string;
  value: number;
  unit: RegExp;
}

/** A price row's unit, as its name writes it or spelt out. */
const PRICE_UNITS: Record<string, RegExp> = {
  '$/bu': /^(?:\$\/bu|dollars per bushel)$/i,
  'c/lb': /^(?:c\/lb|cents per pound)$/i,
  '$/s.t.': /^(?:\$\/s\.t\.|dollars per short ton)$/i,
};

/** The unit a row is in, as the table states it: world tables in their subtitle, US tables above the rows or in the name. */
function unitOf(cell: XmlCell, commodity: string, attribute: string): RegExp {
  if (cell.ctx.sub_report_subtitle?.includes('Million Metric Tons')) return /^million metric tons$/i;
  const inName = /\(([^)]*)\)/.exec(cell.ctx.attribute ?? '');
  if (inName !== null) return PRICE_UNITS[inName[1]!] ?? /^$/;
  if (attribute.startsWith('area_')) return /^million acres$/i;
  if (attribute === 'yield') return /bushels/i;
  return (
    { CORN: /^million bushels$/i, SOYBEANS: /^million bushels$/i, SOYBEAN_OIL: /^million pounds$/i }[commodity] ??
    /tons/i
  );
}

function figuresOf(xml: string): XmlFigure[] {
  const out: XmlFigure[] = [];
  for (const cell of walkCells(xml)) {
    const commodity = PARTS[`${cell.table} ${cell.matrix}`];
    const row = cell.ctx.attribute;
    const year = /^(\d{4}\/\d{2})\s*(Est\.|Proj\.)?/.exec(
      (cell.ctx.market_year ?? cell.ctx.region_header ?? '').trim(),
    );
    const value = cell.raw.replace(/[,*\s]/g, '');
    if (commodity === undefined || row === undefined || year === null || !/^-?\d+(\.\d+)?$/.test(value)) continue;
    const month = (cell.ctx.forecast_month ?? '').trim();
    const attribute = attributeOf(row);
    out.push({
      commodity,
      region: cell.ctx.region === undefined ? 'united_states' : snake(cell.ctx.region),
      marketingYear: year[1]!,
      status: year[2] === 'Proj.' ? 'projection' : 'estimate',
      column: month === '' ? 'only' : month === 'May' ? 'may' : 'june',
      attribute,
      value: Number(value),
      unit: unitOf(cell, commodity, attribute),
    });
  }
  return out;
}

const JUNE_TEXT = readFileSync(JUNE_XML, 'utf8');
const XML = figuresOf(JUNE_TEXT);

/** The XML's figure of a commodity, region, marketing year and attribute in one column (one unit: the first found). */
function xmlFigure(
  commodity: string,
  region: string,
  marketingYear: string,
  attribute: string,
  column: XmlFigure['column'],
  unit?: RegExp,
) {
  const found = XML.filter(
    (f) =>
      f.commodity === commodity &&
      f.region === region &&
      f.marketingYear === marketingYear &&
      f.attribute === attribute &&
      f.column === column &&
      (unit === undefined || String(f.unit) === String(unit)),
  );
  if (found.length === 0)
    throw new Error(`the XML has no ${commodity} ${region} ${marketingYear} ${attribute} ${column}`);
  return found[0]!;
}

/** The figures of a balance sheet as the latest column states them (June for the projected year). */
const sheetOf = (commodity: string, region: string, marketingYear: string) =>
  XML.filter(
    (f) => f.commodity === commodity && f.region === region && f.marketingYear === marketingYear && f.column !== 'may',
  );

// --- the system ------------------------------------------------------------------------------------

interface Figure {
  marketing_year: string;
  region: string;
  attribute: string;
  value: number;
  unit: string;
  edition: string;
  published_at: string;
  status: string;
  first_seen_at?: string;
  published_at_estimated?: boolean;
  derived?: true;
  change?: number | null;
  failed_checks?: string[];
  revisions?: { value: number; edition: string; published_at: string; status: string }[];
}

let e2e: E2E;
let messaging: Messaging;
let key: string;
let freeKey: string;
let dir: string;

/** Waits until the supply_demand projection's durable consumer has nothing pending or unacknowledged. */
async function projected(): Promise<void> {
  await eventually(
    'the supply_demand projection caught up',
    async () => {
      const info = await messaging.jsm.consumers.info(DATA_STREAM, 'projector-supply_demand').catch(() => undefined);
      return info !== undefined && info.num_pending === 0 && info.num_ack_pending === 0;
    },
    60_000,
  );
}

/** `npm run ingest -- backfill --source wasde --file <file> …`, killed if it outlives its deadline. */
async function backfill(file: string, ...extra: string[]): Promise<{ code: number | null; out: string }> {
  const run = spawnIngest(['backfill', '--source', 'wasde', '--file', file, ...extra], {
    natsUrl: e2e.infra.identities.nats.ingest,
  });
  const timer = setTimeout(() => run.child.kill('SIGKILL'), INGEST_DEADLINE_MS);
  try {
    return await run.result;
  } finally {
    clearTimeout(timer);
  }
}

async function get(path: string, as = key, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return e2e.get(path, { key: as, headers });
}

/** The figures of an answer, the derived ones left out unless asked for. */
const figures = (res: ApiResponse, derived = false) =>
  (res.json.data as Figure[]).filter((f) => derived || f.derived === undefined);

/** The one figure of an answer with this attribute and a unit matching `unit`. */
function one(res: ApiResponse, attribute: string, unit?: RegExp): Figure {
  const found = (res.json.data as Figure[]).filter((f) => f.attribute === attribute && (unit?.test(f.unit) ?? true));
  expect(found, `${attribute} ${String(unit)} in ${res.text.slice(0, 400)}`).toHaveLength(1);
  return found[0]!;
}

/** A 4xx in the contract's error shape, naming `param` when given. */
function expectError(res: ApiResponse, status: number, code: string, param?: string) {
  expect(res.status, res.text).toBe(status);
  expect(Object.keys(res.json)).toEqual(['error']);
  const error = res.json.error as Record<string, unknown>;
  expect(error).toMatchObject({ code, ...(param !== undefined ? { param } : {}) });
  expect(String(error.message)).toMatch(/\S/);
  expect(String(error.doc_url)).toMatch(new RegExp(`/docs/errors#${code}$`));
  expect(String(error.request_id)).toMatch(/\S/);
  expect(res.text).not.toMatch(/\bat [^\s]+ \(?[^\s]*:\d+:\d+\)?|node_modules/);
}

/** The June file with its US corn 2026/27 June average farm price changed: the corrected re-post. */
function repostOf(xml: string): string {
  const price = /(attribute2="Avg\. Farm Price[^"]*"[\s\S]*?forecast_month2="June?"[\s\S]*?cell_value2=")4\.40(")/;
  expect(price.test(xml)).toBe(true);
  return xml.replace(price, `$1${REPOST_PRICE.toFixed(2)}$2`);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * A hand-made edition of this month (New York), published a minute ago: the soybeans sub-report
 * only (sr15), its columns renamed to last month and this month, the soybean meal 2026/27 ending
 * stocks of this month 100 above what the table's supply and use leave. Recent, so /status (which
 * lists the last year of releases) shows it whenever the suite runs.
 */
function inconsistentEdition(xml: string, now: Date): { xml: string; publishedAt: string; releaseDate: string } {
  const at = new Date(now.getTime() - 60_000);
  const ny = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', dateStyle: 'short' }).format(at);
  const [year, month] = ny.split('-').map(Number) as [number, number];
  const previous = MONTHS[(month + 10) % 12]!;
  const start = xml.indexOf('<sr15>');
  const end = xml.indexOf('</sr15>') + '</sr15>'.length;
  expect(start).toBeGreaterThan(0);
  let sr15 = xml
    .slice(start, end)
    .replace(/Report_Month="June 2026"/, `Report_Month="${MONTH_NAMES[month - 1]} ${year}"`)
    .replace(/(forecast_month\d=")May"/g, `$1${previous}"`)
    .replace(/(forecast_month\d=")June?"/g, `$1${MONTHS[month - 1]}"`);
  const meal =
    /(attribute6="Ending Stocks"[\s\S]*?market_year6="2026\/27 Proj\."[\s\S]*?market_year6="2026\/27 Proj\."[\s\S]*?cell_value6=")([\d,]+)(")/;
  const found = meal.exec(sr15);
  expect(found).not.toBeNull();
  const stocks = Number(found![2]!.replace(/,/g, '')) + 100;
  sr15 = sr15.replace(meal, `$1${stocks.toLocaleString('en-US')}$3`);
  const head = xml.slice(0, xml.indexOf('<sr12>'));
  return {
    xml: `${head}${sr15}</Report>\n`,
    publishedAt: at.toISOString(),
    releaseDate: ny,
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'supply-demand-e2e-'));
  e2e = await startE2E({ gateways: 1 });
  messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'supply-demand-e2e' });
  key = (await e2e.account('enterprise')).key;
  freeKey = (await e2e.account('free')).key;
  // the real June file (its release time from the WASDE calendar), then its corrected re-post
  const june = await backfill(JUNE_XML);
  expect(june.code, june.out).toBe(0);
  const repost = join(dir, 'wasde0626v2.xml');
  writeFileSync(repost, repostOf(JUNE_TEXT));
  const v2 = await backfill(repost, '--published-at', REPOST_AT);
  expect(v2.code, v2.out).toBe(0);
  // GOLD: a commodity with data but no balance sheets
  const cot = spawnIngest(
    ['backfill', '--source', 'cftc-legacy-combined', '--file', join(FIXTURES, 'cftc_legacy_combined_2026_excerpt.txt')],
    { natsUrl: e2e.infra.identities.nats.ingest },
  );
  const timer = setTimeout(() => cot.child.kill('SIGKILL'), INGEST_DEADLINE_MS);
  const cotRun = await cot.result.finally(() => clearTimeout(timer));
  expect(cotRun.code, cotRun.out).toBe(0);
  await eventually(
    'the June edition, its re-post, the world tables and the soybean products projected',
    async () => {
      const price = await e2e.get(`${SD('CORN')}?marketing_year=2026/27&attribute=avg_farm_price`, {
        key,
        validate: false,
      });
      if (price.status !== 200 || price.json.data[0]?.value !== REPOST_PRICE) return false;
      for (const [slug, region] of [
        ['CORN', 'world'],
        ['CORN', 'ukraine'],
        ['SOYBEANS', 'united_states'],
        ['SOYBEAN_OIL', 'united_states'],
        ['SOYBEAN_MEAL', 'united_states'],
      ] as const) {
        const res = await e2e.get(`${SD(slug)}?region=${region}&marketing_year=2024/25`, { key, validate: false });
        if (res.status !== 200 || res.json.data.length === 0) return false;
      }
      const gold = await e2e.get('/api/v1/commodities/GOLD', { key, validate: false });
      return gold.status === 200;
    },
    90_000,
  );
}, 240_000);

afterAll(async () => {
  await messaging?.close();
  await e2e?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('the test reads the XML itself', () => {
  it('finds the cells USDA published (US corn 2026/27 ending stocks: 1,957 in May, 1,960 in June)', () => {
    expect(xmlFigure('CORN', 'united_states', '2026/27', 'ending_stocks', 'may').value).toBe(1957);
    expect(xmlFigure('CORN', 'united_states', '2026/27', 'ending_stocks', 'june').value).toBe(1960);
    expect(xmlFigure('CORN', 'world', '2026/27', 'ending_stocks', 'june').value).toBe(281.22);
    expect(XML.filter((f) => f.commodity === 'SOYBEAN_OIL').length).toBeGreaterThan(20);
  });
});

describe('the served figures are the XML cells, in USDA units', () => {
  it('US corn 2026/27: ending stocks, area planted, yield, average farm price of the June edition', async () => {
    const res = await get(`${SD('CORN')}?marketing_year=2026/27&per_page=100`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.meta).toMatchObject({ commodity_id: 'CORN', region: 'united_states', view: 'figures' });
    expect(res.json.meta.attribution).toMatch(/USDA World Agricultural Outlook Board/);
    expect(res.json.meta.source).toMatch(/^wasde:/);
    const bushels = /^million bushels$/i;
    const ending = one(res, 'ending_stocks', bushels);
    expect(ending).toMatchObject({ value: 1960, edition: '2026-06', status: 'projection', region: 'united_states' });
    expect(Date.parse(ending.published_at)).toBe(JUNE_AT);
    // a backfilled file carries no release time: the WASDE calendar's, flagged estimated (docs/decisions.md)
    expect(ending.published_at_estimated).toBe(true);
    expect(Date.parse(ending.first_seen_at!)).toBeGreaterThan(JUNE_AT);
    expect(ending.failed_checks).toBeUndefined();
    for (const attribute of ['area_planted', 'yield']) {
      const xml = xmlFigure('CORN', 'united_states', '2026/27', attribute, 'june');
      const served = one(res, attribute);
      expect(served.value, attribute).toBe(xml.value);
      expect(served.unit, attribute).toMatch(xml.unit);
    }
    expect(one(res, 'area_planted').unit).toMatch(/^million acres$/i);
    // the price: the re-post's value, its unit as the row names it
    const price = one(res, 'avg_farm_price');
    expect(price).toMatchObject({ value: REPOST_PRICE, edition: '2026-06' });
    expect(price.unit).toMatch(PRICE_UNITS['$/bu']!);
    expect(Date.parse(price.published_at)).toBe(Date.parse(REPOST_AT));
    expect(price.published_at_estimated).toBeUndefined();
  });

  it('soybean oil in million pounds and soybean meal in tons, as their tables state them', async () => {
    for (const [slug, unit] of [
      ['SOYBEAN_OIL', /^million pounds$/i],
      ['SOYBEAN_MEAL', /tons/i],
      ['SOYBEANS', /^million bushels$/i],
    ] as const) {
      const res = await get(`${SD(slug)}?marketing_year=2026/27&attribute=ending_stocks`);
      expect(res.status, res.text).toBe(200);
      const served = one(res, 'ending_stocks');
      expect(served.unit, slug).toMatch(unit);
      expect(served.value, slug).toBe(xmlFigure(slug, 'united_states', '2026/27', 'ending_stocks', 'june').value);
    }
  });

  it('world corn: world, China, Ukraine, Brazil, Argentina in million metric tons, every marketing year', async () => {
    for (const region of ['world', 'china', 'ukraine', 'brazil', 'argentina']) {
      for (const [year, column] of [
        ['2024/25', 'only'],
        ['2025/26', 'only'],
        ['2026/27', 'june'],
      ] as const) {
        const res = await get(`${SD('CORN')}?region=${region}&marketing_year=${year}&attribute=ending_stocks`);
        expect(res.status, `${region} ${year}: ${res.text}`).toBe(200);
        const served = one(res, 'ending_stocks');
        expect(served.unit).toMatch(/^million metric tons$/i);
        expect(served.value, `${region} ${year}`).toBe(xmlFigure('CORN', region, year, 'ending_stocks', column).value);
        expect(served.region).toBe(region);
      }
    }
  });

  it('every figure of whole sheets: world corn 2025/26, and US corn 2025/26 (the US table and the world table row)', async () => {
    for (const region of ['world', 'united_states']) {
      const expected = sheetOf('CORN', region, '2025/26');
      expect(expected.length).toBeGreaterThan(6);
      const res = await get(`${SD('CORN')}?region=${region}&marketing_year=2025/26&per_page=100`);
      expect(res.status, res.text).toBe(200);
      const served = figures(res);
      expect(res.json.meta.total).toBe(res.json.data.length);
      const left = [...served];
      for (const f of expected) {
        const at = left.findIndex((s) => s.attribute === f.attribute && s.value === f.value && f.unit.test(s.unit));
        expect(
          at,
          `${region} 2025/26 ${f.attribute} ${f.value} (${String(f.unit)}) in ${JSON.stringify(left)}`,
        ).toBeGreaterThanOrEqual(0);
        expect(left[at]).toMatchObject({ marketing_year: '2025/26', status: 'estimate', edition: '2026-06' });
        left.splice(at, 1);
      }
      expect(left, `${region} 2025/26: served beyond the XML`).toEqual([]);
    }
  });

  it('available_series lists supply_demand for CORN, not for GOLD', async () => {
    const types = async (slug: string) =>
      ((await get(`/api/v1/commodities/${slug}`)).json.data.available_series as { type: string }[]).map((s) => s.type);
    expect(await types('CORN')).toContain('supply_demand');
    expect(await types('GOLD')).not.toContain('supply_demand');
  });
});

describe('editions are versions, nothing overwritten', () => {
  const ENDING = `${SD('CORN')}?marketing_year=2026/27&attribute=ending_stocks`;
  const PRICE = `${SD('CORN')}?marketing_year=2026/27&attribute=avg_farm_price`;
  const bushels = /^million bushels$/i;

  it('as_of before the June release: the May column as edition 2026-05, no 2024/25 or 2025/26 figures', async () => {
    const res = await get(`${SD('CORN')}?as_of=2026-06-01&per_page=100`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.meta.as_of).toBe('2026-06-01T23:59:59.999Z');
    const served = figures(res);
    expect(served.length).toBeGreaterThan(0);
    expect(new Set(served.map((f) => f.marketing_year))).toEqual(new Set(['2026/27']));
    for (const f of served) {
      expect(f.edition).toBe('2026-05');
      expect(Date.parse(f.published_at)).toBe(MAY_AT);
      expect(f.status).toBe('projection');
    }
    const may = XML.filter((f) => f.commodity === 'CORN' && f.region === 'united_states' && f.column === 'may');
    for (const f of may) {
      expect(
        served.some((s) => s.attribute === f.attribute && s.value === f.value && f.unit.test(s.unit)),
        `May ${f.attribute} ${f.value}`,
      ).toBe(true);
    }
    expect(one(res, 'ending_stocks', bushels).value).toBe(1957);
  });

  it('as_of after the June release gives June; between the release and the re-post, the price as first published', async () => {
    const after = await get(`${ENDING}&as_of=2026-06-11T16:00:00Z`);
    expect(one(after, 'ending_stocks', bushels)).toMatchObject({ value: 1960, edition: '2026-06' });
    const before = await get(`${ENDING}&as_of=2026-06-11T15:59:59Z`);
    expect(one(before, 'ending_stocks', bushels)).toMatchObject({ value: 1957, edition: '2026-05' });
    const between = await get(`${PRICE}&as_of=2026-06-12T12:00:00Z`);
    expect(between.status, between.text).toBe(200);
    // June confirmed May's 4.40: the version in force is May's until the re-post
    expect(one(between, 'avg_farm_price')).toMatchObject({ value: 4.4, edition: '2026-05' });
    const now = await get(PRICE);
    expect(one(now, 'avg_farm_price')).toMatchObject({ value: REPOST_PRICE, edition: '2026-06' });
  });

  it('the same file backfilled again changes nothing served', async () => {
    const path = `${SD('CORN')}?marketing_year=2026/27&include=revisions&per_page=100`;
    const before = (await get(path)).json.data as Figure[];
    const again = await backfill(JUNE_XML);
    expect(again.code, again.out).toBe(0);
    await projected();
    expect((await get(path)).json.data).toEqual(before);
  });

  it('first_release=true: each figure as first published', async () => {
    const res = await get(`${SD('CORN')}?marketing_year=2026/27&first_release=true&per_page=100`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.meta.first_release).toBe(true);
    expect(one(res, 'ending_stocks', bushels)).toMatchObject({ value: 1957, edition: '2026-05' });
    expect(one(res, 'avg_farm_price')).toMatchObject({ value: 4.4, edition: '2026-05' });
    const older = await get(`${SD('CORN')}?marketing_year=2025/26&attribute=ending_stocks&first_release=true`);
    expect(one(older, 'ending_stocks', bushels)).toMatchObject({ value: 2145, edition: '2026-06' });
  });

  it('include=revisions: the earlier versions with their edition; none yet as of before the re-post', async () => {
    const res = await get(`${PRICE}&include=revisions`);
    const price = one(res, 'avg_farm_price');
    expect(price.value).toBe(REPOST_PRICE);
    expect(price.revisions).toEqual([
      expect.objectContaining({ value: 4.4, edition: '2026-05', status: 'projection' }),
    ]);
    expect(Date.parse(price.revisions![0]!.published_at)).toBe(MAY_AT);
    const ending = one(await get(`${ENDING}&include=revisions`), 'ending_stocks', bushels);
    expect(ending.revisions).toEqual([expect.objectContaining({ value: 1957, edition: '2026-05' })]);
    const then = one(await get(`${PRICE}&include=revisions&as_of=2026-06-12T12:00:00Z`), 'avg_farm_price');
    expect(then.revisions ?? []).toEqual([]);
    // a figure never revised
    const older = one(
      await get(`${SD('CORN')}?marketing_year=2025/26&attribute=ending_stocks&include=revisions`),
      'ending_stocks',
      bushels,
    );
    expect(older.revisions ?? []).toEqual([]);
  });

  it('view=editions: one figure across the editions, oldest first, with its change', async () => {
    const res = await get(`${ENDING}&view=editions`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.meta.view).toBe('editions');
    const series = figures(res).filter((f) => bushels.test(f.unit));
    expect(series[0]).toMatchObject({ edition: '2026-05', value: 1957, change: null });
    expect(series[1]).toMatchObject({ edition: '2026-06', value: 1960, change: 3 });
    for (const later of series.slice(2)) expect(later).toMatchObject({ value: 1960, change: 0 });
    const times = series.map((f) => Date.parse(f.published_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // the world table's United States row: the same figure in million metric tons
    const tons = figures(res).filter((f) => /metric tons/i.test(f.unit));
    const may = xmlFigure('CORN', 'united_states', '2026/27', 'ending_stocks', 'may', /^million metric tons$/i);
    const june = xmlFigure('CORN', 'united_states', '2026/27', 'ending_stocks', 'june', /^million metric tons$/i);
    expect(tons[0]).toMatchObject({ edition: '2026-05', value: may.value, change: null });
    expect(tons[1]).toMatchObject({ edition: '2026-06', value: june.value });
    expect(tons[1]!.change).toBeCloseTo(june.value - may.value, 6);
    // the price across the re-post
    const price = figures(await get(`${PRICE}&view=editions`));
    expect(price.at(-1)).toMatchObject({ value: REPOST_PRICE, edition: '2026-06' });
    expect(price.at(-1)!.change).toBeCloseTo(REPOST_PRICE - 4.4, 6);
    expect(Date.parse(price.at(-1)!.published_at)).toBe(Date.parse(REPOST_AT));
  });

  it('stocks_to_use is derived: ending stocks / total use, labelled derived', async () => {
    const res = await get(`${SD('CORN')}?marketing_year=2026/27&attribute=stocks_to_use`);
    expect(res.status, res.text).toBe(200);
    const ratios = res.json.data as Figure[];
    expect(ratios.length).toBeGreaterThan(0);
    for (const r of ratios) expect(r.derived).toBe(true);
    const ending = xmlFigure('CORN', 'united_states', '2026/27', 'ending_stocks', 'june', /^million bushels$/i);
    const use = xmlFigure('CORN', 'united_states', '2026/27', 'use_total', 'june');
    expect(ratios.some((r) => Math.abs(r.value - ending.value / use.value) < 0.0001)).toBe(true);
    // and as of May, May's ratio
    const may = await get(`${SD('CORN')}?marketing_year=2026/27&attribute=stocks_to_use&as_of=2026-06-01`);
    const mayEnding = xmlFigure('CORN', 'united_states', '2026/27', 'ending_stocks', 'may', /^million bushels$/i);
    const mayUse = xmlFigure('CORN', 'united_states', '2026/27', 'use_total', 'may');
    expect((may.json.data as Figure[]).some((r) => Math.abs(r.value - mayEnding.value / mayUse.value) < 0.0001)).toBe(
      true,
    );
    // the figures view lists it beside the published rows
    const all = await get(`${SD('CORN')}?marketing_year=2026/27&per_page=100`);
    expect(
      figures(all, true)
        .filter((f) => f.attribute === 'stocks_to_use')
        .every((f) => f.derived === true),
    ).toBe(true);
  });
});

describe('bad input', () => {
  it('an unknown region, attribute or marketing year is a 400 naming it', async () => {
    expectError(await get(`${SD('CORN')}?region=atlantis`), 400, 'invalid_parameter', 'region');
    expectError(await get(`${SD('CORN')}?attribute=moon_dust`), 400, 'invalid_parameter', 'attribute');
    expectError(
      await get(`${SD('CORN')}?region=world&attribute=avg_farm_price`),
      400,
      'invalid_parameter',
      'attribute',
    );
    expectError(await get(`${SD('CORN')}?marketing_year=1999/00`), 400, 'invalid_parameter', 'marketing_year');
    const region = await get(`${SD('CORN')}?region=atlantis`);
    expect(region.json.error.message).toMatch(/world/);
  });

  it('a malformed marketing year, view or page, and view=editions without its figure, are 400s naming the parameter', async () => {
    for (const my of ['2026-27', '2026/28', '26/27', '2026/27x']) {
      expectError(
        await get(`${SD('CORN')}?marketing_year=${encodeURIComponent(my)}`),
        400,
        'invalid_parameter',
        'marketing_year',
      );
    }
    expectError(await get(`${SD('CORN')}?region=World`), 400, 'invalid_parameter', 'region');
    expectError(await get(`${SD('CORN')}?view=table`), 400, 'invalid_parameter', 'view');
    expectError(await get(`${SD('CORN')}?per_page=101`), 400, 'invalid_parameter', 'per_page');
    expectError(await get(`${SD('CORN')}?view=editions&marketing_year=2026/27`), 400, 'invalid_parameter', 'attribute');
    expectError(
      await get(`${SD('CORN')}?view=editions&attribute=ending_stocks`),
      400,
      'invalid_parameter',
      'marketing_year',
    );
    expectError(await get(`${SD('CORN')}?as_of=2026-13-01`), 400, 'invalid_parameter', 'as_of');
    // before the first edition held
    expectError(await get(`${SD('CORN')}?as_of=2026-05-01`), 400, 'invalid_parameter', 'as_of');
  });

  it('an unknown commodity, and one without balance sheets, are 404s', async () => {
    expectError(await get(SD('NOPE')), 404, 'not_found');
    const gold = await get(SD('GOLD'));
    expectError(gold, 404, 'not_found');
    expect(gold.json.error.message).toMatch(/CORN/);
  });

  it('an XML of an unknown layout or cut short: a clear CLI error naming the sub-report or the file, nothing stored', async () => {
    const before = await dataStreamState(messaging);
    const corn = (await get(`${SD('CORN')}?per_page=100`)).json;
    // a known sub-report whose years lost their attribute name
    const layout = join(dir, 'wasde0626.xml');
    const sr12 = JUNE_TEXT.slice(JUNE_TEXT.indexOf('<sr12>'), JUNE_TEXT.indexOf('</sr12>'));
    writeFileSync(
      layout,
      JUNE_TEXT.replace(sr12, () => sr12.replace(/market_year(\d)=/g, 'crop_year$1=')),
    );
    const unknown = await backfill(layout);
    expect(unknown.code, unknown.out).not.toBe(0);
    expect(unknown.out).toMatch(/sr12|Feed Grain and Corn/);
    expect(unknown.out).not.toMatch(/\n\s+at [^\s]+ \(?[^\s]*:\d+:\d+\)?/);
    // cut in the middle of a tag
    const cut = join(dir, 'wasde0626_cut.xml');
    writeFileSync(cut, JUNE_TEXT.slice(0, Math.floor(JUNE_TEXT.length / 2)));
    const truncated = await backfill(cut);
    expect(truncated.code, truncated.out).not.toBe(0);
    expect(truncated.out).toMatch(/wasde0626_cut\.xml/);
    expect(truncated.out).not.toMatch(/\n\s+at [^\s]+ \(?[^\s]*:\d+:\d+\)?/);
    // nothing reached the stream, nothing served changed
    expect(await dataStreamState(messaging)).toEqual(before);
    expect((await get(`${SD('CORN')}?per_page=100`)).json.data).toEqual(corn.data);
  });
});

describe('CSV and conditional GETs', () => {
  it('text/csv: the columns and the file name', async () => {
    const csv = { accept: 'text/csv' };
    const res = await get(`${SD('CORN')}?marketing_year=2026/27&attribute=ending_stocks`, key, csv);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const [head, ...rows] = res.text.split(/\r?\n/).filter((l) => l.length > 0);
    expect(head).toBe('marketing_year,region,attribute,value,unit,edition,status,derived');
    expect(
      rows.some((r) => /^2026\/27,united_states,ending_stocks,1960,Million Bushels,2026-06,projection,/i.test(r)),
    ).toBe(true);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="CORN-supply-demand-united_states-2026[-_]27-ending_stocks\.csv"$/,
    );
    const editions = await get(`${SD('CORN')}?marketing_year=2026/27&attribute=ending_stocks&view=editions`, key, csv);
    expect(editions.status, editions.text).toBe(200);
    expect(editions.text.split(/\r?\n/)[0]).toBe(
      'marketing_year,region,attribute,value,unit,edition,status,derived,change',
    );
    const world = await get(`${SD('CORN')}?region=world&page=2&per_page=5`, key, csv);
    expect(world.headers.get('content-disposition')).toBe('attachment; filename="CORN-supply-demand-world-page-2.csv"');
  });

  it('a matching ETag is a 304 (JSON and CSV each their own)', async () => {
    const path = `${SD('CORN')}?marketing_year=2026/27`;
    for (const accept of ['application/json', 'text/csv']) {
      const first = await get(path, key, { accept });
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag, accept).toMatch(/^"[^"]+"$/);
      for (let i = 0; i < 2; i += 1) {
        const again = await get(path, key, { accept, 'if-none-match': etag! });
        expect(again.status, accept).toBe(304);
        expect(again.text).toBe('');
        expect(again.headers.get('etag')).toBe(etag);
      }
    }
    const json = (await get(path, key, { accept: 'application/json' })).headers.get('etag')!;
    expect((await get(path, key, { accept: 'text/csv', 'if-none-match': json })).status).toBe(200);
  });
});

describe('plans', () => {
  it('Free reads the current figures; an as_of or a marketing year older than its window is historical_limit', async () => {
    const current = await get(SD('CORN'), freeKey);
    expect(current.status, current.text).toBe(200);
    expect(current.json.data.length).toBeGreaterThan(0);
    const longAgo = new Date(Date.now() - 400 * 86_400_000).toISOString().slice(0, 10);
    expectError(await get(`${SD('CORN')}?as_of=${longAgo}`, freeKey), 403, 'historical_limit', 'as_of');
    const year = new Date().getUTCFullYear() - 4;
    const old = `${year}/${String((year + 1) % 100).padStart(2, '0')}`;
    expectError(await get(`${SD('CORN')}?marketing_year=${old}`, freeKey), 403, 'historical_limit', 'marketing_year');
    // inside the window: the plan lets them through (the data answers: a year it lacks is the query's 400)
    const recent = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const inWindow = await get(`${SD('CORN')}?as_of=${recent}`, freeKey);
    expect(inWindow.status, inWindow.text).toBe(200);
    const thisYear = new Date().getUTCFullYear();
    const latest = await get(
      `${SD('CORN')}?marketing_year=${thisYear}/${String((thisYear + 1) % 100).padStart(2, '0')}`,
      freeKey,
    );
    if (latest.status !== 200) expectError(latest, 400, 'invalid_parameter', 'marketing_year');
    // the same years are the query's to answer for a paid plan: this data has none that old
    expectError(await get(`${SD('CORN')}?marketing_year=${old}`), 400, 'invalid_parameter', 'marketing_year');
  });
});

describe('consistency on ingest', () => {
  it('a balance sheet that does not add up is stored, served with failed_checks and listed on /status', async () => {
    const edition = inconsistentEdition(JUNE_TEXT, new Date());
    const file = join(dir, 'wasde_inconsistent.xml');
    writeFileSync(file, edition.xml);
    const run = await backfill(file, '--published-at', edition.publishedAt);
    expect(run.code, run.out).toBe(0);
    let meal: Figure | undefined;
    await eventually(
      'the inconsistent edition projected',
      async () => {
        const res = await e2e.get(`${SD('SOYBEAN_MEAL')}?marketing_year=2026/27&attribute=ending_stocks`, {
          key,
          validate: false,
        });
        meal = (res.json?.data as Figure[] | undefined)?.[0];
        return meal !== undefined && Date.parse(meal.published_at) === Date.parse(edition.publishedAt);
      },
      60_000,
    );
    const june = xmlFigure('SOYBEAN_MEAL', 'united_states', '2026/27', 'ending_stocks', 'june');
    expect(meal).toMatchObject({ value: june.value + 100, failed_checks: ['supply_equals_use_plus_ending_stocks'] });
    // validated as served
    const served = one(
      await get(`${SD('SOYBEAN_MEAL')}?marketing_year=2026/27&attribute=ending_stocks`),
      'ending_stocks',
    );
    expect(served.failed_checks).toEqual(['supply_equals_use_plus_ending_stocks']);
    // the oil sheet of the same edition adds up
    const oil = one(await get(`${SD('SOYBEAN_OIL')}?marketing_year=2026/27&attribute=ending_stocks`), 'ending_stocks');
    expect(oil.failed_checks).toBeUndefined();
    // the real June sheet before it: unflagged, and still there as of then
    const before = await get(
      `${SD('SOYBEAN_MEAL')}?marketing_year=2026/27&attribute=ending_stocks&as_of=${encodeURIComponent(REPOST_AT)}`,
    );
    expect(one(before, 'ending_stocks')).toMatchObject({ value: june.value });
    expect(one(before, 'ending_stocks').failed_checks).toBeUndefined();
    const validate = createOpenApiResponseValidator();
    let day: Record<string, unknown> | undefined;
    await eventually(
      '/status lists the sheet',
      async () => {
        const res = await fetch(`${e2e.gatewayUrl()}/api/v1/status`, {
          headers: { authorization: `Bearer ${key}` },
          signal: AbortSignal.timeout(10_000),
        });
        const text = await res.text();
        const h: Record<string, string> = {};
        res.headers.forEach((v, k) => (h[k] = v));
        validate('/status', { statusCode: res.status, headers: h, body: text });
        const days = (JSON.parse(text).data.consistency ?? []) as Record<string, unknown>[];
        day = days.find((d) => d.dataset === 'supply_demand' && d.date === edition.releaseDate);
        return day !== undefined;
      },
      60_000,
    );
    expect(day).toMatchObject({ failed_reports: 1, commodities: ['SOYBEAN_MEAL'] });
    expect((day!.checks as Record<string, number>).supply_equals_use_plus_ending_stocks).toBe(1);
  });
});
