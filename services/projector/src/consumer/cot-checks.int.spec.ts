import { cotCheckKey, CotCheckFailure } from '@cds/contracts';
import type { Messaging } from '@cds/messaging';
import { COLLECTIONS } from '@cds/read-models';
import { uniqueName } from '@cds/testkit';
import { Kvm } from '@nats-io/kv';
import type { Db, MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectorMetrics, type ProjectorMetrics } from '../metrics.ts';
import { cotProjection } from '../projections/index.ts';
import { cotRecorded } from '../testing/events.ts';
import { eventually, publishEvents, startSpecServers } from '../testing/harness.ts';
import { readCotBuckets } from '../testing/stored.ts';
import { startProjectionWorker, type ProjectionWorker } from './projection-worker.ts';

// A private NATS server: the cot subjects must not collide with other spec files' streams.
let servers: Awaited<ReturnType<typeof startSpecServers>>;
let messaging: Messaging;
let mongo: MongoClient;
const logger = pino({ level: 'silent' });
const clock = () => new Date('2025-03-01T12:00:00Z');
const combined = { scope: 'futures_and_options' } as const;

beforeAll(async () => {
  servers = await startSpecServers('projector-cot-checks-spec');
  ({ messaging, mongo } = servers);
});

afterAll(async () => {
  await servers?.stop();
});

async function startCot(db: Db, bucket: string): Promise<{ worker: ProjectionWorker; metrics: ProjectorMetrics }> {
  const metrics = createProjectorMetrics();
  const worker = await startProjectionWorker({ messaging, db, logger, metrics, clock }, cotProjection, {
    durable: uniqueName('cot_checks').slice(0, 60),
    cotChecksBucket: bucket,
    cotChecksTimeoutMs: 2_000,
  });
  return { worker, metrics };
}

async function failureOf(bucket: string, key: string): Promise<CotCheckFailure | undefined> {
  const kv = await new Kvm(messaging.js).open(bucket);
  const entry = await kv.get(key);
  return entry === null || entry.operation !== 'PUT' ? undefined : CotCheckFailure.parse(entry.json());
}

const failuresMetric = (text: string, dataset: string, check: string): number => {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`cds_projector_cot_check_failures_total{dataset="${dataset}",check="${check}"`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('COT consistency checks on real NATS and MongoDB API', () => {
  it('stores every dataset apart, flags the report completing a failing pair, counts it, keeps and clears its KV key', async () => {
    const db = mongo.db(uniqueName('cot_checks'));
    const bucket = uniqueName('CHECKS').toUpperCase();
    const seqs = await publishEvents(messaging, [
      cotRecorded('CHK_CORN', [
        ['2025-01-07', 100],
        ['2023-01-03', 100],
      ]),
      cotRecorded(
        'CHK_CORN',
        [
          ['2025-01-07', 99],
          ['2023-01-03', 99],
        ],
        combined,
      ),
      cotRecorded('CHK_CORN', [['2025-01-07', 100]], { format: 'disaggregated' }),
      cotRecorded('CHK_CORN', [['2025-01-07', 100]], { format: 'disaggregated', ...combined }),
      cotRecorded('CHK_CORN', [['2025-01-07', 7]], { format: 'cit', failedChecks: ['old_plus_other_equals_all'] }),
    ]);
    const { worker, metrics } = await startCot(db, bucket);
    try {
      await eventually(() => metrics.of('cot').lastPosition >= seqs.at(-1)!, 20_000, 'cot caught up');
      const buckets = new Map(
        (await readCotBuckets(db, COLLECTIONS.cot, { commodity_id: 'CHK_CORN' })).map((b) => [b._id, b]),
      );
      expect([...buckets.keys()]).toEqual([
        'CHK_CORN:cit:2025',
        'CHK_CORN:disaggregated:2025',
        'CHK_CORN:disaggregated_combined:2025',
        'CHK_CORN:legacy:2023',
        'CHK_CORN:legacy:2025',
        'CHK_CORN:legacy_combined:2023',
        'CHK_CORN:legacy_combined:2025',
      ]);
      const report = (id: string) => buckets.get(id)!.reports.find((r) => r.report_date === '2025-01-07')!;
      expect(buckets.get('CHK_CORN:legacy:2025')).not.toHaveProperty('scope');
      expect(buckets.get('CHK_CORN:legacy_combined:2025')).toMatchObject({ scope: 'futures_and_options' });
      expect(report('CHK_CORN:legacy:2025')).not.toHaveProperty('failed_checks');
      expect(report('CHK_CORN:legacy_combined:2025').failed_checks).toEqual(['combined_oi_at_least_futures_only']);
      expect(report('CHK_CORN:disaggregated:2025')).not.toHaveProperty('failed_checks');
      // 100 >= 100 futures only passes; 100 against legacy combined's 99 fails
      expect(report('CHK_CORN:disaggregated_combined:2025').failed_checks).toEqual([
        'legacy_oi_equals_disaggregated_oi',
      ]);
      expect(report('CHK_CORN:cit:2025')).toMatchObject({
        failed_checks: ['old_plus_other_equals_all'],
        groups: { index_traders: { long: 11, short: 12 } },
      });

      // the metric counts the old report too; the KV keeps only reports within COT_CHECKS_DAYS
      const text = await metrics.render();
      expect(failuresMetric(text, 'legacy_combined', 'combined_oi_at_least_futures_only')).toBe(2);
      expect(failuresMetric(text, 'disaggregated_combined', 'legacy_oi_equals_disaggregated_oi')).toBe(1);
      expect(failuresMetric(text, 'cit', 'old_plus_other_equals_all')).toBe(1);
      const key = cotCheckKey('legacy_combined', '2025-01-07', 'CHK_CORN');
      await eventually(async () => (await failureOf(bucket, key)) !== undefined, 5_000, 'KV key stored');
      expect(await failureOf(bucket, key)).toEqual({
        dataset: 'legacy_combined',
        report_date: '2025-01-07',
        commodity: 'CHK_CORN',
        failed_checks: ['combined_oi_at_least_futures_only'],
        checked_at: '2025-03-01T12:00:00.000Z',
      });
      expect(await failureOf(bucket, cotCheckKey('cit', '2025-01-07', 'CHK_CORN'))).toMatchObject({
        failed_checks: ['old_plus_other_equals_all'],
      });
      expect(await failureOf(bucket, cotCheckKey('legacy_combined', '2023-01-03', 'CHK_CORN'))).toBeUndefined();
      expect(await failureOf(bucket, cotCheckKey('legacy', '2025-01-07', 'CHK_CORN'))).toBeUndefined();

      // a corrected version that passes deletes the key; the failing one stays among the revised
      const [fix] = await publishEvents(messaging, [
        cotRecorded('CHK_CORN', [['2025-01-07', 100]], { ...combined, occurredAt: '2025-01-11T00:00:00Z' }),
      ]);
      await eventually(() => metrics.of('cot').lastPosition >= fix!, 20_000, 'correction applied');
      expect(await failureOf(bucket, key)).toBeUndefined();
      const [fixed] = await readCotBuckets(db, COLLECTIONS.cot, { _id: 'CHK_CORN:legacy_combined:2025' });
      expect(fixed!.reports.find((r) => r.report_date === '2025-01-07')).not.toHaveProperty('failed_checks');
      expect(fixed!.revised).toMatchObject([
        { open_interest: 99, failed_checks: ['combined_oi_at_least_futures_only'] },
      ]);
      expect(failuresMetric(await metrics.render(), 'legacy_combined', 'combined_oi_at_least_futures_only')).toBe(2);
    } finally {
      await worker.stop();
    }
  });

  it('a KV failure neither loses nor stalls the projection: counted, and retried with the next batch', async () => {
    const db = mongo.db(uniqueName('cot_checks_kv'));
    const bucket = uniqueName('CHECKS_KV').toUpperCase();
    const [first] = await publishEvents(messaging, [cotRecorded('KV_CORN', [['2025-01-07', 100]])]);
    const { worker, metrics } = await startCot(db, bucket);
    try {
      await eventually(() => metrics.of('cot').lastPosition >= first!, 20_000, 'first batch');
      // the bucket goes away under the projector: its next put finds no stream
      await eventually(
        async () => (await messaging.jsm.streams.info(`KV_${bucket}`).catch(() => undefined)) !== undefined,
        5_000,
        'bucket created',
      );
      await messaging.jsm.streams.delete(`KV_${bucket}`);
      const [failing] = await publishEvents(messaging, [cotRecorded('KV_CORN', [['2025-01-07', 98]], combined)]);
      await eventually(() => metrics.of('cot').lastPosition >= failing!, 20_000, 'failing report applied');
      expect(metrics.of('cot').cotCheckStoreFailures).toBe(1);
      const [stored] = await readCotBuckets(db, COLLECTIONS.cot, { _id: 'KV_CORN:legacy_combined:2025' });
      expect(stored!.reports[0]!.failed_checks).toEqual(['combined_oi_at_least_futures_only']);

      // the next batch (any report) makes sure of the bucket again and stores what was kept
      const [next] = await publishEvents(messaging, [cotRecorded('KV_CORN', [['2025-01-14', 100]])]);
      await eventually(() => metrics.of('cot').lastPosition >= next!, 20_000, 'next batch');
      const failure = await failureOf(bucket, cotCheckKey('legacy_combined', '2025-01-07', 'KV_CORN'));
      expect(failure?.failed_checks).toEqual(['combined_oi_at_least_futures_only']);
    } finally {
      await worker.stop();
    }
  });
});
