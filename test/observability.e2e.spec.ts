// Observability end to end: the whole application runs with `node --import @cds/telemetry/register`
// and exports OTLP/HTTP JSON to a tiny receiver in this file. One request through the gateway is one
// trace across gateway, query and MongoDB; an ingest is one trace from publish to the projectors.
// Every service serves Prometheus text on /metrics, and the counters move when they should.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DATA_STREAM } from '@cds/contracts';
import { connectMessaging } from '@cds/messaging';
import { REPO_ROOT, startInfra, startSystem, type Infra, type RunningSystem } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, eventually } from './support/harness.ts';
import { dataStreamState } from './support/projections.ts';

interface ExportedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
      }[];
    }[];
  }[];
}

const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue ?? v.arrayValue?.values?.map(valueOf);

/** An OTLP/HTTP JSON trace receiver: collects every exported span. */
async function startReceiver(): Promise<{ server: Server; url: string; spans: ExportedSpan[]; raw: string[] }> {
  const spans: ExportedSpan[] = [];
  const raw: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      raw.push(body);
      const parsed = JSON.parse(body) as OtlpExport;
      for (const rs of parsed.resourceSpans ?? []) {
        const resource = Object.fromEntries((rs.resource?.attributes ?? []).map((a) => [a.key, valueOf(a.value)]));
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service: String(resource['service.name']),
              scope: ss.scope?.name ?? '',
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId === undefined || s.parentSpanId === '' ? undefined : s.parentSpanId,
              name: s.name,
              kind: s.kind,
              attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/v1/traces`, spans, raw };
}

const NODE_ARGS = ['--import', '@cds/telemetry/register'];
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let otelEnv: Record<string, string>;
let infra: Infra;
let system: RunningSystem;
let enterpriseKey: string;
let freeKey: string;

async function admin<T>(method: 'POST', path: string, body: unknown): Promise<T> {
  const res = await fetch(`${system.admin.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${system.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function newKey(plan: 'free' | 'enterprise'): Promise<string> {
  const acc = await admin<{ account_id: string }>('POST', '/accounts', { name: `observability ${plan}`, plan });
  return (await admin<{ key: string }>('POST', `/accounts/${acc.account_id}/keys`, {})).key;
}

/** The real ingest CLI, traced like the services. */
function ingest(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        ...NODE_ARGS,
        '--disable-warning=ExperimentalWarning',
        'services/ingest/src/cli.ts',
        ...args,
        '--quiet',
        '--nats-url',
        infra.identities.nats.ingest,
      ],
      { cwd: REPO_ROOT, env: { ...process.env, ...otelEnv, CDS_LOCAL_ENV: '/nonexistent' } },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

const api = (path: string, key?: string) =>
  fetch(`${system.gateways[0]!.url}${path}`, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

/** Sum of the samples of `name` whose labels include every given label (Prometheus text format). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (m === null || m[1] !== name) continue;
    const have = new Map([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) sum += Number(m[3]);
  }
  return sum;
}

function traceOf(traceId: string): ExportedSpan[] {
  return receiver.spans.filter((s) => s.traceId === traceId);
}

/** The span's ancestors inside its trace, nearest first; fails on a parent that was never exported. */
function ancestors(span: ExportedSpan): ExportedSpan[] {
  const byId = new Map(traceOf(span.traceId).map((s) => [s.spanId, s]));
  const chain: ExportedSpan[] = [];
  for (let p = span.parentSpanId; p !== undefined;) {
    const parent = byId.get(p);
    if (parent === undefined) throw new Error(`span ${span.name} (${span.service}): parent ${p} not exported`);
    chain.push(parent);
    p = parent.parentSpanId;
  }
  return chain;
}

/** True when every ancestor of the span inside its trace was exported (see `ancestors`). */
function parentsExported(span: ExportedSpan): boolean {
  const byId = new Map(traceOf(span.traceId).map((s) => [s.spanId, s]));
  for (let p = span.parentSpanId; p !== undefined;) {
    const parent = byId.get(p);
    if (parent === undefined) return false;
    p = parent.parentSpanId;
  }
  return true;
}

/** Waits until the spans received so far satisfy `check`. */
const until = (label: string, check: () => boolean, timeoutMs: number) =>
  eventually(label, () => Promise.resolve(check()), timeoutMs);

/** A string attribute, '' when absent. */
const attr = (s: ExportedSpan, key: string): string => {
  const v = s.attributes[key];
  return typeof v === 'string' ? v : '';
};

const isMongo = (s: ExportedSpan) =>
  s.attributes['db.system'] === 'mongodb' || s.attributes['db.system.name'] === 'mongodb';

beforeAll(async () => {
  receiver = await startReceiver();
  otelEnv = {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '200',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  };
  const { NATS_URL: _n, REDIS_URL: _r, MONGODB_URL: _m, OTEL_SERVICE_NAME: _s, ...env } = process.env;
  infra = await startInfra({ env });
  try {
    system = await startSystem({
      identities: infra.identities,
      mongoUrl: infra.mongoUrl,
      gateways: 1,
      nodeArgs: NODE_ARGS,
      env: { LOG_LEVEL: 'warn', ...otelEnv },
    });
  } catch (err) {
    await infra.stop();
    throw err;
  }
  [enterpriseKey, freeKey] = await Promise.all([newKey('enterprise'), newKey('free')]);
  const run = await ingest([
    'backfill',
    '--source',
    'eia',
    '--file',
    join(FIXTURES, 'eia_rwtc_wti_spot_daily_2022_excerpt.csv'),
  ]);
  expect(run.code, run.stderr).toBe(0);
  await eventually(
    'WTI prices projected',
    async () => {
      const res = await api(
        '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01&end_date=2022-12-31',
        enterpriseKey,
      );
      return res.status === 200 && ((await res.json()) as { data: unknown[] }).data.length > 0;
    },
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await infra?.stop();
  await new Promise((resolve) => receiver?.server.close(resolve));
}, 60_000);

describe('traces', () => {
  it('one request through the gateway is one trace: gateway -> query -> MongoDB, keys censored', async () => {
    // Parameters nobody asked for yet, so the response cache misses; a point-in-time view (as_of),
    // which the query reads from the database every time (its read memo keeps current views only).
    const asOf = new Date().toISOString();
    const path = `/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-03&end_date=2022-06-30&as_of=${asOf}`;
    const res = await fetch(`${system.gateways[0]!.url}${path}&api_key=${enterpriseKey}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();

    const isRoot = (s: ExportedSpan) =>
      s.service === 'gateway' && s.kind === 2 && attr(s, 'url.query').includes('end_date=2022-06-30');
    let spans: ExportedSpan[] = [];
    await until(
      'gateway, query and MongoDB spans exported',
      () => {
        const root = receiver.spans.find(isRoot);
        spans = root === undefined ? [] : traceOf(root.traceId);
        return spans.some((s) => s.service === 'query' && s.kind === 2) && spans.some((s) => isMongo(s));
      },
      20_000,
    );
    const root = spans.find(isRoot)!;
    expect(root.parentSpanId).toBeUndefined();
    expect(root.attributes['url.path']).toBe('/api/v1/commodities/CRUDE_OIL_WTI/series');
    expect(root.attributes['http.response.status_code']).toBe(200);

    // gateway server -> gateway client (undici) -> query server -> ... -> MongoDB command.
    const queryServer = spans.find((s) => s.service === 'query' && s.kind === 2)!;
    const client = spans.find((s) => s.spanId === queryServer.parentSpanId)!;
    expect(client).toMatchObject({ service: 'gateway', kind: 3 });
    expect(ancestors(client)).toContain(root);
    const mongo = spans.filter(isMongo);
    expect(mongo.length).toBeGreaterThan(0);
    for (const m of mongo) {
      expect(m.service).toBe('query');
      expect(ancestors(m)).toContain(queryServer);
    }
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['gateway', 'query']));
  });

  it('no exported span carries an API key, also not when it came in the query string', async () => {
    const res = await fetch(`${system.gateways[0]!.url}/api/v1/commodities?per_page=3&api_key=${enterpriseKey}`);
    expect(res.status).toBe(200);
    await until(
      'spans of the api_key request exported',
      () => receiver.spans.some((s) => s.service === 'query' && attr(s, 'url.query').includes('per_page=3')),
      20_000,
    );
    const withQuery = receiver.spans.filter((s) => attr(s, 'url.query').includes('per_page=3'));
    // Gateway server (censored) and query server (the gateway forwards without the key).
    expect(withQuery.some((s) => attr(s, 'url.query').includes('api_key=[REDACTED]'))).toBe(true);
    for (const key of [enterpriseKey, freeKey]) {
      expect(receiver.raw.some((body) => body.includes(key))).toBe(false);
    }
  });

  it('an ingest is one trace from each publish to the projectors applying it', async () => {
    const ingestRoot = () => receiver.spans.find((s) => s.service === 'ingest' && s.name === 'ingest backfill');
    let spans: ExportedSpan[] = [];
    await until(
      'ingest, publish and apply spans exported',
      () => {
        const root = ingestRoot();
        spans = root === undefined ? [] : traceOf(root.traceId);
        // Spans export in batches of their own: wait for every span asserted below (the apply
        // spans of both projections, a database write, and each write's whole chain of parents).
        const groups = new Set(
          spans
            .filter((s) => s.service === 'projector' && s.kind === 5)
            .map((s) => attr(s, 'messaging.consumer.group.name')),
        );
        const writes = spans.filter((s) => s.service === 'projector' && isMongo(s));
        return (
          spans.some((s) => s.service === 'ingest' && s.kind === 4) &&
          groups.has('projector-series') &&
          groups.has('projector-catalog') &&
          writes.length > 0 &&
          writes.every(parentsExported)
        );
      },
      20_000,
    );
    const root = ingestRoot()!;
    expect(root.parentSpanId).toBeUndefined();
    expect(Number(root.attributes['cds.ingest.events_published'])).toBeGreaterThan(0);
    const sends = spans.filter((s) => s.service === 'ingest' && s.kind === 4);
    expect(sends.length).toBeGreaterThan(0);
    for (const s of sends) {
      expect(s.parentSpanId).toBe(root.spanId);
      expect(s.attributes['messaging.destination.name']).toMatch(/^cds\.data\./);
    }
    const applies = spans.filter((s) => s.service === 'projector' && s.kind === 5);
    const sendIds = new Set(sends.map((s) => s.spanId));
    for (const a of applies) expect(sendIds.has(a.parentSpanId ?? '')).toBe(true);
    // Every projection applied part of this ingest (the series events, and the catalog).
    const projections = new Set(applies.map((a) => attr(a, 'messaging.consumer.group.name')));
    expect(projections).toContain('projector-series');
    expect(projections).toContain('projector-catalog');
    // The projector's database writes hang under its apply spans.
    const writes = spans.filter((s) => s.service === 'projector' && isMongo(s));
    expect(writes.length).toBeGreaterThan(0);
    for (const w of writes) expect(ancestors(w).some((p) => applies.includes(p))).toBe(true);
  });
});

describe('metrics', () => {
  it('gateway and query count requests and latency; rate-limit decisions count admitted and refused', async () => {
    const gwBefore = await scrape(system.gateways[0]!.url);
    const qBefore = await scrape(system.query.url);
    expect(gwBefore).toContain('# TYPE cds_gateway_requests_total counter');
    expect(gwBefore).toContain('# TYPE cds_gateway_request_duration_ms histogram');
    const route = { route: '/api/v1/commodities' };
    const decisions = (text: string, decision: string) =>
      sample(text, 'cds_gateway_rate_limit_decisions_total', { decision });

    // A free key allows 10 requests a minute: drive it until it is refused.
    let admitted = 0;
    let refused = 0;
    for (let i = 0; i < 30 && refused < 2; i++) {
      const res = await api('/api/v1/commodities?per_page=1', freeKey);
      await res.arrayBuffer();
      if (res.status === 200) admitted++;
      else if (res.status === 429) refused++;
      else throw new Error(`unexpected ${res.status}`);
    }
    expect(refused).toBe(2);
    expect(admitted).toBeGreaterThanOrEqual(10);

    const gwAfter = await scrape(system.gateways[0]!.url);
    expect(decisions(gwAfter, 'admitted') - decisions(gwBefore, 'admitted')).toBe(admitted);
    expect(decisions(gwAfter, 'refused') - decisions(gwBefore, 'refused')).toBe(refused);
    expect(sample(gwAfter, 'cds_gateway_requests_total', { ...route, status: '200' })).toBe(
      sample(gwBefore, 'cds_gateway_requests_total', { ...route, status: '200' }) + admitted,
    );
    expect(sample(gwAfter, 'cds_gateway_requests_total', { ...route, status: '429' })).toBe(
      sample(gwBefore, 'cds_gateway_requests_total', { ...route, status: '429' }) + refused,
    );
    expect(sample(gwAfter, 'cds_gateway_request_duration_ms_count', route)).toBe(
      sample(gwBefore, 'cds_gateway_request_duration_ms_count', route) + admitted + refused,
    );

    // Only admitted requests get past the checks, and of those only the gateway's cache misses
    // reach the query service (the gateway keeps hot answers; see docs/decisions.md).
    const lookups = (text: string, result: string) => sample(text, 'cds_gateway_cache_lookups_total', { result });
    const hits = lookups(gwAfter, 'hit') - lookups(gwBefore, 'hit');
    const misses = lookups(gwAfter, 'miss') - lookups(gwBefore, 'miss');
    expect(hits + misses).toBe(admitted);
    expect(hits).toBeGreaterThanOrEqual(admitted - 1);
    const qAfter = await scrape(system.query.url);
    expect(qAfter).toContain('# TYPE cds_query_requests_total counter');
    expect(
      sample(qAfter, 'cds_query_requests_total', { ...route, status: '200' }) -
        sample(qBefore, 'cds_query_requests_total', { ...route, status: '200' }),
    ).toBe(misses);
  });

  it('projection counters and position move after an ingest, and the lag returns to 0', async () => {
    const before = await scrape(system.projector.url);
    expect(before).toContain('# TYPE cds_projector_lag_seconds gauge');
    const applied = (text: string) =>
      sample(text, 'cds_projector_events_total', { projection: 'series', outcome: 'applied' });
    const position = (text: string) => sample(text, 'cds_projector_last_position', { projection: 'series' });
    const run = await ingest([
      'backfill',
      '--source',
      'eia',
      '--file',
      join(FIXTURES, 'eia_wcestus1_crude_stocks_weekly_2024_excerpt.csv'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    // The worker counts an applied event before it records the changes (a NATS round trip) and
    // only then sets its position and pending count: wait for the position of the last stored
    // event (a series point: the ingest publishes the catalog first), the value written last.
    const messaging = await connectMessaging({ servers: infra.natsUrl, name: 'observability-position' });
    let lastSeq: number;
    try {
      lastSeq = (await dataStreamState(messaging)).lastSeq;
      const last = await messaging.jsm.streams.getMessage(DATA_STREAM, { seq: lastSeq });
      expect(last?.subject).toMatch(/^cds\.data\.series\./);
    } finally {
      await messaging.close();
    }
    expect(lastSeq).toBeGreaterThan(position(before));
    let after = '';
    await eventually(
      'series projection caught up with the new events',
      async () => {
        after = await scrape(system.projector.url);
        return position(after) >= lastSeq;
      },
      30_000,
    );
    expect(applied(after)).toBeGreaterThan(applied(before));
    expect(sample(after, 'cds_projector_pending_messages', { projection: 'series' })).toBe(0);
    expect(position(after)).toBeGreaterThan(position(before));
    expect(sample(after, 'cds_projector_documents_written_total', { projection: 'series' })).toBeGreaterThan(
      sample(before, 'cds_projector_documents_written_total', { projection: 'series' }),
    );
    expect(sample(after, 'cds_projector_lag_seconds', { projection: 'series' })).toBe(0);
  });

  it('a poison message on a data subject is parked and counted', async () => {
    const parked = (text: string, projection: string) => sample(text, 'cds_projector_parked_total', { projection });
    const before = await scrape(system.projector.url);
    const messaging = await connectMessaging({ servers: infra.natsUrl, name: 'observability-poison' });
    try {
      await messaging.publish(
        'cds.data.series.CRUDE_OIL_WTI.price',
        { not: 'an event' },
        { msgID: `poison-${Date.now()}`, expectStream: 'CDS_DATA' },
      );
    } finally {
      await messaging.close();
    }
    // Both projections whose filter covers the subject park it once.
    await eventually(
      'poison message parked by the series and catalog projections',
      async () => {
        const now = await scrape(system.projector.url);
        return (
          parked(now, 'series') === parked(before, 'series') + 1 &&
          parked(now, 'catalog') === parked(before, 'catalog') + 1
        );
      },
      30_000,
    );
  });
});
