import { COT_CHECKS_DAYS, cotCheckKey, cotDatasetOf, type CotCheckFailure } from '@cds/contracts';
import { cotChecksBucketSpec, type Messaging } from '@cds/messaging';
import type { CotBucketDoc } from '@cds/read-models';
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { Logger } from 'pino';
import type { ProjectionStats } from '../metrics.ts';
import type { AfterApply, AppliedBatch } from './after-apply.ts';

/** What to do with one key of COT_CHECKS_BUCKET: store the failure, or delete the key (`value` absent). */
export interface CotCheckOp {
  key: string;
  value?: CotCheckFailure;
}

/** What a batch's written COT buckets say about the consistency checks. */
export interface CotCheckFindings {
  /** Each failed check of each report version the batch wrote, as `<dataset>|<check>`. */
  failures: string[];
  /** The KV operations, by key: the reports dated within COT_CHECKS_DAYS of `now` the batch changed. */
  ops: Map<string, CotCheckOp>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The findings of the report versions a batch wrote: a date of a written bucket changed in this
 * batch when its part position (the event that last changed it) is one of the batch's `changedBy`.
 * A changed report that fails a check is counted, and, when dated within COT_CHECKS_DAYS of `now`,
 * stored under its key; one that passes deletes its key when an earlier version of it failed (the
 * bucket keeps those among its revised versions), so a report that never failed writes nothing.
 */
export function cotCheckFindings(
  written: readonly CotBucketDoc[],
  changedBy: ReadonlySet<number>,
  now: Date,
): CotCheckFindings {
  const failures: string[] = [];
  const ops = new Map<string, CotCheckOp>();
  const since = new Date(now.getTime() - COT_CHECKS_DAYS * DAY_MS).toISOString().slice(0, 10);
  const checkedAt = now.toISOString();
  for (const doc of written) {
    const parts = doc._meta.parts;
    if (parts === undefined) continue;
    const dataset = cotDatasetOf(doc);
    let failedBefore: Set<string> | undefined;
    for (const report of doc.reports) {
      const at = parts[report.report_date];
      if (at === undefined || !changedBy.has(at)) continue;
      const failed = report.failed_checks ?? [];
      for (const check of failed) failures.push(`${dataset}|${check}`);
      if (report.report_date < since) continue;
      const key = cotCheckKey(dataset, report.report_date, doc.commodity_id);
      if (failed.length > 0) {
        const value = {
          dataset,
          report_date: report.report_date,
          commodity: doc.commodity_id,
          failed_checks: failed,
          checked_at: checkedAt,
        };
        ops.set(key, { key, value });
        continue;
      }
      failedBefore ??= new Set(
        (doc.revised ?? []).filter((r) => (r.failed_checks?.length ?? 0) > 0).map((r) => r.report_date),
      );
      if (failedBefore.has(report.report_date)) ops.set(key, { key });
    }
  }
  return { failures, ops };
}

/** What a batch says about the consistency checks (`cotCheckFindings` of the COT buckets it wrote, …). */
export type CheckFindingsOf = (applied: AppliedBatch, now: Date) => CotCheckFindings;

/** The findings of the cot projection: those of the COT buckets a batch wrote. */
export const cotBatchFindings: CheckFindingsOf = ({ result }, now) =>
  cotCheckFindings((result.writtenDocs ?? []) as readonly CotBucketDoc[], result.changedBy, now);

export interface CotCheckRecorderDeps {
  messaging: Pick<Messaging, 'nc'>;
  /** The projection's statistics (the store failures). */
  stats: Pick<ProjectionStats, 'cotCheckStoreFailures'>;
  /** What a batch says; default `cotBatchFindings` (the supply_demand projection gives its own). */
  findings?: CheckFindingsOf;
  /** Where each failure of the findings is counted (a metric's series: ProjectionStats' maps). */
  failures: Map<string, number>;
  clock: () => Date;
  log: Logger;
  /** Replicas of the bucket when this recorder creates it. */
  replicas: number;
  /** Default COT_CHECKS_BUCKET (tests give their own). */
  bucket?: string;
  /** Deadline of each bucket operation (creating it, a put, a delete). */
  timeoutMs: number;
}

/** Operations sent together; the rest wait for the next batch once one of a round fails. */
const ROUND = 64;
/** Operations kept for a retry at most (the oldest are given up first, counted as store failures). */
const MAX_PENDING = 20_000;

/**
 * The after-apply reactor of the cot projection's consistency checks (and, with the supply_demand
 * findings, the balance sheets'): counts every failed check of the report versions the batch wrote
 * (`cds_projector_cot_check_failures_total{dataset,check}`) and keeps COT_CHECKS_BUCKET in step
 * (`cotCheckFindings`). The bucket is created on first use. It never
 * fails the batch: a bucket operation that fails or misses its deadline is logged, counted
 * (`cds_projector_cot_check_store_failures_total`) and kept, newest operation per key, for the next
 * batch to retry; the projection goes on. What a crashed process had kept is lost: the key is
 * corrected by the report's next version, or expires with the bucket's max age.
 */
export function createCotCheckRecorder(deps: CotCheckRecorderDeps): AfterApply {
  const { stats, log, failures: counted } = deps;
  const findingsOf = deps.findings ?? cotBatchFindings;
  const js = jetstream(deps.messaging.nc, { timeout: deps.timeoutMs });
  let kv: KV | undefined;
  const pending = new Map<string, CotCheckOp>();

  const storeFailed = (count: number, err: unknown, what: string): void => {
    stats.cotCheckStoreFailures += count;
    log.warn({ err, failed: count, pending: pending.size }, `consistency failures not stored: ${what}`);
  };

  const flush = async (progress: () => void): Promise<void> => {
    try {
      kv ??= await new Kvm(js).create(...cotChecksBucketSpec({ replicas: deps.replicas, bucket: deps.bucket }));
    } catch (err) {
      storeFailed(pending.size, err, 'the bucket is not available (retried with the next batch)');
      return;
    }
    const store = kv;
    const ops = [...pending.values()];
    for (let i = 0; i < ops.length; i += ROUND) {
      const round = ops.slice(i, i + ROUND);
      const outcomes = await Promise.allSettled(
        round.map((op) =>
          op.value === undefined ? store.delete(op.key) : store.put(op.key, JSON.stringify(op.value)),
        ),
      );
      progress();
      let failed = 0;
      let firstErr: unknown;
      outcomes.forEach((outcome, j) => {
        const op = round[j]!;
        if (outcome.status === 'fulfilled') {
          if (pending.get(op.key) === op) pending.delete(op.key);
        } else {
          failed += 1;
          firstErr ??= outcome.reason;
        }
      });
      if (failed > 0) {
        // the next batch makes sure of the bucket again (it may have been deleted)
        kv = undefined;
        storeFailed(failed, firstErr, 'retried with the next batch');
        return;
      }
    }
  };

  return async (applied, attempt) => {
    const { failures, ops } = findingsOf(applied, deps.clock());
    for (const f of failures) counted.set(f, (counted.get(f) ?? 0) + 1);
    for (const [key, op] of ops) {
      pending.delete(key);
      pending.set(key, op);
    }
    if (pending.size > MAX_PENDING) {
      const over = pending.size - MAX_PENDING;
      for (const key of [...pending.keys()].slice(0, over)) pending.delete(key);
      storeFailed(over, undefined, `more than ${MAX_PENDING} waiting: the oldest given up`);
    }
    if (pending.size > 0) await flush(attempt.progress);
  };
}
