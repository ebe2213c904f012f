/** Counters a parser updates as it goes (pass one in to read them after the stream ends). */
export interface ParseStats {
  /** Data rows / records read (header and preamble lines excluded). */
  rows: number;
  /** Items yielded as series or cot. */
  emitted: number;
  /** Rows skipped on purpose (unknown commodity, other location, forecast, ...). */
  skipped: number;
  rejected: number;
  /** Skipped rows by reason, e.g. { unknown_commodity: 3 }. */
  skippedByReason: Record<string, number>;
}

export function createParseStats(): ParseStats {
  return { rows: 0, emitted: 0, skipped: 0, rejected: 0, skippedByReason: {} };
}

export function countSkip(stats: ParseStats, reason: string): void {
  stats.skipped++;
  stats.skippedByReason[reason] = (stats.skippedByReason[reason] ?? 0) + 1;
}
