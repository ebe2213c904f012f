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
  /** Records emitted flagged by a row check, by check (COT: { old_plus_other_equals_all: 39 }). */
  failedChecks?: Record<string, number>;
}

export function createParseStats(): ParseStats {
  return { rows: 0, emitted: 0, skipped: 0, rejected: 0, skippedByReason: {} };
}

export function countSkip(stats: ParseStats, reason: string): void {
  stats.skipped++;
  stats.skippedByReason[reason] = (stats.skippedByReason[reason] ?? 0) + 1;
}

export function countFailedCheck(stats: ParseStats, check: string): void {
  const by = (stats.failedChecks ??= {});
  by[check] = (by[check] ?? 0) + 1;
}
