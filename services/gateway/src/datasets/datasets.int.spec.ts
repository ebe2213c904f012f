import { Writable } from 'node:stream';
import {
  buildOpenApiDocument,
  INCIDENTS_BUCKET,
  sourceErrorKey,
  SYNC_BUCKET,
  type DatasetLedger,
  type DatasetsResponse,
  type Incident,
  type ReleasesResponse,
  type SourceErrorDay,
} from '@cds/contracts';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { connectMessaging, releasesBucketSpec, type Messaging } from '@cds/messaging';
import { calendarReleases } from '@cds/schedule';
import { createLogger } from '@cds/telemetry';
import { startNats, waitUntil, type NatsHandle } from '@cds/testkit';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import type { RateLimiter } from '../rate/windows.ts';
import { followCotChecks } from '../status/cot-checks.ts';
import { followSyncState } from '../status/sync-state.ts';
import { createDatasetsBoard } from './board.ts';
import { followDatasets } from './tables.ts';

// The buckets have fixed names, so this file runs its own NATS server.
let nats: NatsHandle;
/** The writers' side (the projector, the admin command, ingest): the system user. */
let messaging: Messaging;
/** The followers read as the gateway's NATS user (libs/testkit identities.ts): its permissions suffice. */
let gateway: Messaging;
const logger = createLogger({ name: 't', level: process.env.SPEC_LOG ?? 'silent' });
const doc = buildOpenApiDocument();
const validate = createOpenApiResponseValidator(doc);

/** Tuesday 2026-11-24 12:00Z when the file started, moving on with real time (the board recomputes at most once a second). */
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const started = Date.now();
const nowMs = () => NOW + (Date.now() - started);

beforeAll(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'datasets-spec' });
  gateway = await connectMessaging({ servers: nats.identities.gateway, name: 'datasets-spec-gateway' });
});
afterAll(async () => {
  await gateway.close();
  await messaging.close();
  await nats.stop();
});

const refuse = () => Promise.reject(new Error('no rate window for a public route'));
const rateLimiter: RateLimiter = { take: refuse, check: refuse, giveBack: refuse };

/** The ECB's reference rates of Monday 2026-11-23 (16:00 Frankfurt, 15:00Z), first served five minutes later. */
const ledger: DatasetLedger = {
  dataset: 'ecb_reference_rates',
  entries: [{ lo: '2026-11-23', hi: '2026-11-23', f: '2026-11-23T15:05:00.000Z', p: '2026-11-23T15:00:00.000Z' }],
};
const incident: Incident = {
  id: 'inc_int0spec1',
  title: 'Exchange rates delayed',
  state: 'investigating',
  datasets: ['ecb_reference_rates'],
  started_at: '2026-11-24T10:00:00.000Z',
  updates: [{ at: '2026-11-24T10:00:00.000Z', state: 'investigating', message: 'Looking into it.' }],
};
const errorDay: SourceErrorDay = {
  source: 'ecb',
  date: '2026-11-23',
  failed_runs: 2,
  last_error: 'HTTP 500',
  last_failed_at: '2026-11-23T16:00:00.000Z',
};

describe('the gateway follows the release ledger, the incidents and the error days', () => {
  it('waits for the buckets, then serves what is written: a ledger key, an incident, an error day; deletes too', async () => {
    const followers = followDatasets({ nc: gateway.nc, js: gateway.js, jsm: gateway.jsm, logger, retryMs: 100 });
    const syncState = await followSyncState({ nc: gateway.nc, js: gateway.js, jsm: gateway.jsm, logger, replicas: 1 });
    const cotChecks = followCotChecks({
      nc: gateway.nc,
      js: gateway.js,
      jsm: gateway.jsm,
      logger,
      nowMs,
      retryMs: 100,
    });
    const app = buildApp({
      keys: { lookup: () => undefined, isReady: () => true },
      rateLimiter,
      query: { get: () => Promise.reject(new Error('no query call')), close: () => Promise.resolve() },
      logger: createLogger({
        name: 'gateway',
        level: 'warn',
        destination: new Writable({ write: (_c, _e, cb) => cb() }),
      }),
      nowMs,
      publicBaseUrl: 'https://api.example.com',
      openapiDocument: doc,
      datasets: createDatasetsBoard({
        ledgers: followers.ledgers,
        incidents: followers.incidents,
        errors: syncState,
        checks: cotChecks,
        calendar: calendarReleases,
      }),
    });
    const releases = async () => {
      const res = await app.inject({
        url: '/api/v1/releases?dataset=ecb_reference_rates&start_date=2026-11-23&end_date=2026-11-23',
      });
      validate('/releases', { statusCode: res.statusCode, headers: res.headers, body: res.body });
      return res.json<ReleasesResponse>().data;
    };
    const datasets = async () => {
      const res = await app.inject({ url: '/api/v1/datasets' });
      validate('/datasets', { statusCode: res.statusCode, headers: res.headers, body: res.body });
      return res.json<DatasetsResponse>();
    };
    const ecbDay = (body: DatasetsResponse) =>
      body.data.find((d) => d.id === 'ecb_reference_rates')!.days.find((d) => d.date === '2026-11-23')!;
    try {
      // No bucket yet: answered all the same, the release not served (late: its grace passed, 7 days have not).
      expect(await releases()).toEqual([expect.objectContaining({ status: 'late', first_served_at: null })]);
      expect(followers.following()).toBe(false);

      // The projector and the admin command create their buckets and write.
      const ledgers = await new Kvm(messaging.js).create(...releasesBucketSpec({ replicas: 1 }));
      const incidents = await new Kvm(messaging.js).create(INCIDENTS_BUCKET, { replicas: 1, history: 1 });
      // A ledger under another dataset's key, and one of no dataset, are skipped.
      await ledgers.put('wasde', JSON.stringify(ledger));
      await ledgers.put('no_such_dataset', JSON.stringify({ ...ledger, dataset: 'no_such_dataset' }));
      await ledgers.put('ecb_reference_rates', JSON.stringify(ledger));
      await incidents.put(incident.id, JSON.stringify(incident));
      await waitUntil(
        'the ledger served',
        async () => {
          expect(await releases()).toEqual([
            expect.objectContaining({
              status: 'published',
              scheduled_at: '2026-11-23T15:00:00.000Z',
              first_served_at: '2026-11-23T15:05:00.000Z',
              lag_seconds: 300,
            }),
          ]);
        },
        10_000,
      );
      expect(followers.ledgers.entries('wasde').entries).toEqual([]);
      expect(followers.ledgers.entries('no_such_dataset').entries).toEqual([]);
      await waitUntil(
        'the incident listed',
        async () => expect((await datasets()).incidents).toEqual([incident]),
        10_000,
      );
      expect(followers.following()).toBe(true);

      // ingest counts a failed run on the source's error day (the sync state bucket).
      const sync = await new Kvm(messaging.js).open(SYNC_BUCKET);
      await sync.put(sourceErrorKey('ecb', '2026-11-23'), JSON.stringify(errorDay));
      await waitUntil(
        'the error day applied',
        async () =>
          expect(ecbDay(await datasets())).toEqual({
            date: '2026-11-23',
            condition: 'degraded',
            reasons: [{ kind: 'source_errors', message: '2 sync runs of the source failed; the last: HTTP 500' }],
          }),
        10_000,
      );

      // Deletes take them away again.
      await incidents.delete(incident.id);
      await ledgers.delete('ecb_reference_rates');
      await sync.delete(sourceErrorKey('ecb', '2026-11-23'));
      await waitUntil(
        'the deletes applied',
        async () => {
          const body = await datasets();
          expect(body.incidents).toEqual([]);
          expect(ecbDay(body).condition).toBe('late');
          expect(await releases()).toEqual([expect.objectContaining({ status: 'late' })]);
        },
        10_000,
      );
    } finally {
      await app.close();
      await followers.stop();
      await cotChecks.stop();
      await syncState.stop();
    }
  });
});
