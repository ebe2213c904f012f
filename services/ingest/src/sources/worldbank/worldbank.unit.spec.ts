import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { SeriesPointRecord } from '@cds/contracts';
import { CATALOG } from '../registry.ts';
import { byPinkSheetCode } from './lookup.ts';
import { worldbankOf } from './mapping.ts';
import { chunked, collect, ownFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { buildZip, workbookWith } from '../../../test/helpers/zip.ts';
import { filterAgainstCursor } from '../../sync/cursor.ts';
import { createParseStats } from '../common/stats.ts';
import type { SeriesItem, SourceItem } from '../types.ts';
import {
  parseWorldBankXlsx,
  PINK_SHEET_LIMITS,
  pinkSheetPeriodDate,
  readPinkSheetVintage,
  WorldBankFileError,
  type WorldBankFileInfo,
} from './parse.ts';
import { findPinkSheetLink } from './fetch.ts';
import { scanXml } from '../common/xml.ts';
import { readXlsxSheet, XlsxError } from './xlsx.ts';
import { openZip, ZipGuardError } from '../common/zip-guard.ts';

// Real excerpts (test/fixtures/README.md): the same cells as the publisher's workbooks.
const DEC_2025 = ownFixturePath('worldbank_pink_sheet_2025-12_excerpt.xlsx');
const NOV_2025 = ownFixturePath('worldbank_pink_sheet_2025-11_excerpt.xlsx');
const OCT_2022_NO_CODES = ownFixturePath('worldbank_pink_sheet_2022-10_no_codes_row_excerpt.xlsx');
// Real excerpts edited on purpose: GOLD renamed GOLD_LBMA in row 7; COPPER's unit made ($/lb) in row 6.
const RENAMED = ownFixturePath('worldbank_pink_sheet_2025-12_EDITED_renamed_code.xlsx');
const UNIT_CHANGED = ownFixturePath('worldbank_pink_sheet_2025-12_EDITED_unit_changed.xlsx');

const series = (items: SourceItem[]) => items.filter((i): i is SeriesItem => i.kind === 'series');
const MAPPED = CATALOG.commodities.flatMap((c) => (worldbankOf(c)?.series ?? []).map((s) => s.code));

/** The raw cells of a fixture, read with exceljs independently of the parser: header row → column. */
async function rawSheet(path: string, headerRow: number) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(readFileSync(path) as unknown as Parameters<typeof wb.xlsx.load>[0]);
  const ws = wb.getWorksheet('Monthly Prices')!;
  const columns = new Map<string, number>();
  ws.getRow(headerRow).eachCell((cell, col) => {
    if (col > 1) columns.set(cell.text.trim(), col);
  });
  const rows: { line: number; period: string; cell: (col: number) => unknown }[] = [];
  for (let r = headerRow + 1; r <= ws.rowCount; r++) {
    const row = ws.getRow(r);
    rows.push({ line: r, period: row.getCell(1).text, cell: (col) => row.getCell(col).value });
  }
  return { ws, columns, rows };
}

async function parse(path: string) {
  const stats = createParseStats();
  const info: WorldBankFileInfo = {};
  const items = await collect(
    parseWorldBankXlsx(readFileSync(path), { catalog: CATALOG, file: 'CMO.xlsx', stats, info }),
  );
  return { items, stats, info };
}

async function failure(input: Parameters<typeof parseWorldBankXlsx>[0], opts: { maxBytes?: number } = {}) {
  try {
    await collect(parseWorldBankXlsx(input, { catalog: CATALOG, file: 'CMO.xlsx', ...opts }));
  } catch (err) {
    expect(err).toBeInstanceOf(WorldBankFileError);
    return (err as Error).message;
  }
  throw new Error('expected the workbook to be refused');
}

describe('World Bank Pink Sheet (real excerpts)', () => {
  it('maps every catalog code, with the unit row 6 shows, onto its commodity', async () => {
    const raw = await rawSheet(DEC_2025, 7);
    const units = raw.ws.getRow(6);
    for (const code of MAPPED) {
      const col = raw.columns.get(code);
      expect(col, code).toBeDefined();
      expect(units.getCell(col!).value, code).toBe(byPinkSheetCode(CATALOG, code)!.series.source_unit);
    }
    expect(MAPPED).toHaveLength(13);
  });

  it('emits each mapped cell exactly as published, dated at the end of its month', async () => {
    const { items, stats, info } = await parse(DEC_2025);
    expect(info).toEqual({ vintage: '2025-12-02', layout: 'codes', lastPeriod: '2025M11' });
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([]);
    const raw = await rawSheet(DEC_2025, 7);
    const byKey = new Map(series(items).map((i) => [`${i.source}|${i.point.date}`, i]));
    let numbers = 0;
    let missing = 0;
    for (const row of raw.rows) {
      const [, y, m] = /^(\d{4})M(\d{2})$/.exec(row.period)!;
      const lastDay = new Date(Date.UTC(Number(y), Number(m), 0)).getUTCDate();
      const date = `${y}-${m}-${String(lastDay).padStart(2, '0')}`;
      for (const code of MAPPED) {
        const cell = row.cell(raw.columns.get(code)!);
        const item = byKey.get(`worldbank:${code}|${date}`);
        if (typeof cell === 'number') {
          numbers++;
          expect(item?.point, `${code} ${row.period}`).toEqual({ date, value: cell });
        } else {
          missing++;
          expect(['…', '...'], `${code} ${row.period}`).toContain(cell);
          expect(item, `${code} ${row.period}`).toBeUndefined();
        }
      }
    }
    expect(series(items)).toHaveLength(numbers);
    expect(stats).toMatchObject({ rows: raw.rows.length, emitted: numbers, rejected: 0 });
    // CRUDE_BRENT is not mapped: skipped once, as a column
    expect(stats.skippedByReason).toEqual({ unknown_series: 1, missing_value: missing });
    for (const item of series(items)) SeriesPointRecord.parse(item.point);
  });

  it('gives the series fields: commodity, monthly price, unit, provenance, basis', async () => {
    const { items } = await parse(DEC_2025);
    const gold = series(items).find((i) => i.source === 'worldbank:GOLD' && i.point.date === '2025-11-30');
    expect(gold).toEqual({
      kind: 'series',
      commodity_id: 'GOLD',
      series_type: 'price',
      frequency: 'monthly',
      unit: 'USD/troy oz',
      source: 'worldbank:GOLD',
      price_basis: 'monthly_average',
      point: { date: '2025-11-30', value: 4087.19 },
      // the workbook's "Updated on December 02, 2025": the source's own date, the start of that day UTC
      published: { at: '2025-12-02T00:00:00.000Z', estimated: false },
    });
    // values are not rounded: the published monthly average of SRW wheat, 2025M11
    const srw = series(items).find((i) => i.source === 'worldbank:WHEAT_US_SRW' && i.point.date === '2025-11-30');
    expect(srw).toMatchObject({ commodity_id: 'WHEAT_SRW', unit: 'USD/mt', point: { value: 225.194604696 } });
    // `…` (1960M01-M03) and `...` (2022M10-2023M01) in WHEAT_US_SRW are missing values
    const srwDates = series(items)
      .filter((i) => i.source === 'worldbank:WHEAT_US_SRW')
      .map((i) => i.point.date);
    for (const d of ['1960-01-31', '1960-03-31', '2022-10-31', '2022-12-31', '2023-01-31'])
      expect(srwDates).not.toContain(d);
    expect(srwDates.slice(0, 2)).toEqual(['2023-02-28', '2025-01-31']);
  });

  it('reads the same items from a stream of small chunks', async () => {
    const whole = await parse(DEC_2025);
    const streamed = await collect(parseWorldBankXlsx(chunked(DEC_2025, 1000), { catalog: CATALOG, file: 'CMO.xlsx' }));
    expect(streamed).toEqual(whole.items);
  });

  it('sees the revision between the November and December 2025 vintages', async () => {
    const nov = await parse(NOV_2025);
    const dec = await parse(DEC_2025);
    expect(nov.info.vintage).toBe('2025-11-04');
    expect(nov.info.lastPeriod).toBe('2025M10');
    // every point of a file published on its "Updated on" day, the history as much as the new month
    expect(new Set(series(nov.items).map((i) => JSON.stringify(i.published)))).toEqual(
      new Set([JSON.stringify({ at: '2025-11-04T00:00:00.000Z', estimated: false })]),
    );
    expect(new Set(series(dec.items).map((i) => i.published?.at))).toEqual(new Set(['2025-12-02T00:00:00.000Z']));
    const novValues = new Map(series(nov.items).map((i) => [`${i.source}|${i.point.date}`, i.point.value]));
    const changed: string[] = [];
    for (const i of series(dec.items)) {
      const before = novValues.get(`${i.source}|${i.point.date}`);
      if (before !== undefined && before !== i.point.value)
        changed.push(`${i.source} ${i.point.date} ${before} -> ${i.point.value}`);
    }
    // the real revision: soybean oil and meal of October 2025, republished in December
    expect(changed).toEqual([
      'worldbank:SOYBEAN_OIL 2025-10-31 1135.81 -> 1132.14834869565',
      'worldbank:SOYBEAN_MEAL 2025-10-31 351.25 -> 356',
    ]);
    // what sync keeps from the December file against a cursor that saw November's: the new month and the revision
    // (sync asks from the newest date minus the 183-day overlap: dates from 2025-05 here)
    const oil = (items: SourceItem[]) =>
      series(items).filter((i) => i.source === 'worldbank:SOYBEAN_OIL' && i.point.date >= '2025-05-01');
    const first = filterAgainstCursor(oil(nov.items), undefined, 183, new Date('2025-11-05T00:00:00Z'));
    const second = filterAgainstCursor(oil(dec.items), first.next, 183, new Date('2025-12-03T00:00:00Z'));
    expect(second.revised).toBe(1);
    expect(series(second.fresh).map((i) => [i.point.date, i.point.value])).toEqual([
      ['2025-10-31', 1132.14834869565],
      ['2025-11-30', 1126.09998352941],
    ]);
  });

  it('finds the columns by name in a workbook without a codes row (the 2022 layout)', async () => {
    const { items, stats, info } = await parse(OCT_2022_NO_CODES);
    expect(info).toEqual({ vintage: '2022-10-04', layout: 'names', lastPeriod: '2022M09' });
    const raw = await rawSheet(OCT_2022_NO_CODES, 5);
    expect(raw.ws.getRow(7).getCell(1).value).toBe('1960M01');
    const gold = raw.columns.get('Gold')!;
    const sep = raw.rows.find((r) => r.period === '2022M09')!;
    expect(series(items).find((i) => i.source === 'worldbank:GOLD' && i.point.date === '2022-09-30')?.point.value).toBe(
      sep.cell(gold),
    );
    // WHEAT_US_SRW is `…` in 1960M01-M03 and `..` (this vintage's spelling) in 2022M08-M09
    expect(stats.skippedByReason).toEqual({ unknown_series: 1, missing_value: 5 });
    const srw = series(items)
      .filter((i) => i.source === 'worldbank:WHEAT_US_SRW')
      .map((i) => i.point.date);
    expect(srw).toContain('2022-07-31');
    expect(srw).not.toContain('2022-08-31');
    expect(stats.rejected).toBe(0);
    expect(new Set(series(items).map((i) => i.source)).size).toBe(13);
  });
});

describe('World Bank Pink Sheet: refused files publish nothing', () => {
  it('names a renamed code column', async () => {
    expect(await failure(readFileSync(RENAMED))).toBe(
      'worldbank: the "Monthly Prices" sheet has no column GOLD (renamed?); nothing was read from CMO.xlsx',
    );
  });

  it('names both units when row 6 changes', async () => {
    expect(await failure(readFileSync(UNIT_CHANGED))).toBe(
      'worldbank: the unit of COPPER in row 6 is "($/lb)", expected "($/mt)" (the publisher changed it?); nothing was read from CMO.xlsx',
    );
  });

  it('refuses a file that is not an .xlsx workbook', async () => {
    expect(await failure(Buffer.from('Date,Price\n2025-01-31,1\n'))).toMatch(
      /^worldbank: CMO\.xlsx is not an \.xlsx workbook we read: not a zip archive/,
    );
    expect(await failure(['a,b\n'])).toBe('worldbank: CMO.xlsx is text, not an .xlsx workbook');
    // a truncated download
    expect(await failure(readFileSync(DEC_2025).subarray(0, 5000))).toMatch(/not a complete zip archive/);
  });

  it('refuses a file larger than the bound, whole or streamed', async () => {
    const size = readFileSync(DEC_2025).length;
    expect(await failure(readFileSync(DEC_2025), { maxBytes: size - 1 })).toMatch(/is larger than/);
    expect(await failure(chunked(DEC_2025, 1000), { maxBytes: 4000 })).toMatch(/is larger than/);
  });

  it('refuses a workbook without a "Monthly Prices" sheet', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Monthly Indices').getCell('A1').value = 'World Bank Commodity Price Data (The Pink Sheet)';
    const bytes = Buffer.from(await wb.xlsx.writeBuffer());
    expect(await failure(bytes)).toBe('worldbank: CMO.xlsx has no "Monthly Prices" sheet (sheets: "Monthly Indices")');
  });

  it('leaves the points of a workbook without an "Updated on" note unstamped (the event takes the ingest time)', async () => {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(readFileSync(DEC_2025) as unknown as Parameters<typeof wb.xlsx.load>[0]);
    const ws = wb.getWorksheet('Monthly Prices')!;
    let cleared = 0;
    ws.eachRow((row) =>
      row.eachCell((cell) => {
        if (/Updated on/i.test(cell.text)) {
          cell.value = null;
          cleared++;
        }
      }),
    );
    expect(cleared).toBe(1);
    const info: WorldBankFileInfo = {};
    const items = series(
      await collect(
        parseWorldBankXlsx(Buffer.from(await wb.xlsx.writeBuffer()), { catalog: CATALOG, file: 'CMO.xlsx', info }),
      ),
    );
    expect(info.vintage).toBeUndefined();
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => i.published === undefined)).toBe(true);
  });

  it('rejects a row whose period is not YYYYMmm and reads the others', async () => {
    // the real December excerpt with one period cell edited in memory
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(readFileSync(DEC_2025) as unknown as Parameters<typeof wb.xlsx.load>[0]);
    const ws = wb.getWorksheet('Monthly Prices')!;
    expect(ws.getCell('A26').value).toBe('2025M11');
    ws.getCell('A26').value = '2025-11';
    const stats = createParseStats();
    const items = await collect(
      parseWorldBankXlsx(Buffer.from(await wb.xlsx.writeBuffer()), { catalog: CATALOG, file: 'CMO.xlsx', stats }),
    );
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([
      { kind: 'rejected', file: 'CMO.xlsx', line: 26, reason: 'period is not YYYYMmm (such as 1960M01): "2025-11"' },
    ]);
    expect(series(items).some((i) => i.point.date === '2025-11-30')).toBe(false);
    expect(series(items).some((i) => i.point.date === '2025-10-31')).toBe(true);
  });
});

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const SMALL_SHEET =
  '<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Updated on December 02, 2025</t></is></c></row></sheetData>';

/** What the workbook reader makes of `bytes`: its error message and the bytes it inflated. */
function refusal(bytes: Buffer): { message: string; inflated: number; error: unknown } {
  const cost = { inflatedBytes: 0 };
  try {
    readXlsxSheet(bytes, 'Monthly Prices', PINK_SHEET_LIMITS, cost);
  } catch (err) {
    return { message: (err as Error).message, inflated: cost.inflatedBytes, error: err };
  }
  throw new Error('expected the workbook to be refused');
}

describe('the workbook reader refuses hostile files before building anything', () => {
  const honest = workbookWith(SMALL_SHEET);
  const partsBytes = honest.reduce((n, e) => n + e.data.length, 0);

  it('reads an honest workbook and the real excerpts, inflating only the parts it needs', () => {
    const cost = { inflatedBytes: 0 };
    const { sheet } = readXlsxSheet(buildZip(honest), 'Monthly Prices', PINK_SHEET_LIMITS, cost);
    expect(sheet?.rows.get(1)?.[1]).toBe('Updated on December 02, 2025');
    expect(cost.inflatedBytes).toBe(partsBytes);
    // the real excerpt: workbook, relationships, shared strings and the one sheet; not the theme or styles
    const real = readFileSync(DEC_2025);
    const zip = openZip(real, PINK_SHEET_LIMITS);
    const realCost = { inflatedBytes: 0 };
    readXlsxSheet(real, 'Monthly Prices', PINK_SHEET_LIMITS, realCost);
    expect(zip.names).toContain('xl/theme/theme1.xml');
    expect(realCost.inflatedBytes).toBe(
      ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml', 'xl/worksheets/sheet1.xml']
        .map((n) => zip.read(n).length)
        .reduce((a, b) => a + b),
    );
  });

  it('refuses two central records under an end record that declares one (the hidden entry), inflating nothing', () => {
    const bomb = { name: 'xl/bomb.xml', data: Buffer.alloc(2_000_000) };
    const r = refusal(buildZip([...honest, bomb], { declaredCount: honest.length }));
    expect(r.error).toBeInstanceOf(ZipGuardError);
    expect(r.message).toBe('the zip central directory holds more records than the 3 its end record declares');
    expect(r.inflated).toBe(0);
  });

  it('refuses prepended data and bytes between the directory and the end record', () => {
    expect(refusal(buildZip(honest, { prepend: Buffer.alloc(100, 7) })).message).toBe(
      'the zip archive has data before its first entry (prepended data)',
    );
    // a zip whose offsets all count the prepended bytes: the entries still do not start at 0
    const shifted = buildZip(honest, { prepend: Buffer.from('PK\u0003\u0004' + 'x'.repeat(96)) });
    expect(refusal(shifted).message).toMatch(/prepended data|no local header|names another entry/);
    expect(refusal(buildZip(honest, { beforeEnd: Buffer.alloc(64) })).message).toMatch(
      /^the zip central directory \(offset \d+, \d+ bytes\) does not end where the end record starts/,
    );
  });

  it('refuses duplicate names, case folded', () => {
    const twice = [...honest, { name: 'XL/Worksheets/Sheet1.xml', data: Buffer.from('<worksheet/>') }];
    expect(refusal(buildZip(twice)).message).toBe('the archive holds two entries named XL/Worksheets/Sheet1.xml');
  });

  it('refuses an entry declaring more than the bound without inflating it', () => {
    const zeros = Buffer.alloc(PINK_SHEET_LIMITS.maxEntryBytes + 1);
    const r = refusal(buildZip([...honest, { name: 'xl/big.xml', data: zeros }]));
    expect(r.message).toBe(
      `zip entry xl/big.xml declares ${zeros.length} bytes unpacked, more than the ${PINK_SHEET_LIMITS.maxEntryBytes} read`,
    );
    expect(r.inflated).toBe(0);
  });

  it('stops inflating an entry that lies about its size at the declared size (bounded memory)', () => {
    // 16 MB of spaces compress to 16 KB; the sheet declares 1,000 bytes
    const sheet = Buffer.concat([Buffer.from(`<worksheet ${NS}><sheetData>`), Buffer.alloc(16 * 1024 * 1024, 32)]);
    const entries = workbookWith('');
    entries[2] = { name: 'xl/worksheets/sheet1.xml', data: sheet, declared: 1000 };
    const r = refusal(buildZip(entries));
    expect(r.error).toBeInstanceOf(ZipGuardError);
    // zlib's own output bound stopped it: never more than the declared 1,000 bytes were produced
    expect(r.message).toMatch(/^zip entry xl\/worksheets\/sheet1\.xml does not inflate to its declared 1000 bytes/);
    expect(r.message).toMatch(/larger than 1000 bytes/);
    expect(r.inflated).toBeLessThanOrEqual(partsBytes - honest[2]!.data.length + 1000);
  });

  it('refuses a merged range or a dimension beyond the layout bounds, building no cell for either', () => {
    const merged = refusal(
      buildZip(workbookWith(`${SMALL_SHEET}<mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>`)),
    );
    expect(merged.error).toBeInstanceOf(XlsxError);
    expect(merged.message).toBe(
      'the "Monthly Prices" sheet merges the range A1:XFD1048576, beyond the 5000 rows by 500 columns read',
    );
    const dimension = refusal(buildZip(workbookWith(`<dimension ref="A1:CK900000"/>${SMALL_SHEET}`)));
    expect(dimension.message).toBe(
      'the "Monthly Prices" sheet declares 900000 rows by 89 columns (dimension A1:CK900000), beyond the 5000 rows by 500 columns read',
    );
    // a dimension that lies small does not help: the cell itself is refused
    const cell = refusal(
      buildZip(
        workbookWith('<dimension ref="A1"/><sheetData><row r="6000"><c r="A6000"><v>1</v></c></row></sheetData>'),
      ),
    );
    expect(cell.message).toBe('the "Monthly Prices" sheet has a row 6000, beyond the 5000 rows by 500 columns read');
    const wide = refusal(buildZip(workbookWith('<sheetData><row r="1"><c r="ZZ1"><v>1</v></c></row></sheetData>')));
    expect(wide.message).toBe('the "Monthly Prices" sheet has a cell ZZ1, beyond the 5000 rows by 500 columns read');
    // the merged range cost what its few bytes of XML cost: the same parts as the honest workbook, no more
    expect(merged.inflated).toBe(
      partsBytes + '<mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>'.length,
    );
  });

  it('refuses a DOCTYPE (entity expansion) and malformed XML, as a WorldBankFileError naming the file', async () => {
    const laughs = '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>';
    const entries = workbookWith(SMALL_SHEET);
    entries[2] = {
      name: 'xl/worksheets/sheet1.xml',
      data: Buffer.from(`${laughs}<worksheet ${NS}>${SMALL_SHEET}</worksheet>`),
    };
    expect(refusal(buildZip(entries)).message).toBe('a DOCTYPE or entity declaration is not read');
    expect(await failure(buildZip(workbookWith('<sheetData><row r="1"><c r="A1"><v>1</v></row></sheetData>')))).toBe(
      'worldbank: CMO.xlsx cannot be read as an .xlsx workbook (malformed XML: </row> closes no open <row>); nothing was read',
    );
    expect(await failure(buildZip(honest, { declaredCount: 2 }))).toBe(
      'worldbank: CMO.xlsx is not an .xlsx workbook we read: the zip central directory holds more records than the 2 its end record declares',
    );
  });

  it('costs time linear in the sheet: ten times the rows, about ten times the work', () => {
    const rows = (n: number) =>
      `<sheetData>${Array.from({ length: n }, (_, i) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${i}</v></c><c r="B${i + 1}" t="inlineStr"><is><t>x</t></is></c></row>`).join('')}</sheetData>`;
    const small = readXlsxSheet(buildZip(workbookWith(rows(400))), 'Monthly Prices', PINK_SHEET_LIMITS).sheet!;
    const large = readXlsxSheet(buildZip(workbookWith(rows(4000))), 'Monthly Prices', PINK_SHEET_LIMITS).sheet!;
    expect([small.rowCount, large.rowCount]).toEqual([400, 4000]);
    let tokensSmall = 0;
    let tokensLarge = 0;
    const count = (xml: string, bump: () => void) =>
      scanXml(xml, { open: bump, close: () => undefined, text: () => undefined });
    count(rows(400), () => tokensSmall++);
    count(rows(4000), () => tokensLarge++);
    expect(tokensLarge / tokensSmall).toBeCloseTo(10, 0);
  });
});

describe('Pink Sheet periods and vintage note', () => {
  it('dates a YYYYMmm period at the month end, and refuses other shapes', () => {
    expect(pinkSheetPeriodDate('1960M01')).toBe('1960-01-31');
    expect(pinkSheetPeriodDate('2024M02')).toBe('2024-02-29');
    expect(pinkSheetPeriodDate('2025M11')).toBe('2025-11-30');
    for (const bad of ['2025M13', '2025M00', '2025-11', '2025M1', 'Nov 2025', ''])
      expect(pinkSheetPeriodDate(bad)).toBeUndefined();
  });

  it('reads the "Updated on" note', () => {
    expect(readPinkSheetVintage('Updated on December 02, 2025')).toBe('2025-12-02');
    expect(readPinkSheetVintage('Updated on October 4, 2022')).toBe('2022-10-04');
    expect(readPinkSheetVintage('monthly prices in nominal US dollars, 1960 to present')).toBeUndefined();
  });
});

describe('the workbook link on the Commodity Markets page', () => {
  const page = new URL('https://www.worldbank.org/en/research/commodity-markets');
  const html = readFileSync(ownFixturePath('worldbank_commodity_markets_page_handwritten.html'), 'utf8');
  it('is the monthly workbook on thedocs.worldbank.org (not the annual one, not the PDF)', () => {
    expect(findPinkSheetLink(html, page)?.href).toBe(
      'https://thedocs.worldbank.org/en/doc/5d903e848db1d1b83e0ec8f744e55570-0050012025/related/CMO-Historical-Data-Monthly.xlsx',
    );
  });
  it('resolves a relative link, and refuses other hosts and a page without it', () => {
    expect(findPinkSheetLink("<a href='/doc/a/CMO-Historical-Data-Monthly.xlsx'>x</a>", page)?.href).toBe(
      'https://www.worldbank.org/doc/a/CMO-Historical-Data-Monthly.xlsx',
    );
    expect(
      findPinkSheetLink('<a href="https://example.com/CMO-Historical-Data-Monthly.xlsx">x</a>', page),
    ).toBeUndefined();
    expect(findPinkSheetLink('<a href="javascript:CMO-Historical-Data-Monthly.xlsx">x</a>', page)).toBeUndefined();
    // https only: an http link on the publisher's hosts is not followed (a MITM could serve anything)
    for (const host of ['thedocs.worldbank.org', 'www.worldbank.org'])
      expect(
        findPinkSheetLink(`<a href="http://${host}/d/CMO-Historical-Data-Monthly.xlsx">x</a>`, page),
      ).toBeUndefined();
    // a local stand-in page (tests, offline runs) may link its own origin
    const local = new URL('http://127.0.0.1:8080/en/research/commodity-markets');
    expect(findPinkSheetLink('<a href="/d/CMO-Historical-Data-Monthly.xlsx">x</a>', local)?.href).toBe(
      'http://127.0.0.1:8080/d/CMO-Historical-Data-Monthly.xlsx',
    );
    expect(findPinkSheetLink(html.replaceAll('Monthly.xlsx', 'Monthly.pdf'), page)).toBeUndefined();
  });
});
