import { DATASET_CONDITIONS } from '@cds/contracts';
import { declareMetrics, type Metrics } from '@cds/telemetry';
import type { DatasetsBoard } from './board.ts';
import type { IncidentTable } from './tables.ts';

/**
 * Gauges of the datasets board, read when Prometheus scrapes: each dataset's condition today (0
 * available, 1 degraded, 2 late, 3 missing: an alert rule compares it, docs/freshness.md), and the
 * incidents the table's bound dropped.
 */
export function registerDatasetMetrics(
  metrics: Metrics,
  deps: { board: DatasetsBoard; incidents: IncidentTable; nowMs: () => number },
): void {
  const instruments = declareMetrics(metrics);
  instruments.observe(
    'cds_dataset_condition',
    'gauge',
    "Each dataset's condition today in New York: 0 available, 1 degraded, 2 late, 3 missing",
    (report) => {
      for (const d of deps.board.document(deps.nowMs()).data) {
        report(DATASET_CONDITIONS.indexOf(d.condition), { dataset: d.id, source: d.source });
      }
    },
  );
  instruments.observe(
    'cds_gateway_incidents_dropped',
    'counter',
    'Incidents not held because the table was full (INCIDENTS_MAX)',
    (report) => report(deps.incidents.dropped),
  );
}
