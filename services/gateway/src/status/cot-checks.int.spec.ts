import { Writable } from 'node:stream';
import {
  buildOpenApiDocument,
  COT_CHECKS_BUCKET,
  cotCheckKey,
  supplyDemandCheckKey,
  type CotCheckFailure,
  type SyncSourceName,
} from '@cds/contracts';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { connectMessaging, cotChecksBucketSpec, type Messaging } from '@cds/messaging';
import { createLogger } from '@cds/telemetry';
import { startNats, waitUntil, type NatsHandle } from '@cds/testkit';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import type { RateLimiter } from '../rate/windows.ts';
import { followCotChecks } from './cot-checks.ts';
import { createStatusBoard } from './status-document.ts';
import type { SyncStateView } from './sync-state.ts';

// The bucket has a fixed name, so this file runs its own NATS server.
let nats: NatsHandle;
let messaging: Messaging;
/** The follower reads as the gateway's NATS user (libs/testkit identities.ts): its permissions suffice. */
let gateway: Messaging;
const logger = createLogger({ name: 't', level: process.env.SPEC_LOG ?? 'silent' });
const doc = buildOpenApiDocument();
const validate = createOpenApiResponseValidator(doc);

/** Tuesday 2026-11-24 12:00Z when the file started, moving on with real time (/status recomputes at most once a second). */
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const started = Date.now();
const nowMs = () => NOW + (Date.now() - started);

beforeAll(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'cot-checks-spec' });
  gateway = await connectMessaging({ servers: nats.identities.gateway, name: 'cot-checks-spec-gateway' });
});
afterAll(async () => {
  await gateway.close();
  await messaging.close();
  await nats.stop();
});

const noSyncState: SyncStateView = { get: (_s: SyncSourceName) => undefined, version: () => 0 };
const refusingLimiter: RateLimiter = {
  take: () => Promise.reject(new Error('no rate window for /status')),
  check: () => Promise.reject(new Error('no rate window for /status')),
  giveBack: () => Promise.reject(new Error('no rate window for /status')),
};

function statusApp(checks: Parameters<typeof createStatusBoard>[1]['checks']) {
  return buildApp({
    keys: { lookup: () => undefined, isReady: () => true },
    rateLimiter: refusingLimiter,
    query: { get: () => Promise.reject(new Error('no query call for /status')), close: () => Promise.resolve() },
    logger: createLogger({
      name: 'gateway',
      level: 'warn',
      destination: new Writable({ write: (_c, _e, cb) => cb() }),
    }),
    nowMs,
    publicBaseUrl: 'https://api.example.com',
    openapiDocument: doc,
    status: createStatusBoard(noSyncState, { demo: false, checks }),
  });
}

const failure = (over: Partial<CotCheckFailure> = {}): CotCheckFailure => ({
  dataset: 'legacy_combined',
  report_date: '2026-11-17',
  commodity: 'CORN',
  failed_checks: ['combined_oi_at_least_futures_only'],
  checked_at: '2026-11-20T21:00:00.000Z',
  ...over,
});
const keyOf = (f: CotCheckFailure) => cotCheckKey(f.dataset, f.report_date, f.commodity);
const sheetKeyOf = (f: CotCheckFailure) =>
  supplyDemandCheckKey(f.report_date, f.commodity, f.sheet!.region, f.sheet!.marketing_year);

describe('the gateway follows the COT consistency failures bucket', () => {
  it('waits for the projector to create the bucket, then answers /status consistency from it, deletes included', async () => {
    // The bucket does not exist yet: the follower is not an error, and /status has no consistency.
    const follower = followCotChecks({
      nc: gateway.nc,
      js: gateway.js,
      jsm: gateway.jsm,
      logger,
      nowMs,
      retryMs: 100,
    });
    const app = statusApp(follower);
    try {
      const before = await app.inject({ url: '/api/v1/status' });
      expect(before.statusCode).toBe(200);
      expect(before.json().data).not.toHaveProperty('consistency');
      expect(follower.following()).toBe(false);

      // The projector creates it (its user; the gateway's may not) and writes three failures.
      const kv = await new Kvm(messaging.js).create(...cotChecksBucketSpec({ replicas: 1 }));
      const corn = failure();
      const wheat = failure({
        commodity: 'WHEAT',
        failed_checks: ['old_plus_other_equals_all', 'combined_oi_at_least_futures_only'],
      });
      const soy = failure({ dataset: 'cit', commodity: 'SOYBEANS', report_date: '2026-11-10' });
      for (const f of [corn, wheat, soy]) await kv.put(keyOf(f), JSON.stringify(f));
      // Two balance sheets of the November WASDE failed theirs (keyed by region and marketing year).
      const sheet = (region: string, marketingYear: string) =>
        failure({
          dataset: 'supply_demand',
          report_date: '2026-11-10',
          failed_checks: ['supply_equals_use_plus_ending_stocks'],
          sheet: { region, marketing_year: marketingYear },
        });
      const sheets = [sheet('united_states', '2026/27'), sheet('world', '2026/27')];
      for (const f of sheets) await kv.put(sheetKeyOf(f), JSON.stringify(f));
      // A sheet under another marketing year's key is not its own: skipped.
      await kv.put(
        supplyDemandCheckKey('2026-11-10', 'CORN', 'world', '2025/26'),
        JSON.stringify(sheet('world', '2026/27')),
      );
      // A value under another key than its own, and one failing its schema, change nothing.
      await kv.put(cotCheckKey('legacy', '2026-11-17', 'GOLD'), JSON.stringify(failure({ commodity: 'SILVER' })));
      await kv.put(cotCheckKey('legacy', '2026-11-17', 'COPPER'), '{"dataset":"legacy"}');
      // One of them passes on a later version: the projector deletes its key.
      await kv.delete(keyOf(soy));

      await waitUntil(
        'two failures followed, the delete applied',
        async () => {
          const res = await app.inject({ url: '/api/v1/status' });
          expect(res.json().data.consistency).toEqual([
            {
              dataset: 'cot_legacy_combined',
              date: '2026-11-17',
              failed_reports: 2,
              checks: { old_plus_other_equals_all: 1, combined_oi_at_least_futures_only: 2 },
              commodities: ['CORN', 'WHEAT'],
            },
            {
              dataset: 'supply_demand',
              date: '2026-11-10',
              failed_reports: 2,
              checks: { supply_equals_use_plus_ending_stocks: 2 },
              commodities: ['CORN'],
            },
          ]);
        },
        10_000,
      );
      expect(follower.following()).toBe(true);
      const res = await app.inject({ url: '/api/v1/status' });
      validate('/status', { statusCode: res.statusCode, headers: res.headers, body: res.body });

      // Every failure gone: consistency is absent again, as before any.
      await kv.delete(keyOf(corn));
      await kv.purge(keyOf(wheat));
      for (const f of sheets) await kv.delete(sheetKeyOf(f));
      await waitUntil(
        'every failure deleted',
        async () => expect((await app.inject({ url: '/api/v1/status' })).json().data).not.toHaveProperty('consistency'),
        10_000,
      );
    } finally {
      await follower.stop();
      await app.close();
    }
  });

  it('replays what the bucket holds at start, newest date first', async () => {
    const kv = await new Kvm(messaging.js).open(COT_CHECKS_BUCKET);
    const older = failure({ dataset: 'legacy', report_date: '2026-10-06', commodity: 'GOLD' });
    const newer = failure({ dataset: 'disaggregated', report_date: '2026-11-17', commodity: 'GOLD' });
    for (const f of [older, newer]) await kv.put(keyOf(f), JSON.stringify(f));
    const follower = followCotChecks({ nc: gateway.nc, js: gateway.js, jsm: gateway.jsm, logger, nowMs });
    try {
      await waitUntil(
        'replayed',
        () =>
          Promise.resolve(
            expect(follower.consistency(nowMs()).map((d) => `${d.date} ${d.dataset}`)).toEqual([
              '2026-11-17 cot_disaggregated',
              '2026-10-06 cot_legacy',
            ]),
          ),
        10_000,
      );
    } finally {
      await follower.stop();
    }
  });
});
