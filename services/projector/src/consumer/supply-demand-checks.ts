import {
  COT_CHECKS_DAYS,
  editionOf,
  supplyDemandBucketId,
  supplyDemandCheckKey,
  type CotCheckFailure,
  type SupplyDemandCheck,
} from '@cds/contracts';
import { normalizeInstant, type SupplyDemandBucketDoc } from '@cds/read-models';
import { releaseDateOf } from '../projections/supply-demand/index.ts';
import type { AppliedBatch } from './after-apply.ts';
import type { CotCheckFindings, CotCheckOp } from './cot-checks.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Per release of a sheet (by publication time), the checks it failed, or none when it passed. */
function releaseOutcomes(doc: SupplyDemandBucketDoc): Map<string, readonly SupplyDemandCheck[] | undefined> {
  const releases = doc.releases ?? [];
  const out = new Map<string, readonly SupplyDemandCheck[] | undefined>();
  for (const f of [...(doc.revised ?? []), ...doc.figures]) {
    const p = f.r === undefined ? undefined : releases[f.r]?.p;
    if (p === undefined) continue;
    if (f.x !== undefined && f.x.length > 0) out.set(p, f.x);
    else if (!out.has(p)) out.set(p, undefined);
  }
  return out;
}

/**
 * The findings of the supply_demand projection's batch (for the recorder of cot-checks.ts): every
 * failed check of each release that changed a balance sheet is counted, by check; and for each
 * sheet the batch changed, COT_CHECKS_BUCKET holds a key (`supplyDemandCheckKey`: the release date
 * in New York, commodity, region, marketing year) per release that failed a check, dated within
 * COT_CHECKS_DAYS of `now`, unless a later release of the same edition passed (a corrected
 * re-post, as WASDE posts a `v2` file): then the key is deleted, as a COT report's is when a later
 * version of that report passes. The next month's edition passing leaves the failure as it was
 * published. A release that only confirmed the figures in force (no version of its own) is known failed from
 * its event. The same batch gives the same operations whatever order its events came in.
 */
export function supplyDemandCheckFindings({ events, result }: AppliedBatch, now: Date): CotCheckFindings {
  const failures: string[] = [];
  const ops = new Map<string, CotCheckOp>();
  const since = new Date(now.getTime() - COT_CHECKS_DAYS * DAY_MS).toISOString().slice(0, 10);
  const checkedAt = now.toISOString();
  const written = new Map(((result.writtenDocs ?? []) as readonly SupplyDemandBucketDoc[]).map((d) => [d._id, d]));
  /** Per changed sheet, the releases its batch events say failed (confirmations carry no version). */
  const stated = new Map<string, Map<string, readonly SupplyDemandCheck[]>>();
  for (const { event, position } of events) {
    if (event.type !== 'supply_demand.figures.recorded' || !result.changedBy.has(position)) continue;
    const { commodity_id: commodity, region, marketing_year: year, failed_checks: failed } = event.data;
    for (const check of failed ?? []) failures.push(check);
    const id = supplyDemandBucketId(commodity, region, year);
    const sheet = stated.get(id) ?? stated.set(id, new Map()).get(id)!;
    const p = normalizeInstant(event.data.published_at);
    if (failed !== undefined && p !== undefined) sheet.set(p, [...failed].sort());
  }
  for (const [id, fromEvents] of stated) {
    const doc = written.get(id);
    if (doc === undefined) continue;
    const outcomes = releaseOutcomes(doc);
    for (const [p, checks] of fromEvents) if (!outcomes.has(p)) outcomes.set(p, checks);
    // per edition, its last release that passed (a corrected re-post)
    const lastPassed = new Map<string, string>();
    for (const [p, checks] of outcomes) {
      const edition = editionOf(p);
      if (checks === undefined && p > (lastPassed.get(edition) ?? '')) lastPassed.set(edition, p);
    }
    for (const [p, checks] of outcomes) {
      if (checks === undefined) continue;
      const releaseDate = releaseDateOf(p);
      if (releaseDate < since) continue;
      const key = supplyDemandCheckKey(releaseDate, doc.commodity_id, doc.region, doc.marketing_year);
      if (p < (lastPassed.get(editionOf(p)) ?? '')) {
        ops.set(key, { key });
        continue;
      }
      const value: CotCheckFailure = {
        dataset: 'supply_demand',
        report_date: releaseDate,
        commodity: doc.commodity_id,
        failed_checks: [...checks],
        sheet: { region: doc.region, marketing_year: doc.marketing_year },
        checked_at: checkedAt,
      };
      ops.set(key, { key, value });
    }
  }
  return { failures, ops };
}
