import type { IngestSummary } from '../publish/pipeline.ts';
import type { ParseStats } from '../sources/index.ts';

const fmt = (n: number) => n.toLocaleString('en-US');

function duration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  const s = ms / 1_000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/**
 * The end-of-run summary: counts, then the first `maxListed` rejections as `file:line: reason`
 * (with how many more there were).
 */
export function formatSummary(
  s: IngestSummary,
  opts: { title: string; maxListed?: number; parse?: ParseStats },
): string {
  const maxListed = opts.maxListed ?? 20;
  // A parser's row count includes rows it skipped on purpose (not in the catalog, withheld values).
  const read = Math.max(s.recordsRead, opts.parse?.rows ?? 0);
  const rate = s.elapsedMs > 0 ? Math.round((read / s.elapsedMs) * 1000) : 0;
  const lines = [
    `Summary: ${opts.title}`,
    `  records read:        ${fmt(read)}`,
    `  rejected:            ${fmt(s.rejected)}`,
    `  events published:    ${fmt(s.eventsPublished)} (${fmt(s.eventsPublished - s.catalogPublished)} with ${fmt(s.recordsPublished - s.catalogPublished)} records, ${fmt(s.catalogPublished)} catalog)`,
    `  duplicates skipped:  ${fmt(s.duplicatesSkipped)} (${fmt(s.duplicatesSkipped - s.catalogDuplicates)} data, ${fmt(s.catalogDuplicates)} catalog)`,
  ];
  const skipped = opts.parse?.skipped ?? 0;
  if (skipped > 0) {
    const reasons = Object.entries(opts.parse?.skippedByReason ?? {})
      .map(([reason, n]) => `${reason}: ${fmt(n)}`)
      .join(', ');
    lines.push(`  skipped:             ${fmt(skipped)} (${reasons})`);
  }
  const flagged = Object.entries(opts.parse?.failedChecks ?? {});
  if (flagged.length > 0) {
    const total = flagged.reduce((n, [, k]) => n + k, 0);
    const checks = flagged.map(([check, n]) => `${check}: ${fmt(n)}`).join(', ');
    lines.push(`  flagged (published): ${fmt(total)} (${checks})`);
  }
  if (s.replaced > 0) lines.push(`  superseded in input: ${fmt(s.replaced)} (a later row had the same date)`);
  lines.push(`  elapsed:             ${duration(s.elapsedMs)} (${fmt(rate)} records/s)`);
  if (s.rejected > 0) {
    lines.push('', `Rejected rows${s.rejected > maxListed ? ` (first ${maxListed} of ${fmt(s.rejected)})` : ''}:`);
    for (const r of s.rejections.slice(0, maxListed)) lines.push(`  ${r.file}:${r.line}: ${r.reason}`);
    if (s.rejected > maxListed) lines.push(`  ... and ${fmt(s.rejected - maxListed)} more`);
  }
  return lines.join('\n');
}
