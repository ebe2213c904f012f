// COT analytics (issue #13, first part) and COT in full (issue #38) through the real pipeline: the
// CFTC's own annual files, rows byte-for-byte as published (futures-only legacy 2025 and
// disaggregated 2021 from the machine's shared real excerpts, REAL below; the legacy
// futures-and-options combined 2026 and the CIT supplement 2024 in services/ingest/test/fixtures)
// -> ingest -> NATS -> projector -> FerretDB -> query -> gateway. For every report whose previous
// week is in the file, `changes` must equal the CFTC's "Change in …" columns exactly; for every
// report, `pct_of_oi` must equal its "% of OI …" columns (one decimal, as the CFTC prints them):
// the CIT file's own header, typos and a trailing space included. The expected values are read
// from the files here, by the test, not through the product's parser.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG, createPublisher, getCommodity, runIngest } from '@cds/ingest';
import {
  parseCftcCitCsv,
  parseCftcCotCsv,
  parseCftcLegacyCombinedCsv,
  parseCftcLegacyCsv,
} from '@cds/ingest/sources/cftc';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startE2E, type E2E } from './support/harness.ts';

const REAL = '/work/shared/fixtures/real';
const OURS = join(import.meta.dirname, '../services/ingest/test/fixtures');
const LEGACY_FILE = 'cftc_legacy_fut_annual_2025_excerpt.txt';
const DISAGG_FILE = 'cftc_disagg_fut_f_year_2021_excerpt.txt';
const COMBINED_FILE = 'cftc_legacy_combined_2026_excerpt.txt';
const CIT_FILE = 'cftc_cit_2024_excerpt.txt';
const COMMODITIES = ['WHEAT_SRW', 'CORN', 'SOYBEANS', 'NATURAL_GAS', 'CRUDE_OIL_WTI', 'GOLD'] as const;
/** The markets each of the two new excerpts holds five weeks of. */
const COMBINED_COMMODITIES = ['WHEAT_SRW', 'CORN', 'CRUDE_OIL_WTI', 'GOLD', 'LIVE_CATTLE'] as const;
const CIT_COMMODITIES = ['WHEAT_SRW', 'CORN', 'LIVE_CATTLE', 'SUGAR'] as const;

/** A minimal RFC 4180 line splitter (quoted fields may hold commas), for the test's own reading. */
function splitLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

type Row = Map<string, string>;
function readRows(file: string, dir = REAL): Row[] {
  const lines = readFileSync(join(dir, file), 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);
  const header = splitLine(lines[0]!).map((h) => h.trim());
  return lines.slice(1).map((l) => new Map(splitLine(l).map((v, i) => [header[i]!, v.trim()])));
}

const int = (row: Row, column: string) => {
  const v = row.get(column);
  if (v === undefined || !/^-?\d+$/.test(v)) throw new Error(`column ${column}: ${v}`);
  return Number(v);
};
const num = (row: Row, column: string) => {
  const v = row.get(column);
  if (v === undefined || !/^-?\d+(\.\d+)?$/.test(v)) throw new Error(`column ${column}: ${v}`);
  return Number(v);
};

/** Our group → the CFTC's column stems for change and percent, per format. */
const LEGACY_GROUPS = {
  commercial: { change: 'Change in Commercial-%s (All)', pct: '% of OI-Commercial-%s (All)', spreading: false },
  non_commercial: {
    change: 'Change in Noncommercial-%s (All)',
    pct: '% of OI-Noncommercial-%s (All)',
    spreading: true,
  },
  non_reportable: {
    change: 'Change in Nonreportable-%s (All)',
    pct: '% of OI-Nonreportable-%s (All)',
    spreading: false,
  },
};
const DISAGG_GROUPS = {
  producer_merchant: { change: 'Change_in_Prod_Merc_%s_All', pct: 'Pct_of_OI_Prod_Merc_%s_All', spreading: false },
  swap_dealer: { change: 'Change_in_Swap_%s_All', pct: 'Pct_of_OI_Swap_%s_All', spreading: true },
  managed_money: { change: 'Change_in_M_Money_%s_All', pct: 'Pct_of_OI_M_Money_%s_All', spreading: true },
  other_reportable: { change: 'Change_in_Other_Rept_%s_All', pct: 'Pct_of_OI_Other_Rept_%s_All', spreading: true },
};
/**
 * The CIT supplement's columns, as the CFTC spells them: its change of non-commercial spreading is
 * `Change_NonComm_Spead_All_NoCIT` and its commercial short change has a trailing space inside its
 * quotes (the reader trims header names), while its percent columns spell Spread.
 */
const CIT_GROUPS = {
  commercial: { change: 'Change_Comm_%s_All_NoCIT', pct: 'Pct_OI_Comm_%s_All_NoCIT', spreading: false },
  non_commercial: { change: 'Change_NonComm_%s_All_NoCIT', pct: 'Pct_OI_NonComm_%s_All_NoCIT', spreading: true },
  index_traders: { change: 'Change_CIT_%s_All', pct: 'Pct_OI_CIT_%s_All', spreading: false },
  non_reportable: { change: 'Change_NonRept_%s_All', pct: 'Pct_OI_NonRept_%s_All_NoCIT', spreading: false },
};
const LEGACY_SIDES = { long: 'Long', short: 'Short', spreading: 'Spreading' };
/** Per dataset: its file, how the file names date and code, its groups' columns, the request's query. */
const DATASETS = {
  legacy: {
    file: LEGACY_FILE,
    dir: REAL,
    commodities: COMMODITIES,
    query: 'format=legacy',
    oi: 'Open Interest (All)',
    date: 'As of Date in Form YYYY-MM-DD',
    code: 'CFTC Contract Market Code',
    oiChange: 'Change in Open Interest (All)',
    groups: LEGACY_GROUPS,
    sides: LEGACY_SIDES,
    pctSides: LEGACY_SIDES,
  },
  disaggregated: {
    file: DISAGG_FILE,
    dir: REAL,
    commodities: COMMODITIES,
    query: 'format=disaggregated',
    oi: 'Open_Interest_All',
    date: 'Report_Date_as_YYYY-MM-DD',
    code: 'CFTC_Contract_Market_Code',
    oiChange: 'Change_in_Open_Interest_All',
    groups: DISAGG_GROUPS,
    sides: { long: 'Long', short: 'Short', spreading: 'Spread' },
    pctSides: { long: 'Long', short: 'Short', spreading: 'Spread' },
  },
  legacy_combined: {
    file: COMBINED_FILE,
    dir: OURS,
    commodities: COMBINED_COMMODITIES,
    query: 'format=legacy&scope=futures_and_options',
    oi: 'Open Interest (All)',
    date: 'As of Date in Form YYYY-MM-DD',
    code: 'CFTC Contract Market Code',
    oiChange: 'Change in Open Interest (All)',
    groups: LEGACY_GROUPS,
    sides: LEGACY_SIDES,
    pctSides: LEGACY_SIDES,
  },
  cit: {
    file: CIT_FILE,
    dir: OURS,
    commodities: CIT_COMMODITIES,
    query: 'format=cit',
    oi: 'Open_Interest_All',
    date: 'As_of_Date_In_Form_YYYY-MM-DD',
    code: 'CFTC_Contract_Market_Code',
    oiChange: 'Change_Open_Interest_All',
    groups: CIT_GROUPS,
    sides: { long: 'Long', short: 'Short', spreading: 'Spead' },
    pctSides: { long: 'Long', short: 'Short', spreading: 'Spread' },
  },
} as const;
type DatasetName = keyof typeof DATASETS;

/**
 * The one published percent (of 607 in the two files) that no rounding of the published counts
 * gives: WHEAT-SRW, 2021-03-16, producer/merchant long 31,644 of open interest 419,121 is
 * 7.55009 %, which the CFTC prints as 7.5; one decimal half away from zero (and any round-to-nearest)
 * gives 7.6. Every other cell matches exactly (docs/decisions.md, "COT analytics").
 */
const CFTC_PCT_EXCEPTIONS: Record<string, { cftc: number; ours: number }> = {
  'disaggregated 001602 2021-03-16 producer_merchant.long': { cftc: 7.5, ours: 7.6 },
};

const daysBefore = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

let e2e: E2E;
let messaging: Messaging;
let key: string;
let publisher: ReturnType<typeof createPublisher>;

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'cot-analytics-e2e' });
  key = (await e2e.account('enterprise')).key;
  publisher = createPublisher({ js: messaging.js });
  const catalog = [...new Set([...COMMODITIES, ...COMBINED_COMMODITIES, ...CIT_COMMODITIES])].map(
    (id) => getCommodity(id)!.entry,
  );
  const files = [
    ['legacy', (b: Buffer, file: string) => parseCftcCotCsv([b], { catalog: CATALOG, file, format: 'legacy' })],
    [
      'disaggregated',
      (b: Buffer, file: string) => parseCftcCotCsv([b], { catalog: CATALOG, file, format: 'disaggregated' }),
    ],
    ['legacy_combined', (b: Buffer, file: string) => parseCftcLegacyCombinedCsv([b], { catalog: CATALOG, file })],
    ['cit', (b: Buffer, file: string) => parseCftcCitCsv([b], { catalog: CATALOG, file })],
  ] as const;
  for (const [dataset, parse] of files) {
    const d = DATASETS[dataset];
    const summary = await runIngest({
      // the CFTC's own file names: the legacy header cannot tell a combined file from a futures-only one
      items: parse(readFileSync(join(d.dir, d.file)), dataset === 'legacy_combined' ? 'annualof.txt' : d.file),
      publisher,
      catalog,
      source: `cftc-${dataset}:annual`,
    });
    expect(summary.eventsPublished, dataset).toBeGreaterThan(0);
  }
  await eventually(
    'every report projected',
    async () => {
      for (const d of Object.values(DATASETS)) {
        for (const id of d.commodities) {
          const res = await e2e.get(`/api/v1/commodities/${id}/cot?${d.query}`, { key, validate: false });
          if (res.status !== 200 || res.json.meta.total !== 5) return false;
        }
      }
      return true;
    },
    120_000,
  );
}, 180_000);

afterAll(async () => {
  await messaging?.close();
  await e2e?.stop();
});

type Json = Record<string, unknown>;

for (const dataset of Object.keys(DATASETS) as DatasetName[]) {
  describe(`${dataset}: the CFTC's own change and % of OI columns`, () => {
    it('changes equal "Change in …" exactly for every report whose previous week is present; pct_of_oi equals "% of OI …"', async () => {
      const f = DATASETS[dataset];
      const rows = readRows(f.file, f.dir);
      let comparedChanges = 0;
      let comparedPct = 0;
      // The CFTC computes a combined report's changes and percents from the delta-adjusted options
      // positions before it rounds them, so the difference of two published (rounded) figures can
      // be one contract from its change column, and a percent 0.1 from its own: exact for futures
      // only, within one unit for the combined reports and the CIT supplement (docs/decisions.md).
      const slack = dataset === 'legacy' || dataset === 'disaggregated' ? 0 : 1;
      let offCells = 0;
      for (const id of f.commodities) {
        const code = getCommodity(id)!.entry.identifiers!.cftc_contract_codes[0]!;
        const mine = rows.filter((r) => r.get(f.code) === code);
        expect(mine.length, `${id} rows`).toBe(5);
        const dates = new Set(mine.map((r) => r.get(f.date)!));
        // every answer is validated against the OpenAPI document by the harness
        const res = await e2e.get(`/api/v1/commodities/${id}/cot?${f.query}&include=changes,pct_of_oi&sort_order=asc`, {
          key,
        });
        expect(res.status, res.text).toBe(200);
        const reports = res.json.data as Json[];
        expect(reports.map((r) => r.report_date)).toEqual([...dates].sort());
        // one scope per answer, each report saying which
        const scope = dataset === 'legacy' || dataset === 'disaggregated' ? 'futures_only' : 'futures_and_options';
        expect(new Set(reports.map((r) => r.scope))).toEqual(new Set([scope]));
        for (const report of reports) {
          const row = mine.find((r) => r.get(f.date) === report.report_date)!;
          const label = `${id} ${dataset} ${String(report.report_date)}`;
          expect(report.open_interest, `${label} open_interest`).toBe(int(row, f.oi));
          // percent of open interest: every report
          const pct = report.pct_of_oi as Record<string, Record<string, number>>;
          for (const [group, cols] of Object.entries(f.groups)) {
            const sides = cols.spreading ? (['long', 'short', 'spreading'] as const) : (['long', 'short'] as const);
            const expected: Record<string, number> = Object.fromEntries(
              sides.map((s) => [s, num(row, cols.pct.replace('%s', f.pctSides[s]))]),
            );
            const known = CFTC_PCT_EXCEPTIONS[`${dataset} ${code} ${String(report.report_date)} ${group}.long`];
            if (known !== undefined) {
              // the CFTC's printed figure, and ours by the stated rule, for the one cell they differ
              expect(expected.long).toBe(known.cftc);
              expected.long = known.ours;
            }
            if (slack === 0) expect(pct[group], `${label} pct_of_oi.${group}`).toEqual(expected);
            else {
              for (const side of sides) {
                const off = Math.abs(pct[group]![side]! - expected[side]!);
                expect(off, `${label} pct_of_oi.${group}.${side}`).toBeLessThan(0.1001);
                if (off > 0) offCells += 1;
              }
            }
            comparedPct += 1;
          }
          // changes: only where the previous week is in the file (the first report here has none
          // before it in the read side either, so it carries no changes)
          if (!dates.has(daysBefore(String(report.report_date), 7))) {
            expect(report.changes, `${label} changes`).toBeUndefined();
            continue;
          }
          const changes = report.changes as Record<string, Record<string, number>> & { open_interest: number };
          const near = (ours: number, cftc: number, what: string) => {
            expect(Math.abs(ours - cftc), `${label} ${what}: ours ${ours}, the CFTC's ${cftc}`).toBeLessThanOrEqual(
              slack,
            );
            if (ours !== cftc) offCells += 1;
          };
          near(changes.open_interest, int(row, f.oiChange), 'changes.open_interest');
          for (const [group, cols] of Object.entries(f.groups)) {
            const sides = cols.spreading ? (['long', 'short', 'spreading'] as const) : (['long', 'short'] as const);
            for (const side of sides) {
              near(
                changes[group]![side]!,
                int(row, cols.change.replace('%s', f.sides[side])),
                `changes.${group}.${side}`,
              );
            }
            expect(changes[group]!.net, `${label} changes.${group}.net`).toBe(
              changes[group]!.long! - changes[group]!.short!,
            );
            comparedChanges += 1;
          }
        }
      }
      const groups = Object.keys(f.groups).length;
      expect(comparedPct).toBe(f.commodities.length * 5 * groups);
      expect(comparedChanges).toBe(f.commodities.length * 4 * groups);
      // combined reports: most cells exact, the rest one contract (or 0.1 point) apart
      console.log(`${dataset}: ${offCells} cells one unit from the CFTC's change or percent column`);
      if (slack > 0) expect(offCells).toBeLessThan((comparedPct + comparedChanges) * 3);
    });
  });
}

describe('through the gateway', () => {
  it('changes reach back past the page and the dates; cot_index is absent with fewer than index_weeks reports', async () => {
    const path = '/api/v1/commodities/GOLD/cot';
    const all = (await e2e.get(`${path}?include=changes&sort_order=asc`, { key })).json.data as Json[];
    const paged = await e2e.get(`${path}?include=changes&sort_order=asc&per_page=1&page=3`, { key });
    expect(paged.json.data).toEqual([all[2]]);
    const dated = await e2e.get(`${path}?include=changes&start_date=${String(all[4]!.report_date)}`, { key });
    expect(dated.json.data).toEqual([all[4]]);
    expect(all[4]!.changes).toBeDefined();
    const index = await e2e.get(`${path}?include=cot_index&index_weeks=26`, { key });
    expect((index.json.data as Json[]).every((r) => r.cot_index === undefined)).toBe(true);
  });
  it('without include the answer is what it was; the gateway cache keeps the variants apart; bad values are 400', async () => {
    const path = '/api/v1/commodities/GOLD/cot';
    const plain = await e2e.get(path, { key });
    const withPct = await e2e.get(`${path}?include=pct_of_oi`, { key });
    const plainAgain = await e2e.get(path, { key });
    expect(Object.keys((plainAgain.json.data as Json[])[0]!)).not.toContain('pct_of_oi');
    expect(plainAgain.json.data).toEqual(plain.json.data);
    expect((withPct.json.data as Json[])[0]!.pct_of_oi).toBeDefined();
    const bad = await e2e.get(`${path}?include=changes,bogus`, { key });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'invalid_parameter', param: 'include' });
    const weeks = await e2e.get(`${path}?include=cot_index&index_weeks=600`, { key });
    expect(weeks.status).toBe(400);
    expect(weeks.json.error).toMatchObject({ code: 'invalid_parameter', param: 'index_weeks' });
  });
});

describe('COT in full through the gateway (issue #38)', () => {
  const reportDates = (res: { json: { data: Json[] } }) => res.json.data.map((r) => r.report_date);

  it('scopes never mix: the default answer is futures only, scope=futures_and_options the combined reports', async () => {
    const path = '/api/v1/commodities/CORN/cot';
    const plain = await e2e.get(path, { key });
    const futuresOnly = await e2e.get(`${path}?scope=futures_only`, { key });
    const combined = await e2e.get(`${path}?scope=futures_and_options`, { key });
    expect(futuresOnly.json.data).toEqual(plain.json.data);
    expect(reportDates(plain).every((d) => String(d).startsWith('2025-'))).toBe(true);
    expect(reportDates(combined).every((d) => String(d).startsWith('2026-'))).toBe(true);
    expect((plain.json.data as Json[]).every((r) => r.scope === 'futures_only')).toBe(true);
    // the combined open interest is the file's, not the futures-only one's
    expect((combined.json.data as Json[])[0]).toMatchObject({ report_date: '2026-03-03', open_interest: 2018287 });
  });

  it('CSV: a scope column after format only in a combined or CIT answer, the dataset in the file name', async () => {
    const csv = { accept: 'text/csv' };
    const plain = await e2e.get('/api/v1/commodities/CORN/cot', { key, headers: csv });
    expect(plain.text.split('\r\n')[0]!.startsWith('report_date,commodity,format,exchange,open_interest,')).toBe(true);
    const combined = await e2e.get('/api/v1/commodities/CORN/cot?scope=futures_and_options', { key, headers: csv });
    expect(combined.status).toBe(200);
    const [head, first] = combined.text.split('\r\n');
    expect(head!.startsWith('report_date,commodity,format,scope,exchange,open_interest,')).toBe(true);
    expect(first!.startsWith('2026-03-03,CORN,legacy,futures_and_options,')).toBe(true);
    expect(combined.headers.get('content-disposition')).toBe('attachment; filename="CORN-cot-legacy_combined.csv"');
    const cit = await e2e.get('/api/v1/commodities/SUGAR/cot?format=cit&include=changes', { key, headers: csv });
    expect(cit.text.split('\r\n')[0]).toMatch(
      /^report_date,commodity,format,scope,exchange,open_interest,commercial_long,.*index_traders_long,.*changes_index_traders_net/,
    );
  });

  it('available_series says which markets have the CIT supplement; a market outside it is a 404, cit futures-only a 400', async () => {
    const types = async (id: string) =>
      ((await e2e.get(`/api/v1/commodities/${id}`, { key })).json.data.available_series as Json[]).map((s) => s.type);
    expect(await types('CORN')).toEqual(expect.arrayContaining(['cot_legacy', 'cot_legacy_combined', 'cot_cit']));
    expect(await types('GOLD')).toEqual(expect.arrayContaining(['cot_legacy', 'cot_legacy_combined']));
    expect(await types('GOLD')).not.toContain('cot_cit');
    const gold = await e2e.get('/api/v1/commodities/GOLD/cot?format=cit', { key });
    expect(gold.status).toBe(404);
    expect(gold.json.error).toMatchObject({ code: 'not_found', param: 'format' });
    const wrongScope = await e2e.get('/api/v1/commodities/CORN/cot?format=cit&scope=futures_only', { key });
    expect(wrongScope.status).toBe(400);
    expect(wrongScope.json.error).toMatchObject({ code: 'invalid_parameter', param: 'scope' });
    const unknown = await e2e.get('/api/v1/commodities/CORN/cot?scope=options_only', { key });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'invalid_parameter', param: 'scope' });
  });

  it('plans: cit and legacy combined with Professional, disaggregated combined with Business, no COT for Free', async () => {
    const professional = (await e2e.account('professional')).key;
    const free = (await e2e.account('free')).key;
    expect((await e2e.get('/api/v1/commodities/CORN/cot?format=cit', { key: professional })).status).toBe(200);
    expect(
      (await e2e.get('/api/v1/commodities/CORN/cot?scope=futures_and_options', { key: professional })).status,
    ).toBe(200);
    const disaggregated = await e2e.get('/api/v1/commodities/CORN/cot?format=disaggregated&scope=futures_and_options', {
      key: professional,
    });
    expect(disaggregated.status).toBe(403);
    expect(disaggregated.json.error.code).toBe('forbidden');
    expect((await e2e.get('/api/v1/commodities/CORN/cot?format=cit', { key: free })).status).toBe(403);
  });

  it('a futures-only report above its combined one is stored, served with failed_checks and listed on /status', async () => {
    // GOLD 2026-03-03 as a futures-only file would carry it, its open interest (All and Old) 1,000
    // above the combined report's: the combined report cannot count fewer contracts.
    const lines = readFileSync(join(OURS, COMBINED_FILE), 'utf8').split(/\r\n/);
    const header = splitLine(lines[0]!).map((h) => h.trim());
    const gold = lines.find((l) => l.startsWith('"GOLD') && l.includes(',2026-03-03,'))!;
    const cells = splitLine(gold);
    for (const column of ['Open Interest (All)', 'Open Interest (Old)']) {
      const at = header.indexOf(column);
      cells[at] = String(Number(cells[at]!.trim()) + 1000);
    }
    const edited = `${lines[0]}\r\n${cells.map((c, i) => (i === 0 ? `"${c}"` : c)).join(',')}\r\n`;
    const summary = await runIngest({
      items: parseCftcLegacyCsv([Buffer.from(edited)], { catalog: CATALOG, file: 'annual.txt' }),
      publisher,
      catalog: [getCommodity('GOLD')!.entry],
      source: 'cftc-legacy:annual',
    });
    expect(summary.eventsPublished).toBeGreaterThan(0);
    let report: Json | undefined;
    await eventually(
      'the edited report projected',
      async () => {
        const res = await e2e.get('/api/v1/commodities/GOLD/cot?start_date=2026-03-03', { key });
        report = (res.json.data as Json[])[0];
        return report?.report_date === '2026-03-03';
      },
      60_000,
    );
    expect(report).toMatchObject({ scope: 'futures_only', open_interest: 699876 + 1000 });
    expect(report!.failed_checks).toContain('combined_oi_at_least_futures_only');
    let day: Json | undefined;
    await eventually(
      '/status lists the failure',
      async () => {
        const status = await e2e.get('/api/v1/status', { key });
        const days = (status.json.data.consistency ?? []) as Json[];
        day = days.find((d) => d.dataset === 'cot_legacy' && d.date === '2026-03-03');
        return day !== undefined;
      },
      60_000,
    );
    expect(day).toMatchObject({ failed_reports: 1, commodities: ['GOLD'] });
    expect((day!.checks as Record<string, number>).combined_oi_at_least_futures_only).toBe(1);
  });
});
