// `npm start` on a machine with no network (issue #23): the whole system as `npm start` runs it
// (scripts/start.ts, its own infrastructure and every service), every source address pointed at a
// closed port on this machine and no EIA or NASS key. It must serve the bundled snapshot of real
// data: for the commodities a user looks at first, a price series whose source is not `demo`, with
// its unit and basis, and values equal to the snapshot's rows; no generated numbers anywhere. It
// prints each step's seconds before the keys, and writes the bulk files only after them.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { findFreePorts, REPO_ROOT } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateOf } from './support/harness.ts';

const SNAPSHOT = join(REPO_ROOT, 'data', 'snapshot');
const validate = createOpenApiResponseValidator();

/** The snapshot's series rows of a commodity's price, by date (values exactly as the source published). */
function snapshotPrices(commodity: string): { meta: string[]; byDate: Map<string, number> } {
  const text = gunzipSync(readFileSync(join(SNAPSHOT, 'series.csv.gz'))).toString('utf8');
  const byDate = new Map<string, number>();
  let meta: string[] = [];
  for (const line of text.split('\n').slice(1)) {
    if (!line.startsWith(`${commodity},price,`)) continue;
    // commodity_id,series_type,frequency,unit,source,price_basis,date,value (a source may be quoted)
    const m = /^([^,]+),price,([^,]+),([^,]*),("(?:[^"]|"")*"|[^,]*),([^,]*),(\d{4}-\d{2}-\d{2}),(.+)$/.exec(line);
    if (!m) throw new Error(`unreadable snapshot row: ${line}`);
    meta = [m[2]!, m[3]!, m[4]!.replace(/^"|"$/g, '').replaceAll('""', '"'), m[5]!];
    byDate.set(m[6]!, Number(m[7]));
  }
  return { meta, byDate };
}

let child: ChildProcess;
let out = '';
let baseUrl: string;
let key: string;
let notifierUrl: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function get(path: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${baseUrl}${path}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  validate(templateOf(path), { statusCode: res.status, headers, body: text });
  return { status: res.status, json: JSON.parse(text) };
}

beforeAll(async () => {
  const [closed, port, dashboardPort, notifierPort] = await findFreePorts(4);
  const nowhere = `http://127.0.0.1:${closed}`;
  notifierUrl = `http://127.0.0.1:${notifierPort}`;
  child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'scripts/start.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      DASHBOARD_PORT: String(dashboardPort),
      NOTIFIER_PORT: String(notifierPort),
      // no network: every source is a closed port here, and no key is set
      CFTC_API_URL: nowhere,
      WORLDBANK_PAGE_URL: `${nowhere}/en/research/commodity-markets`,
      AMS_API_URL: nowhere,
      WASDE_API_URL: nowhere,
      EIA_API_KEY: '',
      NASS_API_KEY: '',
      CDS_DEMO: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const deadline = Date.now() + 240_000;
  while (!out.includes('Press Ctrl-C to stop.')) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready within 240 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  baseUrl = new URL(/Base URL\s+(\S+)/.exec(out)![1]!).origin;
  key = /^\s+business\s+(cds_[0-9A-Za-z]{36}|[0-9a-f]{40})$/m.exec(out)![1]!;
}, 300_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 60_000);

describe('npm start with no network', () => {
  it('says where each source stands: loaded from the snapshot, not synced, and no demo data', () => {
    expect(out).toMatch(/loading the bundled snapshot of real data/);
    expect(out).toMatch(/cftc\s+no sync: not reachable/);
    expect(out).toMatch(/worldbank\s+no sync: not reachable/);
    expect(out).toMatch(/ams\s+no sync: not reachable/);
    // no password in what it prints
    expect(out).toMatch(/infrastructure up: nats:\/\/cds-system:\*\*\*@/);
    expect(out).toMatch(/eia\s+no sync: EIA_API_KEY is not set/);
    expect(out).not.toMatch(/adding generated demo data/);
  });

  it('CORN supply and demand: the June 2026 WASDE balance sheet of the snapshot, as USDA printed it', async () => {
    expect(out).toMatch(/wasde\s+no sync: not reachable/);
    const res = await get('/api/v1/commodities/CORN/supply-demand?marketing_year=2026%2F27&attribute=ending_stocks');
    expect(res.status).toBe(200);
    const us = (
      res.json.data as { region: string; unit: string; value: number; edition: string; published_at: string }[]
    ).filter((f) => f.region === 'united_states' && f.unit === 'Million Bushels');
    expect(us).toHaveLength(1);
    expect(us[0]).toMatchObject({ value: 1960, edition: '2026-06' });
    expect(Date.parse(us[0]!.published_at)).toBe(Date.parse('2026-06-11T16:00:00Z'));
    expect(res.json.meta.attribution).toMatch(/World Agricultural Outlook Board/);
  });

  it.each(['GOLD', 'COPPER', 'COFFEE', 'WHEAT_SRW', 'CRUDE_OIL_WTI', 'CORN', 'LIVE_CATTLE'])(
    '%s: a real price series with its unit and basis, equal to the snapshot',
    async (id) => {
      const snap = snapshotPrices(id);
      expect(snap.byDate.size, `the snapshot has ${id} prices`).toBeGreaterThan(0);
      const [frequency, unit, source, basis] = snap.meta;
      const dates = [...snap.byDate.keys()].sort();
      // in windows of 5,000 dates (one answer holds at most 10,000 points)
      const served = new Map<string, number>();
      const points: Record<string, unknown>[] = [];
      for (let i = 0; i < dates.length; i += 5_000) {
        const window = dates.slice(i, i + 5_000);
        const res = await get(
          `/api/v1/commodities/${id}/series?type=price&start_date=${window[0]}&end_date=${window.at(-1)}&limit=10000`,
        );
        expect(res.status).toBe(200);
        expect(res.json.meta).toMatchObject({ frequency, unit, source, price_basis: basis });
        expect(res.json.meta.source).not.toBe('demo');
        expect(res.json.meta.attribution).toEqual(expect.any(String));
        for (const p of res.json.data as { date: string; value: number }[]) served.set(p.date, p.value);
        points.push(...res.json.data);
      }
      expect(served).toEqual(snap.byDate);
      // no open/high/low the source never published
      expect(points.every((p) => p.open === undefined && p.high === undefined)).toBe(true);
    },
  );

  it('says where the time went, step by step, before the keys', () => {
    const keysAt = out.indexOf('Demo keys (one account per plan)');
    const summaryAt = out.indexOf('where the time went');
    expect(summaryAt).toBeGreaterThan(-1);
    expect(summaryAt).toBeLessThan(keysAt);
    for (const label of ['infrastructure', 'services', 'bundled snapshot loaded', 'demo keys', 'API serving the data'])
      expect(out.slice(0, keysAt)).toMatch(new RegExp(`done: ${label}[^\\n]* \\(\\d+\\.\\d s\\)`));
    expect(out).toMatch(/keys ready \d+\.\d s after npm start/);
  });

  it('starts the webhook notifier after the keys (no first call needs it), and it answers', async () => {
    const deadline = Date.now() + 60_000;
    while (!/done: webhook notifier/.test(out)) {
      if (Date.now() > deadline) throw new Error(`the notifier did not start within 60 s of the keys:\n${out}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(out.indexOf('done: webhook notifier')).toBeGreaterThan(out.indexOf('Press Ctrl-C to stop.'));
    const res = await fetch(`${notifierUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
  });

  it('writes the bulk files after the keys are printed, and says when they are written', async () => {
    // the keys come first: the bulk files of what is loaded are written in the background after
    // them, before the older supply and demand editions load (the files are written again after those)
    const deadline = Date.now() + 180_000;
    while (!/\[start\] bulk files (not )?written/.test(out)) {
      if (Date.now() > deadline) throw new Error(`no word on the bulk files within 180 s:\n${out}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(out.indexOf('Press Ctrl-C to stop.')).toBeLessThan(out.indexOf('writing the bulk files'));
    expect(out).toMatch(/\[start\] bulk files written \(\d+\.\d s/);
    expect(out).not.toMatch(/supply and demand history[^\n]* loaded/);
    expect(out).not.toMatch(/bulk files not written/);
    const res = await fetch(`${baseUrl}/api/v1/bulk`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(30_000),
    });
    expect(res.status).toBe(200);
    const files = ((await res.json()) as { data: { file: string; rows: number; attribution: string[] }[] }).data;
    const byName = new Map(files.map((f) => [f.file, f]));
    for (const name of ['price.full.parquet', 'price.recent.csv.gz', 'cot_legacy.full.csv.gz']) {
      expect(byName.get(name)?.rows, name).toBeGreaterThan(0);
    }
    expect(byName.get('price.full.csv.gz')!.attribution).toContain(
      'The World Bank: Commodity Price Data (The Pink Sheet), CC BY 4.0',
    );
  }, 240_000);

  it('answers point in time on the bundled data, as the README shows it', async () => {
    // the COT report known one minute before and after the Friday 15:30 New York release of 2025-03-07
    const before = await get('/api/v1/commodities/CORN/cot?as_of=2025-03-07T20:29:00Z&per_page=1');
    expect(before.status).toBe(200);
    expect(before.json.data[0].report_date).toBe('2025-02-25');
    const after = await get('/api/v1/commodities/CORN/cot?as_of=2025-03-07T20:31:00Z&per_page=1');
    expect(after.json.data[0]).toMatchObject({
      report_date: '2025-03-04',
      published_at: '2025-03-07T20:30:00.000Z',
      published_at_estimated: true,
    });
    // gold as published by 2026-07-01 (the bundled June 2026 Pink Sheet), each point saying when
    const gold = await get('/api/v1/commodities/GOLD/series?type=price&as_of=2026-07-01');
    expect(gold.status).toBe(200);
    expect(gold.json.meta.as_of).toBe('2026-07-01T23:59:59.999Z');
    expect(gold.json.data.length).toBeGreaterThan(0);
    for (const p of gold.json.data)
      expect(Date.parse(p.published_at)).toBeLessThanOrEqual(Date.parse('2026-07-01T23:59:59.999Z'));
    const revisions = await get('/api/v1/commodities/GOLD/series?type=price&include=revisions');
    expect(revisions.status).toBe(200);
    // before the first capture: a 400 naming as_of, never today's data
    const early = await get('/api/v1/commodities/GOLD/series?type=price&as_of=2001-01-01');
    expect(early.status).toBe(400);
    expect(early.json.error.param).toBe('as_of');
  });

  it('serves the bundled combined and CIT reports in their scope, equal to the snapshot (data/snapshot/SOURCES.md)', async () => {
    for (const [file, query] of [
      ['cot-legacy_combined.csv.gz', 'format=legacy&scope=futures_and_options'],
      ['cot-cit.csv.gz', 'format=cit'],
    ] as const) {
      const [head, ...rows] = gunzipSync(readFileSync(join(SNAPSHOT, file)))
        .toString('utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(','));
      const at = (name: string) => head!.indexOf(name);
      const newest = rows.filter((r) => r[0] === 'CORN').sort((a, b) => (a[2]! < b[2]! ? 1 : -1))[0]!;
      const res = await get(`/api/v1/commodities/CORN/cot?${query}&per_page=1`);
      expect(res.status, file).toBe(200);
      expect(res.json.data[0], file).toMatchObject({
        scope: 'futures_and_options',
        report_date: newest[at('report_date')],
        open_interest: Number(newest[at('open_interest')]),
        commercial: { long: Number(newest[at('commercial_long')]), short: Number(newest[at('commercial_short')]) },
      });
    }
    const cit = await get('/api/v1/commodities/CORN/cot?format=cit&per_page=1');
    expect(cit.json.data[0].index_traders).toMatchObject({ long: expect.any(Number), short: expect.any(Number) });
  });

  it('a commodity with no free price source says so and offers no invented price', async () => {
    const detail = await get('/api/v1/commodities/PALLADIUM');
    expect(detail.json.data.price_note).toMatch(/no free official/i);
    const types = detail.json.data.available_series.map((d: { type: string }) => d.type);
    expect(types).not.toContain('price');
    expect(types).toContain('cot_legacy');
    for (const d of detail.json.data.available_series) expect(d.source).not.toBe('demo');
    const status = await fetch(`${baseUrl}/api/v1/status`).then((r) => r.json());
    expect(status.data.demo).toBe(false);
  });
});
