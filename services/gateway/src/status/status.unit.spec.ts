import { Writable } from 'node:stream';
import { buildOpenApiDocument, SYNC_SOURCE_NAMES, type SourceSyncStatus, type SyncSourceName } from '@cds/contracts';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { createLogger, createMetrics } from '@cds/telemetry';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { GatewayConfig } from '../config.ts';
import type { RateLimiter } from '../rate/windows.ts';
import { CotChecksTable } from './cot-checks.ts';
import { createStatusBoard, registerSourceMetrics } from './status-document.ts';
import type { SyncStateView } from './sync-state.ts';

const doc = buildOpenApiDocument();
const validate = createOpenApiResponseValidator(doc);

/** Tuesday 2026-11-24 12:00Z: the last COT release due is Friday 11-20 (data 11-17), the next Monday 11-30. */
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

function states(initial: Partial<Record<SyncSourceName, SourceSyncStatus>>) {
  const map = new Map(Object.entries(initial) as [SyncSourceName, SourceSyncStatus][]);
  let version = 0;
  const view: SyncStateView = { get: (s) => map.get(s), version: () => version };
  return {
    view,
    set(status: SourceSyncStatus) {
      map.set(status.source, status);
      version += 1;
    },
  };
}

function harness(view: SyncStateView | undefined, clock = { now: NOW }) {
  const takes: string[] = [];
  const rateLimiter: RateLimiter = {
    take: (accountId) => {
      takes.push(accountId);
      return Promise.reject(new Error('the rate windows must not be asked for /status'));
    },
    check: (accountId) => {
      takes.push(accountId);
      return Promise.reject(new Error('the rate windows must not be asked for /status'));
    },
    giveBack: () => Promise.reject(new Error('the rate windows must not be asked for /status')),
  };
  const app = buildApp({
    keys: { lookup: () => undefined, isReady: () => true },
    rateLimiter,
    query: {
      get: () => Promise.reject(new Error('no query call for /status')),
      close: () => Promise.resolve(),
    },
    logger: createLogger({
      name: 'gateway',
      level: 'warn',
      destination: new Writable({ write: (_c, _e, cb) => cb() }),
    }),
    nowMs: () => clock.now,
    publicBaseUrl: 'https://api.example.com',
    openapiDocument: doc,
    ...(view === undefined ? {} : { status: createStatusBoard(view, { demo: false }) }),
  });
  return { app, takes, clock };
}

const cftcFresh: SourceSyncStatus = {
  source: 'cftc',
  last_success_at: '2026-11-20T20:40:12.000Z',
  newest_data_date: '2026-11-17',
  last_run_at: '2026-11-20T20:35:00.000Z',
};

describe('GET /api/v1/status', () => {
  it('answers without a key, from memory, cacheable for 60 s, in the documented shape', async () => {
    const { app, takes } = harness(states({ cftc: cftcFresh }).view);
    const res = await app.inject({ method: 'GET', url: '/api/v1/status' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(res.headers['x-request-id']).toBeDefined();
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    validate('/status', { statusCode: res.statusCode, headers: res.headers, body: res.body });
    expect(takes).toEqual([]);

    const body = res.json<{ data: { demo: boolean; sources: Record<string, unknown>[] }; meta: unknown }>();
    expect(body.meta).toEqual({ request_id: res.headers['x-request-id'], generated_at: '2026-11-24T12:00:00.000Z' });
    expect(body.data.demo).toBe(false);
    // Every synced source, in the SOURCES table's order.
    expect(body.data.sources.map((s) => s.source)).toEqual([...SYNC_SOURCE_NAMES]);
    expect(SYNC_SOURCE_NAMES.slice(0, 5)).toEqual(['cftc', 'eia', 'nass', 'ams', 'worldbank']);
    expect(body.data.sources[0]).toEqual({
      source: 'cftc',
      last_success_at: '2026-11-20T20:40:12.000Z',
      last_run_at: '2026-11-20T20:35:00.000Z',
      last_run_failed: false,
      newest_data_date: '2026-11-17',
      last_due_release: {
        report: 'Commitments of Traders',
        at: '2026-11-20T20:30:00.000Z',
        local_date: '2026-11-20',
        local_time: '15:30',
        data_date: '2026-11-17',
      },
      next_release: {
        report: 'Commitments of Traders',
        at: '2026-11-30T20:30:00.000Z',
        local_date: '2026-11-30',
        local_time: '15:30',
        data_date: '2026-11-24',
        shifted_by: 'Thanksgiving Day',
      },
      late: false,
    });
    await app.close();
  });

  it('shows a source that never synced as such, late by the schedule', async () => {
    const { app } = harness(states({}).view);
    const res = await app.inject({ method: 'GET', url: '/api/v1/status' });
    const eia = res.json<{ data: { sources: Record<string, unknown>[] } }>().data.sources[1];
    expect(eia).toMatchObject({
      source: 'eia',
      last_success_at: null,
      last_run_at: null,
      last_run_failed: false,
      newest_data_date: null,
      late: true,
      last_due_release: { local_date: '2026-11-18', local_time: '10:30', data_date: '2026-11-13' },
      next_release: { local_date: '2026-11-25', local_time: '10:30' },
    });
    await app.close();
  });

  it('follows state changes and time: a failed run, then the release passing its grace', async () => {
    const s = states({ cftc: cftcFresh });
    const { app, clock } = harness(s.view);
    s.set({ ...cftcFresh, last_run_at: '2026-11-24T11:00:00.000Z', last_error: '1 of 9 series failed' });
    let cftc = (await app.inject({ url: '/api/v1/status' })).json<{ data: { sources: Record<string, unknown>[] } }>()
      .data.sources[0];
    expect(cftc).toMatchObject({ last_run_failed: true, last_success_at: cftcFresh.last_success_at, late: false });
    // Monday 2026-11-30 22:31Z: the Thanksgiving-shifted release (data 11-24) is due, the data still 11-17.
    clock.now = Date.UTC(2026, 10, 30, 22, 31);
    cftc = (await app.inject({ url: '/api/v1/status' })).json<{ data: { sources: Record<string, unknown>[] } }>().data
      .sources[0];
    expect(cftc).toMatchObject({ late: true, last_due_release: { data_date: '2026-11-24' } });
    await app.close();
  });

  it('HEAD answers the headers; other methods are 405 in the error shape; a body is refused', async () => {
    const { app } = harness(states({}).view);
    const head = await app.inject({ method: 'HEAD', url: '/api/v1/status' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['cache-control']).toBe('public, max-age=60');
    const post = await app.inject({ method: 'POST', url: '/api/v1/status' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(post.json()).toMatchObject({ error: { code: 'method_not_allowed' } });
    const withBody = await app.inject({ method: 'GET', url: '/api/v1/status', payload: 'x' });
    expect(withBody.statusCode).toBe(413);
    validate('/status', {
      statusCode: withBody.statusCode,
      headers: withBody.headers,
      body: withBody.body,
    });
    await app.close();
  });

  it('says demo when the deployment declares DEMO_DATA (npm start), not otherwise', () => {
    const view = states({}).view;
    const demo = (env: Record<string, string>) =>
      createStatusBoard(view, { demo: GatewayConfig.parse(env).DEMO_DATA }).document(NOW).demo;
    expect(demo({ DEMO_DATA: 'true' })).toBe(true);
    expect(demo({})).toBe(false);
  });

  it('adds consistency only when a COT report failed a check, and follows the failures as they change', () => {
    const table = new CotChecksTable({ nowMs: () => NOW });
    const board = createStatusBoard(states({}).view, { demo: false, checks: table });
    expect(board.document(NOW)).not.toHaveProperty('consistency');
    const failure = {
      dataset: 'cit',
      report_date: '2026-11-17',
      commodity: 'CORN',
      failed_checks: ['legacy_oi_equals_disaggregated_oi'],
      checked_at: '2026-11-20T21:00:00.000Z',
    } as const;
    table.put('cit.2026-11-17.CORN', { ...failure, failed_checks: [...failure.failed_checks] });
    expect(board.document(NOW + 1000).consistency).toEqual([
      {
        dataset: 'cot_cit',
        date: '2026-11-17',
        failed_reports: 1,
        checks: { legacy_oi_equals_disaggregated_oi: 1 },
        commodities: ['CORN'],
      },
    ]);
    table.delete('cit.2026-11-17.CORN');
    expect(board.document(NOW + 2000)).not.toHaveProperty('consistency');
  });

  it('is 503 in the error shape when the gateway has no status source', async () => {
    const { app } = harness(undefined);
    const res = await app.inject({ url: '/api/v1/status' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: { code: 'service_unavailable' } });
    await app.close();
  });
});

describe('source metrics', () => {
  it('exports last success, newest data, expected data, late and last-run-failed per source', async () => {
    const metrics = createMetrics('gateway-test');
    registerSourceMetrics(metrics, states({ cftc: cftcFresh }).view, () => NOW);
    const text = await metrics.render();
    const value = (name: string, source: string) =>
      new RegExp(`^${name}\\{source="${source}"[,}][^\\n]* (\\S+)$`, 'm').exec(text)?.[1];
    expect(value('cds_source_last_success_timestamp_seconds', 'cftc')).toBe(
      String(Date.UTC(2026, 10, 20, 20, 40, 12) / 1000),
    );
    expect(value('cds_source_newest_data_timestamp_seconds', 'cftc')).toBe(String(Date.UTC(2026, 10, 17) / 1000));
    expect(value('cds_source_expected_data_timestamp_seconds', 'cftc')).toBe(String(Date.UTC(2026, 10, 17) / 1000));
    expect(value('cds_source_late', 'cftc')).toBe('0');
    expect(value('cds_source_late', 'eia')).toBe('1');
    expect(value('cds_source_last_run_failed', 'cftc')).toBe('0');
    // Never synced: no timestamps to report, but the expectation and lateness are there.
    expect(value('cds_source_last_success_timestamp_seconds', 'nass')).toBeUndefined();
    expect(value('cds_source_expected_data_timestamp_seconds', 'nass')).toBe(String(Date.UTC(2026, 8, 1) / 1000));
    await metrics.shutdown();
  });
});
