import type { ReadModelName } from '@cds/read-models';
import { createMetrics, declareMetrics, type Metrics } from '@cds/telemetry';
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
  /**
   * Change records `CDS_CHANGES` acknowledged, by topic: `stored` now, or `duplicate` (it had the
   * id already: a record published again by a retry or a redelivery, stored once).
   */
  changeRecords: Record<'stored' | 'duplicate', Map<string, number>>;
  /** Change record publishes that failed (their batch was retried in place). */
  changeFailures: number;
  /**
   * cot: the consistency checks failed by the report versions the projection wrote, by
   * `<dataset>|<check>` (each failed check of each report version once).
   */
  cotCheckFailures: Map<string, number>;
  /** supply_demand: the consistency checks failed by the balance sheet releases the projection wrote, by check. */
  supplyDemandCheckFailures: Map<string, number>;
  /** cot, supply_demand: writes and deletes of COT_CHECKS_BUCKET keys that failed (kept and retried with the next batch). */
  cotCheckStoreFailures: number;
  /** series, cot, supply_demand: release ledger flushes that failed (no RELEASES_BUCKET, a key not written): retried by the next. */
  ledgerStoreFailures: number;
  lastPosition: number;
  /**
   * Time the applied batches spent per phase (ms): reading the documents (`load`), folding the
   * events (`fold`), writing (`write`), and the after-apply reactors (`after`: notices, change records).
   */
  phaseMs: Record<ProjectionPhase, number>;
  /** Messages left for the consumer after the last handled one (0: caught up). */
  pending: number;
  /**
   * When the stream stored the oldest event this projection has not finished with (ms since the
   * epoch); undefined when it is caught up. The lag gauge is the age of that event.
   */
  behindSinceMs: number | undefined;
}

/** The phases of an applied batch, in order. */
export const PROJECTION_PHASES = ['load', 'fold', 'write', 'after'] as const;
export type ProjectionPhase = (typeof PROJECTION_PHASES)[number];

type CountKey = Exclude<
  keyof ProjectionStats,
  'events' | 'behindSinceMs' | 'changeRecords' | 'phaseMs' | 'cotCheckFailures' | 'supplyDemandCheckFailures'
>;

/** Counters and gauges per projection, read from the stats when /metrics is scraped (libs/telemetry). */
export interface ProjectorMetrics {
  of(name: ReadModelName): ProjectionStats;
  /** The Prometheus text exposition (libs/telemetry's `render`). */
  render(): Promise<string>;
  shutdown(): Promise<void>;
}

/** The metrics read straight from a stats field: name (counters get `_total`), kind, help, field. */
const FIELDS: readonly [string, 'counter' | 'gauge', string, CountKey][] = [
  ['cds_projector_documents_written', 'counter', 'Read-model documents written.', 'documents'],
  ['cds_projector_conflicts', 'counter', 'Compare-and-set conflicts (concurrent writers).', 'conflicts'],
  ['cds_projector_parked', 'counter', 'Events parked on the dead-letter subject.', 'parked'],
  ['cds_projector_stream_gaps', 'counter', 'Deleted stream messages detected between deliveries.', 'gaps'],
  ['cds_projector_retries', 'counter', 'Transient failures retried in place.', 'retries'],
  [
    'cds_projector_stalls',
    'counter',
    'Stalls found by the watchdog (no progress while messages were pending).',
    'stalls',
  ],
  [
    'cds_projector_stall_recovery_failures',
    'counter',
    'Stalls the watchdog could not recover (/healthz fails).',
    'stallRecoveryFailures',
  ],
  [
    'cds_projector_change_record_failures',
    'counter',
    'Change record publishes on CDS_CHANGES that failed (the batch is retried).',
    'changeFailures',
  ],
  [
    'cds_projector_cot_check_store_failures',
    'counter',
    'Writes and deletes of the consistency failures KV bucket (COT reports, balance sheets) that failed (retried ' +
      'with the next batch).',
    'cotCheckStoreFailures',
  ],
  [
    'cds_projector_ledger_store_failures',
    'counter',
    'Release ledger flushes that failed: no CDS_RELEASES bucket, or a key not written (retried by the next flush).',
    'ledgerStoreFailures',
  ],
  ['cds_projector_last_position', 'gauge', 'Stream sequence of the last handled event.', 'lastPosition'],
  ['cds_projector_pending_messages', 'gauge', 'Messages the consumer has yet to handle (lag).', 'pending'],
];

/**
 * The projector's metrics on a libs/telemetry meter, like every service's: the workers count into
 * plain fields per projection (`of(name)`), and observable instruments report them when metrics
 * are collected. `nowMs` is the clock the lag is measured with.
 */
export function createProjectorMetrics(
  nowMs: () => number = Date.now,
  metrics: Metrics = createMetrics('projector'),
): ProjectorMetrics {
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
        changeRecords: { stored: new Map(), duplicate: new Map() },
        changeFailures: 0,
        cotCheckFailures: new Map(),
        supplyDemandCheckFailures: new Map(),
        cotCheckStoreFailures: 0,
        ledgerStoreFailures: 0,
        lastPosition: 0,
        phaseMs: { load: 0, fold: 0, write: 0, after: 0 },
        pending: 0,
        behindSinceMs: undefined,
      };
      stats.set(name, s);
    }
    return s;
  };
  const m = declareMetrics(metrics);
  m.observe('cds_projector_events', 'counter', 'Events handled, by outcome.', (report) => {
    for (const [projection, s] of stats) {
      report(s.events.applied, { projection, outcome: 'applied' });
      report(s.events.ignored, { projection, outcome: 'ignored' });
    }
  });
  m.observe(
    'cds_projector_change_records',
    'counter',
    'Change records acknowledged by CDS_CHANGES, by topic and outcome (stored, duplicate).',
    (report) => {
      for (const [projection, s] of stats) {
        for (const outcome of ['stored', 'duplicate'] as const) {
          for (const [topic, n] of s.changeRecords[outcome]) report(n, { projection, topic, outcome });
        }
      }
    },
  );
  m.observe(
    'cds_projector_cot_check_failures',
    'counter',
    'COT consistency checks failed by the report versions the projector wrote, by dataset and check ' +
      '(docs/operations.md "COT consistency checks").',
    (report) => {
      for (const s of stats.values()) {
        for (const [key, n] of s.cotCheckFailures) {
          const [dataset, check] = key.split('|');
          report(n, { dataset: dataset!, check: check! });
        }
      }
    },
  );
  m.observe(
    'cds_projector_supply_demand_check_failures',
    'counter',
    'Consistency checks failed by the balance sheet releases (editions, re-posts) the projector wrote, by check ' +
      '(docs/operations.md "Supply and demand consistency checks").',
    (report) => {
      for (const s of stats.values()) {
        for (const [check, n] of s.supplyDemandCheckFailures) report(n, { check });
      }
    },
  );
  m.observe(
    'cds_projector_phase_seconds',
    'counter',
    'Time applied batches spent per phase: load (read documents), fold, write, after (notices, change records).',
    (report) => {
      for (const [projection, s] of stats) {
        for (const phase of PROJECTION_PHASES) report(s.phaseMs[phase] / 1000, { projection, phase });
      }
    },
  );
  m.observe(
    'cds_projector_lag_seconds',
    'gauge',
    'Age of the oldest stored event the projection has not applied yet (0: caught up).',
    (report) => {
      const now = nowMs();
      for (const [projection, s] of stats) {
        report(s.behindSinceMs === undefined ? 0 : Math.max(0, now - s.behindSinceMs) / 1000, { projection });
      }
    },
  );
  for (const [name, kind, description, key] of FIELDS) {
    m.observe(name, kind, description, (report) => {
      for (const [projection, s] of stats) report(s[key], { projection });
    });
  }
  return { of, render: () => metrics.render(), shutdown: () => metrics.shutdown() };
}
