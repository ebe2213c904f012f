import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CitCotRecord, LegacyCotRecord } from '@cds/contracts';
import { collect, ownFixturePath, rawCotRows, realFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { CATALOG } from '../registry.ts';
import { createParseStats, type ParseStats } from '../common/stats.ts';
import type { CotItem, RejectedItem, SourceItem } from '../types.ts';
import { cftc } from './index.ts';
import { parseCftcCitCsv, parseCftcCotCsv, parseCftcLegacyCombinedCsv, parseCftcLegacyCsv } from './parse-annual.ts';
import { parseCftcSocrataJson } from './parse-socrata.ts';

// The real excerpts (test/fixtures/README.md): the legacy futures-and-options combined annualof.txt
// of 2026 and the CIT supplement's annualci.txt of 2024, both CRLF; the futures-only ones (kept outside).
const COMBINED = ownFixturePath('cftc_legacy_combined_2026_excerpt.txt');
const CIT = ownFixturePath('cftc_cit_2024_excerpt.txt');
const LEGACY_FUT = realFixturePath('cftc_legacy_fut_annual_2025_excerpt.txt');
const DISAGG_FUT = realFixturePath('cftc_disagg_fut_f_year_2021_excerpt.txt');

const cots = (items: SourceItem[]) => items.filter((i): i is CotItem => i.kind === 'cot');
const rejections = (items: SourceItem[]) => items.filter((i): i is RejectedItem => i.kind === 'rejected');
const int = (s: string | undefined) => Number(s!.trim().replace(/^"|"$/g, ''));
const text = (path: string) => readFileSync(path, 'utf8');
const input = (name: string) => cftc.inputs.find((i) => i.name === name)!;

/** Parses `body` as the input `name` reads a file called `file`. */
async function open(name: string, body: string, file: string, stats: ParseStats = createParseStats()) {
  const items = input(name).file.open([body] as never, { file, stats, catalog: CATALOG });
  return collect(items instanceof Promise ? await items : items);
}

/** The fields of a CSV line with their raw text (quotes and padding kept). */
function rawFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** `body` with the cell `column` of the line `line` (1-based) set to `value`, padded as the CFTC pads. */
function editCell(body: string, line: number, column: string, value: (raw: string) => string): string {
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const lines = body.split(eol);
  const header = rawFields(lines[0]!).map((h) => h.replace(/^"|"$/g, ''));
  const at = header.indexOf(column);
  if (at === -1) throw new Error(`no column ${column}`);
  const fields = rawFields(lines[line - 1]!);
  fields[at] = value(fields[at]!).padStart(fields[at]!.length);
  lines[line - 1] = fields.join(',');
  return lines.join(eol);
}
const plus = (n: number) => (raw: string) => String(Number(raw.trim()) + n);

describe('CFTC legacy futures-and-options combined annual file (annualof.txt, real excerpt)', () => {
  it('reads every catalog row as a combined report, every group equal to its cells, and skips the market outside the catalog', async () => {
    const stats = createParseStats();
    const items = await open('cftc-legacy-combined', text(COMBINED), 'annualof.txt', stats);
    expect(stats).toMatchObject({ rows: 31, emitted: 29, rejected: 0, skipped: 2 });
    expect(stats.skippedByReason).toEqual({ unknown_commodity: 2 }); // 005606 SOYBEAN CSO
    // no open interest point: only the futures-only legacy report feeds that series
    expect(items.every((i) => i.kind === 'cot')).toBe(true);

    const { header, rows } = rawCotRows(COMBINED);
    const col = (name: string) => header.indexOf(name);
    const catalogRows = rows.filter((r) => r.cells[3] !== '005606');
    const out = cots(items);
    expect(out).toHaveLength(catalogRows.length);
    for (const [i, raw] of catalogRows.entries()) {
      const item = out[i]!;
      if (item.format !== 'legacy') throw new Error('expected legacy');
      const c = (name: string) => int(raw.cells[col(name)]);
      expect(item.scope).toBe('futures_and_options');
      expect(item.source).toBe(`cftc:legacy_combined:${raw.cells[3]}`);
      const r = item.record;
      expect(LegacyCotRecord.parse(r)).toEqual(r);
      expect(r.report_date).toBe(raw.cells[col('As of Date in Form YYYY-MM-DD')]);
      expect(r.contract_code).toBe(raw.cells[col('CFTC Contract Market Code')]); // unquoted in this file
      expect(r.open_interest).toBe(c('Open Interest (All)'));
      expect(r.commercial).toEqual({
        long: c('Commercial Positions-Long (All)'),
        short: c('Commercial Positions-Short (All)'),
      });
      expect(r.non_commercial).toEqual({
        long: c('Noncommercial Positions-Long (All)'),
        short: c('Noncommercial Positions-Short (All)'),
        spreading: c('Noncommercial Positions-Spreading (All)'),
      });
      expect(r.non_reportable).toEqual({
        long: c('Nonreportable Positions-Long (All)'),
        short: c('Nonreportable Positions-Short (All)'),
      });
      // every real row is within 1 contract per figure (the two orange juice rows are off by exactly
      // 1); the noncommercial columns of the crop-year markets add up as long + spreading, within 2
      // (SOYBEAN OIL 2026-02-17: long +38,261, spreading -38,259, two roundings)
      expect(r.failed_checks, `${item.commodity_id} ${r.report_date}`).toBeUndefined();
    }
    expect(stats.failedChecks).toBeUndefined();
    // the spot check: WHEAT-SRW 2026-02-03, as the file states it
    expect(out.find((i) => i.commodity_id === 'WHEAT_SRW' && i.record.report_date === '2026-02-03')).toMatchObject({
      format: 'legacy',
      scope: 'futures_and_options',
      record: { contract_code: '001602', open_interest: 612046, exchange: 'CBOT' },
    });
  });

  it('reads the same rows with LF line endings', async () => {
    const crlf = text(COMBINED);
    expect(crlf).toContain('\r\n');
    const a = await open('cftc-legacy-combined', crlf, 'annualof.txt');
    const b = await open('cftc-legacy-combined', crlf.replace(/\r\n/g, '\n'), 'annualof.txt');
    expect(b).toEqual(a);
  });

  describe('the row check old_plus_other_equals_all', () => {
    // 040701 ORANGE JUICE 2026-02-03: open interest Old 10,081 + Other 16 = 10,097 against All 10,098
    const OJ =
      text(COMBINED)
        .split('\r\n')
        .findIndex((l) => l.includes(',2026-02-03,040701,')) + 1;
    const flagsOf = async (name: string, body: string, file = 'excerpt.txt', stats = createParseStats()) =>
      cots(await open(name, body, file, stats))
        .filter((i) => i.commodity_id === 'ORANGE_JUICE' && i.record.report_date === '2026-02-03')
        .map((i) => i.record.failed_checks);

    it('flags a combined row off by 2 and keeps it; one off by 1 is within the rounding', async () => {
      expect(await flagsOf('cftc-legacy-combined', text(COMBINED))).toEqual([undefined]);
      const stats = createParseStats();
      const two = editCell(text(COMBINED), OJ, 'Open Interest (Old)', plus(-1));
      expect(await flagsOf('cftc-legacy-combined', two, 'annualof.txt', stats)).toEqual([
        ['old_plus_other_equals_all'],
      ]);
      expect(stats).toMatchObject({ emitted: 29, rejected: 0, failedChecks: { old_plus_other_equals_all: 1 } });
      // the figures summed: a spreading column off by 2 is within long + spreading's 2 (two figures)
      const spread = editCell(text(COMBINED), OJ, 'Noncommercial Positions-Spreading (Old)', plus(2));
      expect(await flagsOf('cftc-legacy-combined', spread)).toEqual([undefined]);
      expect(
        await flagsOf('cftc-legacy-combined', editCell(spread, OJ, 'Noncommercial Positions-Long (Old)', plus(1))),
      ).toEqual([['old_plus_other_equals_all']]);
    });

    it('flags a futures-only row off by 1 (exact there), and never the real futures-only rows', async () => {
      // the same row read as a futures-only report (a name the CFTC does not use: the input's scope stands)
      expect(await flagsOf('cftc-legacy', text(COMBINED), 'excerpt.txt')).toEqual([['old_plus_other_equals_all']]);
      const real = cots(await open('cftc-legacy', text(LEGACY_FUT), 'annual.txt'));
      expect(real).toHaveLength(30);
      expect(real.filter((i) => i.record.failed_checks !== undefined)).toEqual([]);
      // WHEAT-SRW 2025-01-07: noncommercial long Old + Other exceeds All by 52,479 and spreading
      // falls short by as much: a cross-crop spread, which long + spreading accounts for
      const disagg = cots(await open('cftc-disaggregated', text(DISAGG_FUT), 'f_year.txt'));
      expect(disagg.filter((i) => i.record.failed_checks !== undefined)).toEqual([]);
    });

    it('skips a figure whose Old or Other cell is "." (missing), and only that figure', async () => {
      const two = editCell(text(COMBINED), OJ, 'Open Interest (Old)', plus(-1));
      expect(
        await flagsOf(
          'cftc-legacy-combined',
          editCell(two, OJ, 'Open Interest (Other)', () => '.'),
        ),
      ).toEqual([undefined]);
      const both = editCell(two, OJ, 'Commercial Positions-Long (Other)', plus(5));
      expect(
        await flagsOf(
          'cftc-legacy-combined',
          editCell(both, OJ, 'Open Interest (Other)', () => '.'),
        ),
      ).toEqual([['old_plus_other_equals_all']]);
    });
  });

  it('refuses a futures-only file given as combined, and a combined one given as futures-only, naming what was expected', async () => {
    const asCombined = await open('cftc-legacy-combined', text(LEGACY_FUT), 'annual.txt');
    expect(asCombined).toEqual([
      {
        kind: 'rejected',
        file: 'annual.txt',
        line: 1,
        reason:
          "annual.txt is the CFTC's name of a futures-only file; expected the legacy futures-and-options combined report (annualof.txt of deahistfo<year>.zip)",
      },
    ]);
    const asFutures = rejections(await open('cftc-legacy', text(COMBINED), 'annualof.txt'));
    expect(asFutures.map((r) => r.reason)).toEqual([
      "annualof.txt is the CFTC's name of a futures-and-options file; expected the legacy futures-only report (annual.txt of deacot<year>.zip)",
    ]);
    // the historical files too
    expect(rejections(await open('cftc-legacy-combined', text(LEGACY_FUT), 'FUT86_16.txt'))).toHaveLength(1);
    expect(rejections(await open('cftc-legacy', text(COMBINED), 'Com95_16.txt'))).toHaveLength(1);
  });
});

describe('CFTC disaggregated futures-and-options combined annual file (c_year.txt)', () => {
  // no copy of c_year.txt was found (test/fixtures/README.md): its layout is f_year.txt's, every
  // row saying "Combined" in its last column; built here from the real f_year excerpt
  const asCombined = (body: string) => body.replace(/"FutOnly"\r\n/g, '"Combined"\r\n');

  it('reads a combined file as combined; refuses a futures-only one by its FutOnly_or_Combined column, whatever its name', async () => {
    const fut = text(DISAGG_FUT);
    expect(fut).toMatch(/"FutOnly"\r\n/);
    const stats = createParseStats();
    const items = cots(await open('cftc-disaggregated-combined', asCombined(fut), 'c_year.txt', stats));
    expect(stats).toMatchObject({ rows: 30, emitted: 30, rejected: 0 });
    expect(items.every((i) => i.scope === 'futures_and_options' && i.format === 'disaggregated')).toBe(true);
    expect(items[0]!.source).toBe('cftc:disaggregated_combined:001602');

    const refused = await open('cftc-disaggregated-combined', fut, 'some_name.txt');
    expect(refused).toEqual([
      {
        kind: 'rejected',
        file: 'some_name.txt',
        line: 2,
        reason:
          'the file is futures-only (FutOnly_or_Combined "FutOnly" on its first row); expected the disaggregated futures-and-options combined report (c_year.txt of com_disagg_txt_<year>.zip)',
      },
    ]);
    // and the other way round
    expect(rejections(await open('cftc-disaggregated', asCombined(fut), 'x.txt'))[0]!.reason).toMatch(
      /^the file is futures-and-options \(FutOnly_or_Combined "Combined" on its first row\); expected the disaggregated futures-only report/,
    );
  });

  it('rejects a row of the other scope inside a combined file, with its reason; the others are read', async () => {
    const body = asCombined(text(DISAGG_FUT)).split('\r\n');
    body[5] = body[5]!.replace(/"Combined"$/, '"FutOnly"');
    const stats = createParseStats();
    const items = await open('cftc-disaggregated-combined', body.join('\r\n'), 'c_year.txt', stats);
    expect(rejections(items)).toEqual([
      {
        kind: 'rejected',
        file: 'c_year.txt',
        line: 6,
        reason: 'a futures-only row (FutOnly_or_Combined "FutOnly") in the futures-and-options disaggregated report',
      },
    ]);
    expect(stats).toMatchObject({ rows: 30, emitted: 29, rejected: 1 });
  });
});

describe('CFTC CIT supplement annual file (annualci.txt, real excerpt)', () => {
  it('reads every row, every group from its (typo-named) column, quoted codes, no crop-year check', async () => {
    const body = text(CIT);
    // the CFTC's own header: the typos and a name with a trailing space inside its quotes
    expect(body).toContain('"NComm_Postions_Spread_All_NoCIT"');
    expect(body).toContain('"Change_NonComm_Spead_All_NoCIT"');
    expect(body).toContain('"Change_Comm_Short_All_NoCIT "');
    const stats = createParseStats();
    const items = await open('cftc-cit', body, 'annualci.txt', stats);
    expect(stats).toMatchObject({ rows: 20, emitted: 20, rejected: 0, skipped: 0 });
    expect(items.every((i) => i.kind === 'cot')).toBe(true);

    const { header, rows } = rawCotRows(CIT);
    const col = (name: string) => header.indexOf(name);
    expect(col('NComm_Postions_Spread_All_NoCIT')).toBeGreaterThan(0);
    const out = cots(items);
    for (const [i, raw] of rows.entries()) {
      const item = out[i]!;
      if (item.format !== 'cit') throw new Error('expected cit');
      const c = (name: string) => int(raw.cells[col(name)]);
      expect(raw.cells[col('CFTC_Contract_Market_Code')]).toMatch(/^"\d{6}"$/); // quoted in this file
      expect(item.scope).toBe('futures_and_options');
      const r = item.record;
      expect(CitCotRecord.parse(r)).toEqual(r);
      expect(item.source).toBe(`cftc:cit:${r.contract_code}`);
      expect(r.contract_code).toBe(raw.cells[col('CFTC_Contract_Market_Code')]!.replace(/"/g, ''));
      expect(r.report_date).toBe(raw.cells[col('As_of_Date_In_Form_YYYY-MM-DD')]);
      expect(r.open_interest).toBe(c('Open_Interest_All'));
      expect(r.commercial).toEqual({
        long: c('Comm_Positions_Long_All_NoCIT'),
        short: c('Comm_Positions_Short_All_NoCIT'),
      });
      expect(r.non_commercial).toEqual({
        long: c('NComm_Positions_Long_All_NoCIT'),
        short: c('NComm_Positions_Short_All_NoCIT'),
        spreading: c('NComm_Postions_Spread_All_NoCIT'),
      });
      expect(r.index_traders).toEqual({ long: c('CIT_Positions_Long_All'), short: c('CIT_Positions_Short_All') });
      expect(r.non_reportable).toEqual({
        long: c('NonRept_Positions_Long_All'),
        short: c('NonRept_Positions_Short_All'),
      });
      expect(r.failed_checks).toBeUndefined();
    }
    expect(new Set(out.map((i) => i.commodity_id))).toEqual(new Set(['WHEAT_SRW', 'CORN', 'LIVE_CATTLE', 'SUGAR']));
    // the spot check: WHEAT-SRW 2024-07-23
    expect(out[0]!.record).toMatchObject({
      report_date: '2024-07-23',
      open_interest: 511022,
      index_traders: { long: 149663, short: 70739 },
      non_commercial: { long: 58924, short: 145951, spreading: 155512 },
    });
    // LF reads the same
    expect(await open('cftc-cit', body.replace(/\r\n/g, '\n'), 'annualci.txt')).toEqual(items);
  });

  it('skips a row of a catalog market outside the supplement as an unknown code', async () => {
    const stats = createParseStats();
    // GOLD's code on a WHEAT-SRW row: GOLD is in the catalog but not one of the 13 CIT markets
    const body = text(CIT).replace('"001602"', '"088691"');
    const items = cots(await open('cftc-cit', body, 'annualci.txt', stats));
    expect(stats).toMatchObject({ rows: 20, emitted: 19, skipped: 1, skippedByReason: { unknown_commodity: 1 } });
    expect(items.some((i) => i.commodity_id === 'GOLD')).toBe(false);
  });

  it("reads the 2006-2012 files' date column (headed MM/DD/YYYY over ISO dates) and unquoted codes", async () => {
    const body = text(CIT)
      .replace('"As_of_Date_In_Form_YYYY-MM-DD"', '"As_of_Date_In_Form_MM/DD/YYYY"')
      .replace(/,"(\d{6})",/g, ',$1,');
    const items = cots(await open('cftc-cit', body, 'annualci2006.txt'));
    expect(items).toHaveLength(20);
    expect(items[0]!.record).toMatchObject({ report_date: '2024-07-23', contract_code: '001602' });
  });

  it('refuses a file of another format, naming the one expected', async () => {
    const items = await open('cftc-cit', text(COMBINED), 'annualci.txt');
    expect(rejections(items).map((r) => r.reason)).toEqual(['header is a legacy COT file, expected cit']);
    expect(rejections(await open('cftc-legacy-combined', text(CIT), 'annualof.txt'))[0]!.reason).toBe(
      'header is a cit COT file, expected legacy',
    );
    const none = await open('cftc-cit', '"a","b"\r\n1,2\r\n', 'annualci.txt');
    expect(rejections(none)[0]!.reason).toBe('header is not a CFTC COT cit file: no "CIT_Positions_Long_All" column');
    // a CIT header without its index-trader short column
    const noShort = text(CIT).replace('"CIT_Positions_Short_All"', '"CIT_Short"');
    expect(rejections(await open('cftc-cit', noShort, 'annualci.txt'))[0]!.reason).toBe(
      'header lacks columns for index_traders.short (cit_positions_short_all) (line 1; names compared in snake_case)',
    );
    expect(rejections(await open('cftc-legacy-combined', '"a","b"\n1,2\n', 'annualof.txt'))[0]!.reason).toBe(
      'header is not a CFTC COT legacy file: no "Commercial Positions-Long (All)" column',
    );
  });
});

describe('the CFTC inputs and the Socrata rows of the new datasets', () => {
  it('names the three inputs; the futures-only parsers are unchanged', async () => {
    expect(cftc.inputs.map((i) => i.name)).toEqual([
      'cftc-legacy',
      'cftc-disaggregated',
      'cftc-legacy-combined',
      'cftc-disaggregated-combined',
      'cftc-cit',
    ]);
    const direct = await collect(parseCftcLegacyCsv([text(LEGACY_FUT)], { file: 'annual.txt', catalog: CATALOG }));
    expect(direct.filter((i) => i.kind === 'series')).toHaveLength(30);
    expect(cots(direct).every((i) => i.scope === undefined && i.source!.startsWith('cftc:legacy:'))).toBe(true);
    const combined = await collect(parseCftcLegacyCombinedCsv([text(COMBINED)], { file: 'x', catalog: CATALOG }));
    expect(cots(combined)).toHaveLength(29);
    expect(cots(await collect(parseCftcCitCsv([text(CIT)], { file: 'x', catalog: CATALOG })))).toHaveLength(20);
    // the format detected from the header when none is given
    const detected = await collect(parseCftcCotCsv([text(CIT)], { file: 'x', catalog: CATALOG }));
    expect(cots(detected).every((i) => i.format === 'cit')).toBe(true);
  });

  it('reads the CIT dataset with mixed-case names, checks a combined row against its Old/Other fields, rejects a FutOnly row', async () => {
    const cit = readFileSync(ownFixturePath('sync/cftc_socrata_cit_wheat_2024.json'), 'utf8');
    const citItems = cots(
      await collect(parseCftcSocrataJson([cit], { file: 'cftc:4zgm-a668', format: 'cit', catalog: CATALOG })),
    );
    expect(citItems.map((i) => (i.format === 'cit' ? i.record.index_traders : undefined))).toContainEqual({
      long: 149663,
      short: 70739,
    });

    const rows = JSON.parse(
      readFileSync(ownFixturePath('sync/cftc_socrata_legacy_combined_wheat_2026.json'), 'utf8'),
    ) as Record<string, string>[];
    rows[0]!.open_interest_old = String(Number(rows[0]!.open_interest_old) + 2);
    rows[1]!.futonly_or_combined = 'FutOnly';
    const stats = createParseStats();
    const items = await collect(
      parseCftcSocrataJson([JSON.stringify(rows)], {
        file: 'cftc:jun7-fc8e',
        format: 'legacy',
        scope: 'futures_and_options',
        catalog: CATALOG,
        stats,
      }),
    );
    expect(rejections(items).map((r) => [r.line, r.reason])).toEqual([
      [2, 'a futures-only row (FutOnly_or_Combined "FutOnly") in the futures-and-options legacy report'],
    ]);
    expect(cots(items).map((i) => i.record.failed_checks)).toEqual([
      ['old_plus_other_equals_all'],
      undefined,
      undefined,
      undefined,
    ]);
    expect(stats.failedChecks).toEqual({ old_plus_other_equals_all: 1 });
  });
});
