import type { IngestProgress } from '../publish/pipeline.ts';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressReporter {
  update(p: IngestProgress): void;
  /** Clears the bar (TTY) so the summary starts on a clean line. */
  done(): void;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * Progress on stderr: a redrawn bar on a terminal (fraction from `fraction()`, e.g. bytes read of
 * the file size), else a plain line at most every `intervalMs`, so logs stay readable.
 */
export function createProgressReporter(
  out: ProgressOutput,
  opts: { fraction?: () => number | undefined; intervalMs?: number; now?: () => number } = {},
): ProgressReporter {
  const now = opts.now ?? Date.now;
  const interval = opts.intervalMs ?? (out.isTTY === true ? 100 : 5_000);
  const started = now();
  let last = 0;
  let drawn = false;
  return {
    update(p) {
      const t = now();
      if (t - last < interval) return;
      last = t;
      const rate = Math.round((p.recordsRead / Math.max(1, t - started)) * 1000);
      const counts = `${fmt(p.recordsRead)} read, ${fmt(p.rejected)} rejected, ${fmt(p.eventsPublished)} events, ${fmt(p.duplicatesSkipped)} dup, ${fmt(rate)}/s`;
      const f = opts.fraction?.();
      if (out.isTTY === true) {
        let bar = '';
        if (f !== undefined) {
          const width = 24;
          const filled = Math.round(Math.min(1, Math.max(0, f)) * width);
          bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(Math.min(1, f) * 100).toFixed(0).padStart(3)}% `;
        }
        const line = `${bar}${counts}`.slice(0, Math.max(20, (out.columns ?? 120) - 1));
        out.write(`\r\u001b[2K${line}`);
        drawn = true;
      } else {
        out.write(`progress: ${f !== undefined ? `${(Math.min(1, f) * 100).toFixed(0)}% ` : ''}${counts}\n`);
      }
    },
    done() {
      if (drawn) out.write('\r\u001b[2K');
    },
  };
}
