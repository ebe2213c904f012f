import { byEiaSeries, type EiaSeriesMatch } from './lookup.ts';
import type { SourceItem } from '../types.ts';
import { parseCsvRecord } from '../common/csv.ts';
import { rejected, type ParseOptions } from '../common/records.ts';
import { countSkip } from '../common/stats.ts';
import { readLines, type TextInput } from '../common/text.ts';
import { eiaObservation } from './observation.ts';
import { frequencyOfHeader } from './periods.ts';

export interface EiaCsvOptions extends ParseOptions {
  /** EIA series id of the file; read from the preamble's source URL when omitted. */
  series?: string;
}

/** Series id from a preamble URL: `.../hist/RWTCD.htm` or `LeafHandler.ashx?n=PET&s=WCESTUS1&f=W`. */
function seriesFromUrl(url: string): string[] {
  const s = /[?&]s=([A-Za-z0-9_]+)/.exec(url);
  if (s) return [s[1]!];
  const h = /\/hist\/([A-Za-z0-9_]+)\.htm/i.exec(url);
  // the dnav page name is the series id followed by a frequency letter (RWTCD = RWTC, daily)
  if (h) return [h[1]!, h[1]!.slice(0, -1)];
  return [];
}

/**
 * Streams an EIA "Download Data (CSV)" file: a preamble (title, source URL, timestamp, data
 * source), a header whose first cell names the frequency (Day, Week of, Month), then rows newest
 * first with `MM/D/YYYY` dates (or `Mon YYYY` months). Dates become YYYY-MM-DD (monthly: the
 * month's last day). Order is kept as in the file; the publisher batches by period. Empty values
 * are skipped (counted as missing_value); a bad date or number rejects the row.
 */
export async function* parseEiaCsv(input: TextInput, options: EiaCsvOptions): AsyncGenerator<SourceItem> {
  const { file, stats } = options;
  const { catalog } = options;
  let candidates: string[] = options.series ? [options.series] : [];
  let mapping: EiaSeriesMatch | undefined;
  let inData = false;
  let lineNo = 0;
  for await (const line of readLines(input)) {
    lineNo++;
    if (!inData) {
      if (!options.series && /^https?:\/\//i.test(line.trim())) candidates = seriesFromUrl(line.trim());
      const first = (parseCsvRecord(line) ?? [''])[0] ?? '';
      const frequency = frequencyOfHeader(first);
      if (!frequency) continue; // preamble
      mapping = candidates.map((c) => byEiaSeries(catalog, c)).find(Boolean);
      if (!mapping) {
        if (candidates.length === 0) {
          yield rejected(file, lineNo, 'series id unknown: no source URL in the preamble and no series option', stats);
        } else if (stats) {
          countSkip(stats, 'unknown_series');
        }
        return;
      }
      if (mapping.series.frequency !== frequency) {
        yield rejected(
          file,
          lineNo,
          `file is ${frequency} but series ${mapping.series.id} is mapped as ${mapping.series.frequency}`,
          stats,
        );
        return;
      }
      inData = true;
      continue;
    }
    if (line.trim() === '') continue;
    if (stats) stats.rows++;
    const fields = parseCsvRecord(line);
    if (!fields || fields.length < 2) {
      yield rejected(file, lineNo, `expected 2 fields (date, value), got ${fields?.length ?? 0}`, stats);
      continue;
    }
    const item = eiaObservation({
      mapping: mapping!,
      period: fields[0]!,
      value: fields[1],
      file,
      line: lineNo,
      stats,
      badPeriod: (frequency) => `invalid ${frequency} date "${fields[0]}"`,
    });
    if (item) yield item;
  }
  if (!inData) yield rejected(file, Math.max(lineNo, 1), 'no EIA header row (Day, Week of or Month) found', stats);
}
