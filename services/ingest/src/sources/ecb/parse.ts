import { CURRENCY_PATTERN, rateSeriesId, rateUnit } from '@cds/contracts';
import { referenceRatesPublishedAt } from '@cds/schedule';
import { parseCsvRecord } from '../common/csv.ts';
import { isMissing, isRealDate, monthNumber } from '../common/values.ts';
import { scanXml, XmlError } from '../common/xml.ts';
import { openZip, ZipGuardError } from '../common/zip-guard.ts';
import { MiB } from '../common/bounds.ts';
import { seriesItem } from '../common/records.ts';
import type { ParseStats } from '../common/stats.ts';
import type { PublicationStamp, SourceItem } from '../types.ts';

/**
 * The euro foreign exchange reference rates as the ECB publishes them, read whole (the largest
 * file, the whole history as XML, is a few MB): `eurofxref-hist.csv` (`Date,USD,JPY,…,` with a
 * trailing comma, newest first, `N/A` where a currency had no rate; the column order differs
 * between vintages, so columns are found by name), the daily `eurofxref.csv` (`Date, USD, …` with
 * spaces, the date written `13 April 2026`), either zipped as the ECB serves them, and the XML
 * files (`eurofxref-daily.xml`, `eurofxref-hist-90d.xml`, `eurofxref-hist.xml`: a gesmes Envelope
 * of `<Cube time="…"><Cube currency="USD" rate="1.1684"/>…`). A file that is none of these, or
 * holds a bad date, a rate that is not a positive number, one date twice with other rates, or no
 * rate at all, is refused whole (RateFileError naming the file): nothing of it is published.
 */

/** The most bytes read: the whole history as XML is about 7 MB, as CSV under 2 MB. */
export const RATE_FILE_MAX_BYTES = 32 * MiB;
/** A zipped file holds one entry (the ECB's zips), inflating to at most this. */
const ZIP_LIMITS = { maxEntries: 4, maxEntryBytes: RATE_FILE_MAX_BYTES, maxUnzippedBytes: RATE_FILE_MAX_BYTES };

/** The file is not reference rates as the ECB publishes them: refused whole. */
export class RateFileError extends Error {
  override readonly name = 'RateFileError';
}

/** One day's rates: currency → units per one euro. */
export interface RateDay {
  date: string;
  rates: Map<string, number>;
}

export interface RateTable {
  /** Days newest first, as the ECB writes them (each date once). */
  days: RateDay[];
  /** Cells with no rate (`N/A` or empty): a currency not quoted that day. */
  missing: number;
}

const RATE = /^(?:\d+\.?\d*|\.\d+)$/;

/** A rate cell: a positive decimal, or why not. */
function rateOf(raw: string): number | string {
  if (!RATE.test(raw)) return `"${raw.slice(0, 40)}" is not a number`;
  const value = Number(raw);
  return value > 0 && Number.isFinite(value) ? value : `"${raw}" is not a positive rate`;
}

/** `2026-04-13` or the daily file's `13 April 2026`, or undefined. */
function dateOf(raw: string): string | undefined {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  if (iso) return isRealDate(raw) ? raw : undefined;
  const written = /^(\d{1,2}) ([A-Za-z]+) (\d{4})$/.exec(raw);
  const month = written ? monthNumber(written[2]!) : undefined;
  if (!written || month === undefined) return undefined;
  const date = `${written[3]}-${String(month).padStart(2, '0')}-${written[1]!.padStart(2, '0')}`;
  return isRealDate(date) ? date : undefined;
}

/** Collects the days, refusing a date given twice with other rates (the same rates twice count once). */
function createDays(file: string) {
  const byDate = new Map<string, RateDay>();
  const order: RateDay[] = [];
  return {
    add(where: string, day: RateDay) {
      const before = byDate.get(day.date);
      if (before === undefined) {
        byDate.set(day.date, day);
        order.push(day);
        return;
      }
      const same =
        before.rates.size === day.rates.size && [...day.rates].every(([ccy, r]) => before.rates.get(ccy) === r);
      if (!same) throw new RateFileError(`${file}: ${where}: ${day.date} is given twice with other rates`);
    },
    get days() {
      return order;
    },
  };
}

function readCsv(text: string, file: string): RateTable {
  const lines = text.split(/\r?\n/);
  const headAt = lines.findIndex((l) => l.trim() !== '');
  const header = (parseCsvRecord(lines[headAt] ?? '') ?? []).map((c) => c.trim());
  if (header[0]?.toLowerCase() !== 'date')
    throw new RateFileError(`${file}: no Date column: the first column is "${(header[0] ?? '').slice(0, 40)}"`);
  const columns: { at: number; ccy: string }[] = [];
  header.forEach((name, at) => {
    if (at === 0 || (name === '' && at === header.length - 1)) return; // the trailing comma
    if (!CURRENCY_PATTERN.test(name))
      throw new RateFileError(
        `${file}: column ${at + 1} "${name.slice(0, 40)}" is not a currency code (3 capital letters)`,
      );
    if (columns.some((c) => c.ccy === name)) throw new RateFileError(`${file}: the column ${name} is given twice`);
    columns.push({ at, ccy: name });
  });
  if (columns.length === 0) throw new RateFileError(`${file}: the header names no currency`);
  const days = createDays(file);
  let missing = 0;
  for (let i = headAt + 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue;
    const where = `line ${i + 1}`;
    const cells = (parseCsvRecord(lines[i]!) ?? []).map((c) => c.trim());
    if (cells.slice(header.length).some((c) => c !== ''))
      throw new RateFileError(`${file}: ${where}: more cells than the header has columns`);
    const date = dateOf(cells[0] ?? '');
    if (date === undefined)
      throw new RateFileError(`${file}: ${where}: "${(cells[0] ?? '').slice(0, 40)}" is not a date`);
    const rates = new Map<string, number>();
    for (const { at, ccy } of columns) {
      const raw = cells[at] ?? '';
      if (isMissing(raw)) {
        missing++;
        continue;
      }
      const rate = rateOf(raw);
      if (typeof rate === 'string') throw new RateFileError(`${file}: ${where}: ${ccy} ${rate}`);
      rates.set(ccy, rate);
    }
    days.add(where, { date, rates });
  }
  return { days: days.days, missing };
}

function readXml(text: string, file: string): RateTable {
  const days = createDays(file);
  let root: string | undefined;
  let day: RateDay | undefined;
  // what each open <Cube> is: a day's (time), a rate's (currency) or the outer one
  const cubes: ('day' | 'rate' | 'outer')[] = [];
  const fail = (what: string) => new RateFileError(`${file}: ${what}`);
  const openCube = (attrs: Record<string, string>) => {
    if (attrs.time !== undefined) {
      if (day !== undefined) throw fail(`<Cube time="${attrs.time.slice(0, 40)}"> inside the day ${day.date}`);
      const date = dateOf(attrs.time);
      if (date === undefined) throw fail(`<Cube time="${attrs.time.slice(0, 40)}">: not a date`);
      day = { date, rates: new Map() };
      return 'day';
    }
    if (attrs.currency === undefined) return 'outer';
    const ccy = attrs.currency;
    if (day === undefined) throw fail(`<Cube currency="${ccy.slice(0, 10)}"> outside a day's <Cube time>`);
    if (!CURRENCY_PATTERN.test(ccy))
      throw fail(`${day.date}: "${ccy.slice(0, 40)}" is not a currency code (3 capital letters)`);
    if (day.rates.has(ccy)) throw fail(`${day.date}: ${ccy} is given twice`);
    const rate = rateOf(attrs.rate ?? '');
    if (typeof rate === 'string') throw fail(`${day.date}: ${ccy} ${rate}`);
    day.rates.set(ccy, rate);
    return 'rate';
  };
  try {
    scanXml(text, {
      open(name, attrs) {
        root ??= name;
        if (root !== 'Envelope')
          throw fail(`not the ECB's reference-rate XML (its root is <${root.slice(0, 40)}>, not a gesmes Envelope)`);
        if (name === 'Cube') cubes.push(openCube(attrs));
      },
      close(name) {
        if (name !== 'Cube' || cubes.pop() !== 'day' || day === undefined) return;
        days.add(`<Cube time="${day.date}">`, day);
        day = undefined;
      },
      text() {},
    });
  } catch (err) {
    if (err instanceof XmlError) throw fail(err.message);
    throw err;
  }
  return { days: days.days, missing: 0 };
}

const PK = [0x50, 0x4b, 0x03, 0x04];

/** The one .csv or .xml entry of a zip as the ECB serves them (`eurofxref-hist.zip`: eurofxref-hist.csv). */
function unzipped(bytes: Uint8Array, file: string): { text: string; name: string } {
  try {
    const zip = openZip(bytes, ZIP_LIMITS);
    const entries = zip.names.filter((n) => /\.(csv|xml)$/i.test(n) && !n.endsWith('/'));
    if (entries.length !== 1)
      throw new RateFileError(
        `${file}: a zip of reference rates holds one .csv or .xml file, this one ${entries.length}`,
      );
    return { text: new TextDecoder('utf-8').decode(zip.read(entries[0]!)), name: `${file}:${entries[0]}` };
  } catch (err) {
    if (err instanceof ZipGuardError) throw new RateFileError(`${file}: ${err.message}`);
    throw err;
  }
}

/** Reads a reference-rate file (CSV, XML, or either zipped), refusing it whole when it is not one. */
export function readRateFile(bytes: Uint8Array, file: string): RateTable {
  if (bytes.byteLength > RATE_FILE_MAX_BYTES)
    throw new RateFileError(`${file}: larger than the ${RATE_FILE_MAX_BYTES} bytes read`);
  let name = file;
  let text: string;
  if (PK.every((b, i) => bytes[i] === b)) ({ text, name } = unzipped(bytes, file));
  else text = new TextDecoder('utf-8').decode(bytes);
  text = text.replace(/^\uFEFF/, '');
  const head = text.trimStart().slice(0, 200).toLowerCase();
  if (head === '') throw new RateFileError(`${name}: empty file`);
  if (head.startsWith('<!doctype html') || head.startsWith('<html') || /<(?:html|head|body)[\s>]/.test(head))
    throw new RateFileError(`${name}: an HTML page, not reference rates (a page saved instead of the file?)`);
  const table = head.startsWith('<') ? readXml(text, name) : readCsv(text, name);
  if (table.days.every((d) => d.rates.size === 0)) throw new RateFileError(`${name}: no rate in the file`);
  return table;
}

/** When the rates of a day were published: 16:00 Frankfurt that day (the ECB says "around 16:00 CET"), estimated. */
export function rateDayStamp(date: string): PublicationStamp {
  return { at: referenceRatesPublishedAt(date).toISOString(), estimated: true };
}

/**
 * The series items of a table, currency by currency and oldest first: `FX_EUR_<CCY>`, type price,
 * daily, unit `<CCY>/EUR`, provenance `ecb:<CCY>`. Every point of a currency's calendar year carries
 * the stamp of that year's newest rate in the file (16:00 Frankfurt of its date), so a currency's
 * year goes out as one event; the daily sync's new day is its own year's newest, stamped by its day.
 */
export function rateItems(
  table: RateTable,
  opts: { file: string; stats?: ParseStats | undefined; from?: string },
): SourceItem[] {
  const byCcy = new Map<string, { date: string; rate: number }[]>();
  for (const day of table.days) {
    if (opts.from !== undefined && day.date < opts.from) continue;
    for (const [ccy, rate] of day.rates) {
      let list = byCcy.get(ccy);
      if (list === undefined) byCcy.set(ccy, (list = []));
      list.push({ date: day.date, rate });
    }
  }
  const items: SourceItem[] = [];
  const known = new Map<string, PublicationStamp>();
  const stamps = (date: string) => {
    let stamp = known.get(date);
    if (stamp === undefined) known.set(date, (stamp = rateDayStamp(date)));
    return stamp;
  };
  for (const ccy of [...byCcy.keys()].sort()) {
    const points = byCcy.get(ccy)!.sort((a, b) => (a.date < b.date ? -1 : 1));
    const newestOfYear = new Map<string, string>();
    for (const p of points) newestOfYear.set(p.date.slice(0, 4), p.date);
    for (const p of points) {
      const stats = opts.stats;
      items.push(
        seriesItem(
          rateSeriesId(ccy),
          'price',
          'daily',
          rateUnit(ccy),
          { date: p.date, value: p.rate },
          { file: opts.file, line: 0, ...(stats ? { stats } : {}) },
          `ecb:${ccy}`,
          undefined,
          stamps(newestOfYear.get(p.date.slice(0, 4))!),
        ),
      );
    }
  }
  return items;
}
