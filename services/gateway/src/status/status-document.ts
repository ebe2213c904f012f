import { SYNC_SOURCE_NAMES, type ScheduledRelease, type SourceStatus, type StatusResponse } from '@cds/contracts';
import { freshnessOf, type ScheduledRelease as Release } from '@cds/schedule';
import { declareMetrics, type Metrics } from '@cds/telemetry';
import type { CotChecksView } from './cot-checks.ts';
import type { SyncStateView } from './sync-state.ts';

export type StatusData = StatusResponse['data'];

function release(r: Release): ScheduledRelease {
  return {
    report: r.report,
    at: r.at.toISOString(),
    local_date: r.date,
    local_time: r.time,
    data_date: r.dataDate,
    ...(r.shiftedBy !== undefined ? { shifted_by: r.shiftedBy } : {}),
  };
}

/** Each source's status at `now`: what the KV holds, judged against the release schedule. */
export function statusOf(states: SyncStateView, now: Date): SourceStatus[] {
  return SYNC_SOURCE_NAMES.map((source) => {
    const s = states.get(source);
    const newest = s?.newest_data_date ?? null;
    const f = freshnessOf(source, newest, now);
    return {
      source,
      last_success_at: s?.last_success_at ?? null,
      last_run_at: s?.last_run_at ?? null,
      last_run_failed: s?.last_error !== undefined,
      newest_data_date: newest,
      last_due_release: release(f.due),
      next_release: release(f.next),
      late: f.late,
    };
  });
}

export interface StatusBoard {
  /** The status document at `nowMs`, recomputed at most once a second or when a source's state changes. */
  document(nowMs: number): StatusData;
}

/**
 * The /status document from memory. `demo` is the deployment's own statement (gateway config
 * `DEMO_DATA`, set by `npm start`, which loads generated data): neither the KV nor the gateway can
 * tell generated numbers from real ones otherwise. `consistency` comes from the followed COT
 * consistency failures (cot-checks.ts), absent when no report failed a check (or nothing is followed).
 */
export function createStatusBoard(
  states: SyncStateView,
  opts: { demo: boolean; checks?: CotChecksView | undefined },
): StatusBoard {
  const { checks } = opts;
  let cached: { second: number; version: number; checks: number; data: StatusData } | undefined;
  return {
    document(nowMs) {
      const second = Math.floor(nowMs / 1000);
      const version = states.version();
      const checksVersion = checks?.version() ?? 0;
      if (cached?.second !== second || cached.version !== version || cached.checks !== checksVersion) {
        const consistency = checks?.consistency(nowMs) ?? [];
        cached = {
          second,
          version,
          checks: checksVersion,
          data: {
            demo: opts.demo,
            sources: statusOf(states, new Date(nowMs)),
            ...(consistency.length > 0 ? { consistency } : {}),
          },
        };
      }
      return cached.data;
    },
  };
}

const seconds = (iso: string | null | undefined) => (iso ? Date.parse(iso) / 1000 : undefined);

/**
 * Gauges per source, read from the followed KV state when Prometheus scrapes: last success and
 * newest data (issue #12), plus what the alert rules compare them with (docs/operations.md).
 */
export function registerSourceMetrics(metrics: Metrics, states: SyncStateView, nowMs: () => number): void {
  const instruments = declareMetrics(metrics);
  const gauge = (name: string, description: string, value: (s: SourceStatus) => number | undefined) =>
    instruments.observe(name, 'gauge', description, (report) => {
      for (const s of statusOf(states, new Date(nowMs()))) {
        const v = value(s);
        if (v !== undefined && Number.isFinite(v)) report(v, { source: s.source });
      }
    });
  gauge('cds_source_last_success_timestamp_seconds', 'Unix time of the last sync that fetched every series', (s) =>
    seconds(s.last_success_at),
  );
  gauge('cds_source_newest_data_timestamp_seconds', 'Unix time (UTC midnight) of the newest synced observation', (s) =>
    seconds(s.newest_data_date),
  );
  gauge(
    'cds_source_expected_data_timestamp_seconds',
    'Unix time (UTC midnight) of the data date of the last release due (scheduled time + 2 h grace)',
    (s) => seconds(s.last_due_release.data_date),
  );
  gauge('cds_source_late', '1 when the newest synced data is older than the last release due', (s) => (s.late ? 1 : 0));
  gauge('cds_source_last_run_failed', '1 when the last sync of the source failed for some series', (s) =>
    s.last_run_at === null ? undefined : s.last_run_failed ? 1 : 0,
  );
}
