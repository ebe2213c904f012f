import type { ReadModelName } from '@cds/read-models';
import type { ApplyOutcome } from './runner/apply-event.ts';

export interface ProjectionStats {
  events: Record<Exclude<ApplyOutcome, 'conflict'>, number>;
  /** Documents written. */
  documents: number;
  conflicts: number;
  /** Events that failed their schema and were parked. */
  parked: number;
  /** Stream messages found deleted between two delivered ones (possible loss). */
  gaps: number;
  /** Transient failures retried in place. */
  retries: number;
  /** Stalls the watchdog found (no progress while messages were pending). */
  stalls: number;
  /** Stalls still there after the watchdog's recovery (/healthz then fails). */
  stallRecoveryFailures: number;
  lastPosition: number;
  /** Messages left for the consumer after the last handled one (0: caught up). */
  pending: number;
  /**
   * When the stream stored the oldest event this projection has not finished with (ms since the
   * epoch); undefined when it is caught up. The lag gauge is the age of that event.
   */
  behindSinceMs: number | undefined;
}

type CountKey = Exclude<keyof ProjectionStats, 'events' | 'behindSinceMs'>;

/** In-process counters per projection, rendered in the Prometheus text format on /metrics. */
export interface ProjectorMetrics {
  of(name: ReadModelName): ProjectionStats;
  render(): string;
}

/** `nowMs` is the clock the lag is measured with. */
export function createProjectorMetrics(nowMs: () => number = Date.now): ProjectorMetrics {
  const stats = new Map<ReadModelName, ProjectionStats>();
  const of = (name: ReadModelName): ProjectionStats => {
    let s = stats.get(name);
    if (s === undefined) {
      s = {
        events: { applied: 0, ignored: 0 },
        documents: 0,
        conflicts: 0,
        parked: 0,
        gaps: 0,
        retries: 0,
        stalls: 0,
        stallRecoveryFailures: 0,
        lastPosition: 0,
        pending: 0,
        behindSinceMs: undefined,
      };
      stats.set(name, s);
    }
    return s;
  };
  return {
    of,
    render() {
      const lines: string[] = [];
      const metric = (name: string, type: 'counter' | 'gauge', help: string, rows: [string, number][]) => {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
        for (const [labels, v] of rows) lines.push(`${name}{${labels}} ${v}`);
      };
      const all = [...stats.entries()];
      metric(
        'cds_projector_events_total',
        'counter',
        'Events handled, by outcome.',
        all.flatMap(([p, s]) => [
          [`projection="${p}",outcome="applied"`, s.events.applied] as [string, number],
          [`projection="${p}",outcome="ignored"`, s.events.ignored] as [string, number],
        ]),
      );
      const now = nowMs();
      metric(
        'cds_projector_lag_seconds',
        'gauge',
        'Age of the oldest stored event the projection has not applied yet (0: caught up).',
        all.map(([p, s]) => [
          `projection="${p}"`,
          s.behindSinceMs === undefined ? 0 : Math.max(0, now - s.behindSinceMs) / 1000,
        ]),
      );
      const simple: [string, 'counter' | 'gauge', string, CountKey][] = [
        ['cds_projector_documents_written_total', 'counter', 'Read-model documents written.', 'documents'],
        ['cds_projector_conflicts_total', 'counter', 'Compare-and-set conflicts (concurrent writers).', 'conflicts'],
        ['cds_projector_parked_total', 'counter', 'Events parked on the dead-letter subject.', 'parked'],
        ['cds_projector_stream_gaps_total', 'counter', 'Deleted stream messages detected between deliveries.', 'gaps'],
        ['cds_projector_retries_total', 'counter', 'Transient failures retried in place.', 'retries'],
        [
          'cds_projector_stalls_total',
          'counter',
          'Stalls found by the watchdog (no progress while messages were pending).',
          'stalls',
        ],
        [
          'cds_projector_stall_recovery_failures_total',
          'counter',
          'Stalls the watchdog could not recover (/healthz fails).',
          'stallRecoveryFailures',
        ],
        ['cds_projector_last_position', 'gauge', 'Stream sequence of the last handled event.', 'lastPosition'],
        ['cds_projector_pending_messages', 'gauge', 'Messages the consumer has yet to handle (lag).', 'pending'],
      ];
      for (const [name, type, help, key] of simple) {
        metric(
          name,
          type,
          help,
          all.map(([p, s]) => [`projection="${p}"`, s[key]]),
        );
      }
      return `${lines.join('\n')}\n`;
    },
  };
}
