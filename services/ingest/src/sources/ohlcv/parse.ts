import type { SourceItem } from '../types.ts';
import { readCsvTable } from '../common/csv.ts';
import { rejected, seriesItem, type ParseOptions } from '../common/records.ts';
import { countSkip } from '../common/stats.ts';
import type { TextInput } from '../common/text.ts';
import { isoDatePrefix, readDecimal, usDateToIso } from '../common/values.ts';

export interface OhlcvOptions extends ParseOptions {
  /** Catalog id of the commodity the whole file belongs to. */
  commodity: string;
}

const COLUMNS = ['date', 'open', 'high', 'low', 'close', 'volume'] as const;

/**
 * Streams a generic daily OHLCV CSV (`Date,Open,High,Low,Close,Volume`, any column order, extra
 * columns ignored, dates YYYY-MM-DD or M/D/YYYY). Each row yields a daily `price` point
 * (value = close, with open/high/low/close/volume; SeriesPointRecord checks low <= open, close <=
 * high) and a daily `volume` point. A row with a missing price is skipped (missing_value).
 */
export async function* parseOhlcvCsv(input: TextInput, options: OhlcvOptions): AsyncGenerator<SourceItem> {
  const { file, stats } = options;
  const { catalog } = options;
  const commodity = catalog.byId(options.commodity);
  if (!commodity) {
    yield rejected(file, 1, `unknown commodity "${options.commodity}"`, stats);
    return;
  }
  const id = commodity.entry.id;
  const where = (line: number) => ({ file, line, ...(stats ? { stats } : {}) });
  const index = new Map<string, number>();
  const readHeader = (header: string[]): string | undefined => {
    for (const c of COLUMNS) index.set(c, header.indexOf(c));
    const missing = COLUMNS.filter((c) => index.get(c) === -1);
    return missing.length > 0
      ? `header lacks ${missing.join(', ')} (expected Date,Open,High,Low,Close,Volume)`
      : undefined;
  };
  for await (const rec of readCsvTable(input, options, readHeader)) {
    if (rec.kind === 'rejected') {
      yield rec;
      continue;
    }
    const get = (c: string) => rec.fields[index.get(c)!];
    const rawDate = get('date') ?? '';
    const date = isoDatePrefix(rawDate) ?? usDateToIso(rawDate);
    if (!date) {
      yield rejected(file, rec.line, `invalid date "${rawDate}"`, stats);
      continue;
    }
    const values: Record<string, number> = {};
    let missing = false;
    let bad: string | undefined;
    for (const c of ['open', 'high', 'low', 'close', 'volume']) {
      const cell = readDecimal(get(c));
      if (cell.ok) values[c] = cell.value;
      else if (cell.missing) missing = true;
      else bad ??= `${c} is not a number "${cell.raw}"`;
    }
    if (bad) {
      yield rejected(file, rec.line, bad, stats);
      continue;
    }
    if (missing) {
      if (stats) countSkip(stats, 'missing_value');
      continue;
    }
    const volume = values.volume!;
    if (!Number.isInteger(volume) || volume < 0) {
      yield rejected(file, rec.line, `volume must be a non-negative integer, got ${volume}`, stats);
      continue;
    }
    const price = seriesItem(
      id,
      'price',
      'daily',
      commodity.entry.unit,
      { date, value: values.close, open: values.open, high: values.high, low: values.low, close: values.close, volume },
      where(rec.line),
      undefined,
      'futures_settlement',
    );
    yield price;
    if (price.kind === 'series')
      yield seriesItem(id, 'volume', 'daily', 'contracts', { date, value: volume }, where(rec.line));
  }
}
