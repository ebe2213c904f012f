// The public API end to end: real fixture files through the ingest CLI -> NATS JetStream ->
// projector -> MongoDB API -> query -> three gateway replicas (Redis rate windows, key stream).
// Every API answer is checked against the OpenAPI document by the harness.
import { join } from 'node:path';
import { ERROR_CODE_LIST } from '@cds/contracts';
import { connectMessaging } from '@cds/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, eventually, startE2E, type E2E } from './support/harness.ts';
import { waitForProjections } from './support/projections.ts';
import { PUBLICATION_FIELDS } from './support/publication.ts';

let e2e: E2E;
const keys: Record<string, string> = {};

beforeAll(async () => {
  e2e = await startE2E({ gateways: 3 });
  const files: [string, string][] = [
    ['cftc-legacy', 'cftc_legacy_fut_annual_2025_excerpt.txt'],
    ['cftc-disaggregated', 'cftc_disagg_fut_f_year_2021_excerpt.txt'],
    ['eia', 'eia_rwtc_wti_spot_daily_2022_excerpt.csv'],
    ['eia', 'eia_wcestus1_crude_stocks_weekly_2024_excerpt.csv'],
  ];
  for (const [source, file] of files) {
    const run = await e2e.ingest(['backfill', '--source', source, '--file', join(FIXTURES, file)]);
    expect(run.code, `${file}: ${run.stderr}`).toBe(0);
  }
  for (const plan of ['free', 'professional', 'business', 'enterprise'] as const)
    keys[plan] = (await e2e.account(plan)).key;
  // The read models catch up asynchronously: wait for the last COT report and the WTI prices.
  await eventually(
    'projections',
    async () => {
      const cot = await e2e.get('/api/v1/commodities/GOLD/cot?start_date=2025-01-01', {
        key: keys.enterprise!,
        validate: false,
      });
      const px = await e2e.get(
        '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01&end_date=2022-12-31',
        {
          key: keys.enterprise!,
          validate: false,
        },
      );
      return cot.status === 200 && cot.json.data.length === 5 && px.status === 200 && px.json.data.length > 0;
    },
    180_000,
  );
  // Some prices are served; the tests read whole series and every projection: wait for all of them.
  const messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'gateway-e2e' });
  try {
    await waitForProjections(messaging, 120_000);
  } finally {
    await messaging.close();
  }
}, 300_000);

afterAll(async () => {
  await e2e?.stop();
}, 60_000);

describe('catalog', () => {
  it('lists commodities with pagination, filters and literal search', async () => {
    const all = await e2e.get('/api/v1/commodities?per_page=5', { key: keys.business });
    expect(all.status).toBe(200);
    expect(all.json.data).toHaveLength(5);
    expect(all.json.meta).toMatchObject({ page: 1, per_page: 5 });
    expect(all.json.meta.total_pages).toBe(Math.ceil(all.json.meta.total / 5));
    const ids = all.json.data.map((c: { id: string }) => c.id);
    expect(ids).toEqual([...ids].sort());

    const energy = await e2e.get('/api/v1/commodities?category=energy&per_page=100', { key: keys.business });
    expect(energy.json.data.every((c: { category: string }) => c.category === 'energy')).toBe(true);
    expect(energy.json.data.map((c: { id: string }) => c.id)).toContain('CRUDE_OIL_WTI');

    const gold = await e2e.get('/api/v1/commodities?search=gOlD', { key: keys.business });
    expect(gold.json.data.map((c: { id: string }) => c.id)).toContain('GOLD');
    for (const literal of ['.*', '$ne', '^G', '{"$gt":""}']) {
      const res = await e2e.get(`/api/v1/commodities?search=${encodeURIComponent(literal)}`, { key: keys.business });
      expect(res.status, literal).toBe(200);
      expect(res.json.data, literal).toEqual([]);
    }
    // '(' is an invalid regular expression but a plain character here: it matches names that contain it.
    const paren = await e2e.get('/api/v1/commodities?search=(&per_page=100', { key: keys.business });
    expect(paren.status).toBe(200);
    expect(paren.json.data.length).toBeGreaterThan(0);
    for (const c of paren.json.data as { name: string; symbol?: string }[])
      expect(`${c.name}${c.symbol ?? ''}`).toContain('(');
    const op = await e2e.get('/api/v1/commodities?search[$ne]=x', { key: keys.business });
    expect(op.status).toBe(400);
    expect(op.json.error.param).toBe('search[$ne]');

    const past = await e2e.get('/api/v1/commodities?page=999', { key: keys.business });
    expect(past.status).toBe(200);
    expect(past.json.data).toEqual([]);
  });

  it('details a commodity with every series and its date range', async () => {
    const res = await e2e.get('/api/v1/commodities/GOLD', { key: keys.business });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: 'GOLD', category: 'metals' });
    expect(res.json.meta.request_id).toBe(res.headers.get('x-request-id'));
    const series = res.json.data.available_series as { type: string; first_date: string; last_date: string }[];
    expect(series).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'cot_legacy',
          frequency: 'weekly',
          first_date: '2025-01-07',
          last_date: '2025-02-04',
        }),
        expect.objectContaining({ type: 'cot_disaggregated', first_date: '2021-02-16', last_date: '2021-03-16' }),
      ]),
    );
    const missing = await e2e.get('/api/v1/commodities/UNOBTAINIUM', { key: keys.business });
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 'not_found', param: 'slug' });
  });
});

describe('series', () => {
  const WTI = '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01&end_date=2022-12-31';

  it('serves the EIA daily prices as ingested, resampled and transformed', async () => {
    const daily = await e2e.get(WTI, { key: keys.business });
    expect(daily.status).toBe(200);
    expect(daily.json.meta).toMatchObject({
      commodity_id: 'CRUDE_OIL_WTI',
      type: 'price',
      frequency: 'daily',
      transform: 'none',
    });
    expect(daily.json.meta.count).toBe(daily.json.data.length);
    const dates = daily.json.data.map((p: { date: string }) => p.date);
    expect(dates).toEqual([...dates].sort());

    const weekly = await e2e.get(`${WTI}&frequency=weekly`, { key: keys.business });
    expect(weekly.json.meta.frequency).toBe('weekly');
    expect(weekly.json.data.length).toBeLessThan(daily.json.data.length);
    const lastDaily = daily.json.data.at(-1);
    expect(weekly.json.data.at(-1).value).toBe(lastDaily.value);

    const pct = await e2e.get(`${WTI}&transform=pct_change`, { key: keys.business });
    expect(pct.json.meta.unit).toBe('percent');
    const [a, b] = [daily.json.data.at(-2).value, daily.json.data.at(-1).value];
    expect(pct.json.data.at(-1).value).toBeCloseTo(((b - a) / a) * 100, 6);
    // a transformed price point carries its value and when it was published, not open/high/low/close
    expect(Object.keys(pct.json.data.at(-1)).sort()).toEqual(
      ['date', 'value', ...PUBLICATION_FIELDS.filter((f) => f in pct.json.data.at(-1))].sort(),
    );
    expect(pct.json.data.at(-1).published_at).toEqual(expect.any(String));

    const latest = await e2e.get(`${WTI}&sort_order=desc&limit=3`, { key: keys.business });
    expect(latest.json.data.map((p: { date: string }) => p.date)).toEqual(dates.slice(-3).reverse());
  });

  it('names the parameter of every 400 and 404', async () => {
    const cases: [string, number, string][] = [
      ['/api/v1/commodities/GOLD/series', 400, 'type'],
      ['/api/v1/commodities/GOLD/series?type=weather', 400, 'type'],
      ['/api/v1/commodities/GOLD/series?type=price&start_date=2024-02-30', 400, 'start_date'],
      ['/api/v1/commodities/GOLD/series?type=price&limit=10001', 400, 'limit'],
      ['/api/v1/commodities/GOLD/series?type=price&bogus=1', 400, 'bogus'],
      ['/api/v1/commodities/GOLD/series?type=price&start_date=2024-03-02&end_date=2024-03-01', 400, 'start_date'],
      ['/api/v1/commodities/CRUDE_OIL_WTI/series?type=yield', 404, 'type'],
      ['/api/v1/commodities/gold/series?type=price', 400, 'slug'],
    ];
    for (const [path, status, param] of cases) {
      const res = await e2e.get(path, { key: keys.business });
      expect(res.status, path).toBe(status);
      expect(res.json.error.param, path).toBe(param);
      expect(res.headers.get('x-ratelimit-limit'), path).toBe('500');
    }
  });
});

describe('positioning reports', () => {
  it('serves legacy reports field by field from the CFTC file, net = long - short, newest first', async () => {
    const res = await e2e.get('/api/v1/commodities/GOLD/cot?start_date=2025-01-01', { key: keys.professional });
    expect(res.status).toBe(200);
    expect(res.json.data.map((r: { report_date: string }) => r.report_date)).toEqual([
      '2025-02-04',
      '2025-01-28',
      '2025-01-21',
      '2025-01-14',
      '2025-01-07',
    ]);
    // "GOLD - COMMODITY EXCHANGE INC.",250107,2025-01-07,088691,... 477043, 291721, 36810, 75074, 62674, 341320, ..., 47574, 23839
    expect(res.json.data.at(-1)).toMatchObject({
      report_date: '2025-01-07',
      commodity: 'GOLD',
      format: 'legacy',
      open_interest: 477043,
      non_commercial: { long: 291721, short: 36810, spreading: 75074, net: 291721 - 36810 },
      commercial: { long: 62674, short: 341320, net: 62674 - 341320 },
      non_reportable: { long: 47574, short: 23839, net: 47574 - 23839 },
    });
    expect(res.json.data[0]).not.toHaveProperty('managed_money');
  });

  it('serves disaggregated reports, paginates, and filters by date', async () => {
    const page = await e2e.get('/api/v1/commodities/CORN/cot?format=disaggregated&per_page=2&sort_order=asc', {
      key: keys.business,
    });
    expect(page.status).toBe(200);
    expect(page.json.meta).toMatchObject({ page: 1, per_page: 2, total: 5, total_pages: 3 });
    expect(page.json.data[0]).toHaveProperty('managed_money.spreading');
    expect(page.json.data[0]).not.toHaveProperty('commercial');
    for (const g of ['producer_merchant', 'swap_dealer', 'managed_money', 'other_reportable']) {
      const grp = page.json.data[0][g];
      expect(grp.net, g).toBe(grp.long - grp.short);
    }
    const past = await e2e.get('/api/v1/commodities/CORN/cot?format=disaggregated&page=4&per_page=2', {
      key: keys.business,
    });
    expect(past.json.data).toEqual([]);
    const none = await e2e.get('/api/v1/commodities/CORN/cot?start_date=1990-01-01&end_date=1990-12-31', {
      key: keys.business,
    });
    expect(none.status).toBe(200);
    expect(none.json.data).toEqual([]);
    const noFormat = await e2e.get('/api/v1/commodities/CRUDE_OIL_BRENT/cot', { key: keys.business });
    expect(noFormat.status).toBe(404);
    expect(noFormat.json.error).toMatchObject({ code: 'not_found', param: 'format' });
  });
});

describe('keys and plans', () => {
  it('authenticates by header or api_key, the header winning; rejects missing and malformed keys', async () => {
    expect((await e2e.get('/api/v1/commodities')).status).toBe(401);
    expect((await e2e.get('/api/v1/commodities', { key: 'A'.repeat(40) })).status).toBe(401);
    expect((await e2e.get(`/api/v1/commodities?api_key=${keys.business}`)).status).toBe(200);
    const both = await e2e.get(`/api/v1/commodities?api_key=${keys.business}`, { key: '0'.repeat(40) });
    expect(both.status).toBe(401);
    expect(both.json.error.code).toBe('unauthorized');
  });

  it('enforces plan features and the Free history limit', async () => {
    const freeCot = await e2e.get('/api/v1/commodities/GOLD/cot', { key: keys.free });
    expect(freeCot.status).toBe(403);
    expect(freeCot.json.error.code).toBe('forbidden');
    const proDis = await e2e.get('/api/v1/commodities/GOLD/cot?format=disaggregated', { key: keys.professional });
    expect(proDis.status).toBe(403);
    const old = await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01', {
      key: keys.free,
    });
    expect(old.status).toBe(403);
    expect(old.json.error).toMatchObject({ code: 'historical_limit', param: 'start_date' });
    const recent = await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI/series?type=price', { key: keys.free });
    expect(recent.status).toBe(200);
    expect(recent.headers.get('x-ratelimit-limit')).toBe('10');
  });

  it('applies a plan change at once on every replica', async () => {
    const acc = await e2e.account('free');
    expect((await e2e.get('/api/v1/commodities/GOLD/cot', { key: acc.key })).status).toBe(403);
    const changed = await e2e.admin('PUT', `/accounts/${acc.accountId}/plan`, { plan: 'business' });
    expect(changed.status).toBe(200);
    for (const replica of [0, 1, 2]) {
      await eventually(
        `plan on replica ${replica}`,
        async () => (await e2e.get('/api/v1/commodities/GOLD/cot', { key: acc.key, replica })).status === 200,
        5_000,
      );
    }
  });

  it('revokes a key on every replica within a second', async () => {
    const acc = await e2e.account('enterprise');
    for (const replica of [0, 1, 2])
      expect((await e2e.get('/api/v1/commodities', { key: acc.key, replica })).status).toBe(200);
    const revoked = await e2e.admin('POST', `/keys/${acc.keyId}/revoke`);
    expect(revoked.status).toBe(200);
    const waits = await Promise.all(
      [0, 1, 2].map((replica) =>
        eventually(
          `revocation on replica ${replica}`,
          async () => (await e2e.get('/api/v1/commodities', { key: acc.key, replica })).status === 401,
          1_000,
        ),
      ),
    );
    expect(Math.max(...waits)).toBeLessThan(1_000);
    const again = await e2e.admin<{ error: { code: string } }>('POST', `/keys/${acc.keyId}/revoke`);
    expect(again.status).toBe(400);
  });

  it('admits exactly the limit across three replicas under 200 concurrent requests, then 429 with Retry-After', async () => {
    const acc = await e2e.account('professional');
    // Stay inside one UTC minute window (Redis's clock and ours agree to well under a second).
    const second = new Date().getUTCSeconds();
    if (second > 40) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        e2e.get('/api/v1/commodities?per_page=1', { key: acc.key, replica: i % 3 }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(100);
    expect(limited).toHaveLength(100);
    for (const r of limited) {
      expect(r.json.error.code).toBe('rate_limited');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });
});

describe('the rest of the surface', () => {
  it('serves the OpenAPI document, the reference, the error pages, and health', async () => {
    const doc = await fetch(`${e2e.gatewayUrl()}/api/v1/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { info: { version: string } }).info.version).toBe('1.0.0');
    const errors = await (await fetch(`${e2e.gatewayUrl()}/docs/errors`)).text();
    for (const code of ERROR_CODE_LIST) expect(errors).toContain(`id="${code}"`);
    const unknown = await e2e.get('/api/v1/commodities/GOLD/history', { key: keys.business, validate: false });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.doc_url).toMatch(/\/docs\/errors#not_found$/);
    const post = await fetch(`${e2e.gatewayUrl()}/api/v1/commodities`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect((await fetch(`${e2e.gatewayUrl(2)}/readyz`)).status).toBe(200);
  });

  it('answers 503 in the contract shape when the query service is down (for what no gateway has cached)', async () => {
    await e2e.system.query.stop();
    const res = await e2e.get('/api/v1/commodities/SILVER', { key: keys.enterprise });
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe('service_unavailable');
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
  });
});
