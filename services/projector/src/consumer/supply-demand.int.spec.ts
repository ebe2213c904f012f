import { CotCheckFailure, supplyDemandCheckKey } from '@cds/contracts';
import type { Messaging } from '@cds/messaging';
import { createReadModelStore } from '@cds/store';
import { uniqueName } from '@cds/testkit';
import { Kvm } from '@nats-io/kv';
import type { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectorMetrics } from '../metrics.ts';
import { supplyDemandProjection } from '../projections/index.ts';
import { rebuildProjection } from '../rebuild/rebuild.ts';
import { JUNE_2026, supplyDemandRecorded } from '../testing/events.ts';
import { eventually, publishEvents, readChanges, startSpecServers } from '../testing/harness.ts';
import { startProjectionWorker } from './projection-worker.ts';

// A private NATS server: its data stream holds only this file's events.
let servers: Awaited<ReturnType<typeof startSpecServers>>;
let messaging: Messaging;
let mongo: MongoClient;
const logger = pino({ level: 'silent' });
const clock = () => new Date('2026-06-20T12:00:00Z');
const MAY = '2026-05-12T16:00:00.000Z';
const MAY_REPOST = '2026-05-13T18:30:00.000Z';
const CHECK = 'supply_equals_use_plus_ending_stocks' as const;

beforeAll(async () => {
  servers = await startSpecServers('projector-supply-demand-spec');
  ({ messaging, mongo } = servers);
});

afterAll(async () => {
  await servers?.stop();
});

async function failureOf(bucket: string, key: string): Promise<CotCheckFailure | undefined> {
  const kv = await new Kvm(messaging.js).open(bucket);
  const entry = await kv.get(key);
  return entry === null || entry.operation !== 'PUT' ? undefined : CotCheckFailure.parse(entry.json());
}

const failuresMetric = (text: string): number => {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`cds_projector_supply_demand_check_failures_total{check="${CHECK}"`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('supply_demand projection on real NATS and MongoDB API', () => {
  it('folds editions out of order into one sheet, keeps and clears the failed release in the KV, records each change; a rebuild gives the same sheet', async () => {
    const db = mongo.db(uniqueName('supply_demand'));
    const notified: string[] = [];
    const sub = messaging.nc.subscribe('cds.projected.supply_demand.SD_CORN', {
      callback: (_e, m) => {
        notified.push(m.subject);
      },
    });
    const bucket = uniqueName('CHECKS').toUpperCase();
    const figures = (imports: number, total: number, ending: number) =>
      [
        ['imports', imports],
        ['supply_total', total],
        ['ending_stocks', ending],
      ] as [string, number][];
    // June first, then May as published (failing its check)
    const first = await publishEvents(messaging, [
      supplyDemandRecorded(figures(7, 125, 1750), { commodityId: 'SD_CORN', source: 'wasde:wasde0626.xml' }),
      supplyDemandRecorded(figures(5, 123, 1800), { commodityId: 'SD_CORN', publishedAt: MAY, failedChecks: [CHECK] }),
    ]);
    const metrics = createProjectorMetrics();
    const worker = await startProjectionWorker({ messaging, db, logger, metrics, clock }, supplyDemandProjection, {
      durable: uniqueName('supply_demand').slice(0, 60),
      cotChecksBucket: bucket,
      cotChecksTimeoutMs: 2_000,
    });
    const store = createReadModelStore(db, { owner: 'reader' });
    const key = supplyDemandCheckKey('2026-05-12', 'SD_CORN', 'united_states', '2026/27');
    try {
      await eventually(() => metrics.of('supply_demand').lastPosition >= first.at(-1)!, 20_000, 'caught up');
      const [sheet] = await store.supplyDemandSheets({ commodityId: 'SD_CORN', region: 'united_states' });
      expect(sheet!.figures.map((f) => [f.a, f.v, f.r, f.x])).toEqual([
        ['ending_stocks', 1750, 1, undefined],
        ['imports', 7, 1, undefined],
        ['supply_total', 125, 1, undefined],
      ]);
      expect(sheet!.revised!.map((f) => [f.a, f.v, f.r, f.x])).toEqual([
        ['ending_stocks', 1800, 0, [CHECK]],
        ['imports', 5, 0, [CHECK]],
        ['supply_total', 123, 0, [CHECK]],
      ]);
      expect(sheet!.source).toBe('wasde:wasde0626.xml');
      // the query caches drop the commodity's answers
      await eventually(() => notified.length > 0, 5_000, 'projected notice');
      expect(failuresMetric(await metrics.render())).toBe(1);
      await eventually(async () => (await failureOf(bucket, key)) !== undefined, 5_000, 'KV key stored');
      expect(await failureOf(bucket, key)).toEqual({
        dataset: 'supply_demand',
        report_date: '2026-05-12',
        commodity: 'SD_CORN',
        failed_checks: [CHECK],
        sheet: { region: 'united_states', marketing_year: '2026/27' },
        checked_at: '2026-06-20T12:00:00.000Z',
      });

      // the corrected re-post passes: the key goes, the failed release stays among the versions
      const [repost] = await publishEvents(messaging, [
        supplyDemandRecorded(figures(7, 125, 1800), { commodityId: 'SD_CORN', publishedAt: MAY_REPOST }),
      ]);
      await eventually(() => metrics.of('supply_demand').lastPosition >= repost!, 20_000, 're-post applied');
      await eventually(async () => (await failureOf(bucket, key)) === undefined, 5_000, 'KV key deleted');
      const [after] = await store.supplyDemandSheets({
        commodityId: 'SD_CORN',
        region: 'united_states',
        marketingYear: '2026/27',
      });
      expect(after!.releases!.map((r) => r.p)).toEqual([MAY, MAY_REPOST, JUNE_2026]);
      expect(after!.figures.find((f) => f.a === 'imports')).toMatchObject({ v: 7, r: 1 });

      // one change record per release that changed the sheet, on its release date
      const changes = (await readChanges(messaging, 'SD_CORN')).map((c) => c.record);
      expect(changes.map((c) => [c.type, c.topic, c.first_date])).toEqual([
        ['supply_demand.updated', 'supply_demand', '2026-06-11'],
        ['supply_demand.updated', 'supply_demand', '2026-05-12'],
        ['supply_demand.updated', 'supply_demand', '2026-05-13'],
      ]);
      expect(changes[0]!.path).toBe(
        '/api/v1/commodities/SD_CORN/supply-demand?region=united_states&marketing_year=2026%2F27',
      );
    } finally {
      sub.unsubscribe();
      await worker.stop();
    }
    const live = await store.supplyDemandSheets({ commodityId: 'SD_CORN', region: 'united_states' });
    const rebuilt = await rebuildProjection({ messaging, db, logger, clock }, supplyDemandProjection, {
      graceMs: 0,
    });
    expect(rebuilt.applied).toBe(3);
    expect(await store.supplyDemandSheets({ commodityId: 'SD_CORN', region: 'united_states' })).toEqual(live);
  });
});
