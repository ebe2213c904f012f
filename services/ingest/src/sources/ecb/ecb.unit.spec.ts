import { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../registry.ts';
import { createParseStats } from '../common/stats.ts';
import type { SeriesItem, SourceItem } from '../types.ts';
import { collect, ownFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { buildZip } from '../../../test/helpers/zip.ts';
import { ecb, rateItems, RateFileError, readRateFile } from './index.ts';
import { RATE_FILE_MAX_BYTES } from './parse.ts';

// Real excerpts of the ECB's files and a 90-day XML written in the ECB's shape (test/fixtures/README.md).
const HIST = ownFixturePath('ecb_eurofxref-hist_excerpt.csv');
const HIST_2014 = ownFixturePath('ecb_eurofxref-hist_2014-08_excerpt.csv');
const DAILY = ownFixturePath('ecb_eurofxref_2026-04-13.csv');
const XML_90D = ownFixturePath('sync/ecb_eurofxref-hist-90d_handwritten.xml');

const series = (items: SourceItem[]) => items.filter((i): i is SeriesItem => i.kind === 'series');
const rate = (items: SourceItem[], ccy: string, date: string) =>
  series(items).find((i) => i.commodity_id === `FX_EUR_${ccy}` && i.point.date === date)?.point.value;
const read = (path: string) => rateItems(readRateFile(readFileSync(path), path), { file: path });
const refused = (text: string | Buffer, file = 'eurofxref-hist.csv') => {
  try {
    readRateFile(typeof text === 'string' ? Buffer.from(text) : text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(RateFileError);
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe('the whole-history CSV (eurofxref-hist.csv)', () => {
  it('reads every currency of every day, the legacy ones with their dates, N/A skipped', () => {
    const table = readRateFile(readFileSync(HIST), 'eurofxref-hist.csv');
    expect(table.days.map((d) => d.date)).toEqual([
      '2026-04-13',
      '2026-04-10',
      '2026-04-09',
      '2026-04-08',
      '2026-04-07',
      '2008-01-02',
      '2007-12-31',
      '2005-07-01',
      '2005-06-30',
      '1999-01-05',
      '1999-01-04',
    ]);
    const items = rateItems(table, { file: 'eurofxref-hist.csv' });
    expect(rate(items, 'USD', '2026-04-13')).toBe(1.1684);
    expect(rate(items, 'JPY', '2026-04-07')).toBe(184.73);
    expect(rate(items, 'ISK', '2026-04-13')).toBe(143.2);
    // the Cyprus pound until its last day, 2007-12-31; the old Romanian leu until 2005-06-30; TRL in 1999
    expect(rate(items, 'CYP', '2007-12-31')).toBe(0.585274);
    expect(rate(items, 'CYP', '2008-01-02')).toBeUndefined();
    expect(rate(items, 'ROL', '2005-06-30')).toBe(36030);
    expect(rate(items, 'ROL', '2005-07-01')).toBeUndefined();
    expect(rate(items, 'TRL', '1999-01-04')).toBe(372274);
    // 41 currencies in the header; every cell without a rate counted
    expect(new Set(series(items).map((i) => i.commodity_id)).size).toBe(41);
    const cells = table.days.reduce((n, d) => n + d.rates.size, 0);
    expect(cells + table.missing).toBe(11 * 41);
  });

  it('publishes each point as a daily price of FX_EUR_<CCY> in <CCY>/EUR, with provenance ecb:<CCY>', () => {
    const usd = series(read(HIST)).find((i) => i.commodity_id === 'FX_EUR_USD' && i.point.date === '2026-04-09')!;
    expect(usd).toMatchObject({
      series_type: 'price',
      frequency: 'daily',
      unit: 'USD/EUR',
      source: 'ecb:USD',
      point: { date: '2026-04-09', value: 1.1685 },
    });
    expect(usd.price_basis).toBeUndefined();
  });

  it("stamps a currency's year with its newest rate's day at 16:00 Frankfurt (estimated): one event per currency and year", () => {
    const items = series(read(HIST));
    const usd = items.filter((i) => i.commodity_id === 'FX_EUR_USD');
    // 2026-04-13 is summer time in Frankfurt (UTC+2): 14:00Z
    expect(new Set(usd.filter((i) => i.point.date >= '2026').map((i) => i.published?.at))).toEqual(
      new Set(['2026-04-13T14:00:00.000Z']),
    );
    // 2007's newest USD rate is of 2007-12-31, winter time: 15:00Z
    expect(usd.find((i) => i.point.date === '2007-12-31')?.published).toEqual({
      at: '2007-12-31T15:00:00.000Z',
      estimated: true,
    });
    expect(usd.find((i) => i.point.date === '1999-01-04')?.published?.at).toBe('1999-01-05T15:00:00.000Z');
  });

  it('finds the columns by name: an older vintage with another column order gives the same rates', () => {
    const old = readRateFile(readFileSync(HIST_2014), 'eurofxref-hist.csv');
    expect(old.days[0]!.date).toBe('2014-08-25');
    // ILS is the last column of the 2014 vintage, between IDR and INR today
    expect(old.days[0]!.rates.get('ILS')).toBe(4.6722);
    expect(old.days[0]!.rates.get('USD')).toBe(1.32);
    expect(old.days[0]!.rates.get('RUB')).toBe(47.7272);
  });

  it('reads the same file zipped, as the ECB serves it (eurofxref-hist.zip)', () => {
    const zip = buildZip([{ name: 'eurofxref-hist.csv', data: readFileSync(HIST) }]);
    expect(readRateFile(zip, 'eurofxref-hist.zip')).toEqual(readRateFile(readFileSync(HIST), 'eurofxref-hist.zip'));
  });
});

describe('the daily CSV (eurofxref.csv) and the XML files', () => {
  it('reads the daily file: spaces after the commas, the date written "13 April 2026"', () => {
    const items = read(DAILY);
    expect(series(items)).toHaveLength(29);
    expect(rate(items, 'USD', '2026-04-13')).toBe(1.1684);
    // `366.90` and `5.0920` as written there: the same numbers as the history file's 366.9 and 5.092
    expect(rate(items, 'HUF', '2026-04-13')).toBe(366.9);
    expect(rate(items, 'RON', '2026-04-13')).toBe(5.092);
    expect(rate(items, 'ZAR', '2026-04-13')).toBe(19.3849);
  });

  it('reads the XML (gesmes Envelope, a Cube per day, a Cube per rate) with the same numbers as the CSV', () => {
    const xml = read(XML_90D);
    const csv = read(HIST);
    expect(new Set(series(xml).map((i) => i.point.date))).toEqual(
      new Set(['2026-04-02', '2026-04-07', '2026-04-08', '2026-04-09', '2026-04-10', '2026-04-13']),
    );
    for (const i of series(csv).filter((i) => i.point.date >= '2026-04-07'))
      expect(rate(xml, i.commodity_id.slice(7), i.point.date), `${i.commodity_id} ${i.point.date}`).toBe(i.point.value);
  });

  it('backfill --source ecb --file: the input reads a file through the CLI path, counting the cells without a rate', async () => {
    const stats = createParseStats();
    const input = ecb.inputs[0]!;
    const chunks = Readable.from([readFileSync(HIST)]);
    const items = await collect(await input.file.open(chunks, { file: 'eurofxref-hist.csv', stats, catalog: CATALOG }));
    expect(series(items).length).toBe(stats.emitted);
    expect(stats.rows).toBe(11);
    expect(stats.skippedByReason.missing_value).toBe(11 * 41 - stats.emitted);
  });
});

describe('what is refused whole, naming the file and what is wrong', () => {
  it('an empty file, an HTML page saved as data, a file with no Date column', () => {
    expect(refused('')).toBe('eurofxref-hist.csv: empty file');
    expect(refused('\n\n  ')).toBe('eurofxref-hist.csv: empty file');
    expect(refused('<!DOCTYPE html>\n<html><head><title>ECB</title></head><body>Moved</body></html>')).toMatch(
      /eurofxref-hist.csv: an HTML page/,
    );
    expect(refused('Datum,USD,\n2026-04-13,1.1684,')).toMatch(/no Date column/);
    expect(refused('Date\n2026-04-13')).toMatch(/names no currency/);
    expect(refused('Date,USD,\n')).toMatch(/no rate in the file/);
  });

  it('a currency column that is not three capital letters, or one given twice', () => {
    expect(refused('Date,Usd,\n2026-04-13,1.1684,')).toMatch(/column 2 "Usd" is not a currency code/);
    expect(refused('Date,USD,EURO,\n2026-04-13,1.1684,1,')).toMatch(/"EURO" is not a currency code/);
    expect(refused('Date,USD,USD,\n2026-04-13,1.1684,1.1684,')).toMatch(/the column USD is given twice/);
  });

  it('a date that is not a date, a rate that is not a positive number, more cells than columns', () => {
    expect(refused('Date,USD,\n2026-02-30,1.1684,')).toBe('eurofxref-hist.csv: line 2: "2026-02-30" is not a date');
    expect(refused('Date,USD,\n13/04/2026,1.1684,')).toMatch(/line 2: "13\/04\/2026" is not a date/);
    expect(refused('Date,USD,\n2026-04-13,-1.1684,')).toMatch(/line 2: USD "-1.1684" is not a number/);
    expect(refused('Date,USD,\n2026-04-13,0,')).toMatch(/line 2: USD "0" is not a positive rate/);
    expect(refused('Date,USD,\n2026-04-13,1,2,3')).toMatch(/line 2: more cells than the header has columns/);
  });

  it('one date twice with other rates (the same rates twice count once)', () => {
    expect(refused('Date,USD,\n2026-04-13,1.1684,\n2026-04-13,1.17,')).toMatch(
      /line 3: 2026-04-13 is given twice with other rates/,
    );
    expect(readRateFile(Buffer.from('Date,USD,\n2026-04-13,1.1684,\n2026-04-13,1.1684,'), 'x.csv').days).toHaveLength(
      1,
    );
  });

  it('an XML that is not the ECB envelope, or a bad Cube', () => {
    expect(refused('<?xml version="1.0"?><rss><channel/></rss>', 'x.xml')).toMatch(
      /x.xml: not the ECB's reference-rate XML/,
    );
    const env = (cubes: string) => `<gesmes:Envelope xmlns:gesmes="g"><Cube>${cubes}</Cube></gesmes:Envelope>`;
    expect(refused(env("<Cube time='2026-04-31'><Cube currency='USD' rate='1.1'/></Cube>"), 'x.xml')).toMatch(
      /Cube time="2026-04-31">: not a date/,
    );
    expect(refused(env("<Cube time='2026-04-13'><Cube currency='USD' rate='n/a'/></Cube>"), 'x.xml')).toMatch(
      /2026-04-13: USD "n\/a" is not a number/,
    );
    expect(refused(env("<Cube currency='USD' rate='1.1'/>"), 'x.xml')).toMatch(/outside a day's <Cube time>/);
    expect(refused(env("<Cube time='2026-04-13'><Cube currency='USD' rate='1.1'/>"), 'x.xml')).toMatch(/malformed XML/);
    expect(refused(env(''), 'x.xml')).toMatch(/no rate in the file/);
  });

  it('refuses a bomb before it builds anything: a file over the bound, a zip entry that inflates past it', () => {
    const over = RATE_FILE_MAX_BYTES + 1;
    expect(refused(Buffer.alloc(over, 0x20))).toMatch(/larger than the \d+ bytes read/);
    // 32 MiB and a byte of zeros deflate to about 33 KB: stated honestly, and stated as 10 bytes
    const zeros = Buffer.alloc(over);
    expect(refused(buildZip([{ name: 'eurofxref-hist.csv', data: zeros }]), 'bomb.zip')).toMatch(
      /^bomb\.zip: zip entry eurofxref-hist\.csv declares 33554433 bytes unpacked, more than the 33554432 read/,
    );
    expect(refused(buildZip([{ name: 'eurofxref-hist.csv', data: zeros, declared: 10 }]), 'liar.zip')).toMatch(
      /^liar\.zip: /,
    );
  });

  it('a zip that holds no rates file, and the CLI input turns a refusal into its open error', async () => {
    expect(refused(buildZip([{ name: 'readme.txt', data: Buffer.from('x') }]), 'eurofxref-hist.zip')).toMatch(
      /holds one .csv or .xml file, this one 0/,
    );
    const chunks = Readable.from([Buffer.from('<html><body>Service unavailable</body></html>')]);
    await expect(
      ecb.inputs[0]!.file.open(chunks, { file: 'page.csv', stats: createParseStats(), catalog: CATALOG }),
    ).rejects.toThrow(/page.csv: an HTML page/);
  });
});
