// The Python and TypeScript clients (clients/) against the whole system: the example that opens
// each client's README runs as it is, with CDS_API_KEY and CDS_BASE_URL set, and prints the real
// latest WTI price and CORN COT net positions; the Python client pages through the whole catalog;
// a 429 of the real rate windows is retried after its Retry-After by both; errors carry code and
// param. The Python client is built and installed with pip (offline, from the virtualenv that
// `bash scripts/bootstrap.sh --test` installs, with pandas and polars), and its own unit tests run
// there too; the TypeScript one runs from its sources through Node's type stripping.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, FIXTURES, startE2E, type E2E } from './support/harness.ts';

const PYTHON_CLIENT = join(REPO_ROOT, 'clients', 'python');
const TS_CLIENT = join(REPO_ROOT, 'clients', 'typescript');

let e2e: E2E;
let work: string;
let python: string;
let sitePackages: string;
let baseUrl: string;
const keys: Record<'business' | 'free', string> = { business: '', free: '' };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command with a deadline (killed past it), collecting its output. */
function run(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string>; timeoutMs: number }) {
  return new Promise<Run>((resolve, reject) => {
    const started = Date.now();
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? REPO_ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The first fenced code block of a README: the example it opens with. */
function readmeExample(readme: string): string {
  const match = /^```[a-z]*\n([\s\S]*?)^```$/m.exec(readFileSync(readme, 'utf8'));
  if (!match) throw new Error(`${readme} has no fenced code block`);
  return match[1]!;
}

const clientEnv = (key: string) => ({ CDS_API_KEY: key, CDS_BASE_URL: baseUrl, PYTHONPATH: sitePackages });

/** Python code run with the installed client, the key of the given plan and the system's address. */
const py = (code: string, key = keys.business, timeoutMs = 60_000) =>
  run(python, ['-c', code], { cwd: work, env: clientEnv(key), timeoutMs });

/** An ES module run with the TypeScript client resolved from its sources, like the README example. */
const ts = (file: string, key = keys.business, timeoutMs = 60_000) =>
  run(process.execPath, ['--disable-warning=ExperimentalWarning', '--conditions=development', file], {
    cwd: work,
    env: clientEnv(key),
    timeoutMs,
  });

/**
 * Free: 10 requests a minute. Spends the free key's window, then both clients ask together: both
 * get a 429, wait its Retry-After (the seconds to the next minute) and get the page in the next
 * window. Late in a minute the wait would be too short to tell a retry from a first try: it starts
 * a new one. Started at the end of the set-up and awaited by its test, so that wait passes while
 * the other tests run (they use the business key); the clients' own deadlines bound it.
 */
async function rateLimitedClients(): Promise<{ status?: number; retryAfter: number; outs: Run[] }> {
  const second = new Date().getUTCSeconds();
  if (second > 48) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
  let blocked: Response | undefined;
  for (let i = 0; i < 12 && blocked === undefined; i += 1) {
    const res = await fetch(`${baseUrl}/commodities?per_page=1`, {
      headers: { authorization: `Bearer ${keys.free}` },
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    if (res.status === 429) blocked = res;
  }
  if (blocked === undefined) return { retryAfter: Number.NaN, outs: [] };
  const retryAfter = Number(blocked.headers.get('retry-after'));
  const file = join(work, 'rate.ts');
  writeFileSync(
    file,
    [
      "import { Client } from '@commodity-data/client';",
      'const first = await new Client().commodities({ per_page: 1 }).first();',
      'console.log(first?.id);',
    ].join('\n'),
  );
  const outs = await Promise.all([
    py('from commodity_data import Client\nprint(Client().commodities(per_page=1).first().id)', keys.free, 90_000),
    ts(file, keys.free, 90_000),
  ]);
  return { status: blocked.status, retryAfter, outs };
}
let rateLimited: ReturnType<typeof rateLimitedClients>;

beforeAll(async () => {
  // The tooling virtualenv: the bootstrap links its openapi-python-client into the cache's bin.
  const bin = process.env.CDS_BIN_DIR;
  if (bin === undefined) throw new Error('CDS_BIN_DIR is not set: run the suite through `bash scripts/run.sh`');
  python = join(dirname(realpathSync(join(bin, 'openapi-python-client'))), 'python');

  work = mkdtempSync(join(tmpdir(), 'cds-clients-e2e-'));
  sitePackages = join(work, 'site-packages');
  // `pip install ./clients/python`, offline: the build backend and the dependencies are in the venv.
  const install = await run(
    python,
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--no-index',
      '--no-deps',
      '--no-build-isolation',
      '--target',
      sitePackages,
      PYTHON_CLIENT,
    ],
    { cwd: work, timeoutMs: 120_000 },
  );
  expect(install.code, install.stderr).toBe(0);
  // A project that depends on @commodity-data/client (linked to clients/typescript).
  writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  mkdirSync(join(work, 'node_modules', '@commodity-data'), { recursive: true });
  symlinkSync(TS_CLIENT, join(work, 'node_modules', '@commodity-data', 'client'), 'dir');

  e2e = await startE2E({ gateways: 1 });
  for (const [source, file] of [
    ['eia', 'eia_rwtc_wti_spot_daily_2022_excerpt.csv'],
    ['cftc-legacy', 'cftc_legacy_fut_annual_2025_excerpt.txt'],
  ] as const) {
    const ingested = await e2e.ingest(['backfill', '--source', source, '--file', join(FIXTURES, file), '--quiet']);
    expect(ingested.code, `${file}: ${ingested.stderr}`).toBe(0);
  }
  // The June 2026 WASDE, so the supply and demand samples (CORN 2026/27) read real balance sheets.
  const wasde = join(REPO_ROOT, 'services', 'ingest', 'test', 'fixtures', 'wasde_0626_trimmed.xml');
  const sheets = await e2e.ingest(['backfill', '--source', 'wasde', '--file', wasde, '--quiet']);
  expect(sheets.code, `wasde: ${sheets.stderr}`).toBe(0);
  keys.business = (await e2e.account('business')).key;
  keys.free = (await e2e.account('free')).key;
  baseUrl = `${e2e.gatewayUrl()}/api/v1`;
  let last = '';
  await eventually(
    'the WTI prices and the CORN COT reports served',
    async () => {
      const cot = await e2e.get('/api/v1/commodities/CORN/cot?per_page=1', { key: keys.business, validate: false });
      const px = await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-09-01', {
        key: keys.business,
        validate: false,
      });
      last = `cot ${cot.status} ${cot.text.slice(0, 300)}; series ${px.status} ${px.text.slice(0, 300)}`;
      const sd = await e2e.get('/api/v1/commodities/CORN/supply-demand?marketing_year=2026/27&per_page=1', {
        key: keys.business,
        validate: false,
      });
      const ready =
        cot.status === 200 &&
        cot.json.data.length === 1 &&
        px.status === 200 &&
        px.json.data.length > 0 &&
        sd.status === 200 &&
        sd.json.data.length === 1;
      // a few probes a second: the business key's window (500 a minute) is for the tests
      if (!ready) await new Promise((r) => setTimeout(r, 500));
      return ready;
    },
    120_000,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)} (last answers: ${last})`);
  });
  rateLimited = rateLimitedClients();
  // awaited by its test; a failure before then is that test's
  rateLimited.catch(() => undefined);
}, 300_000);

afterAll(async () => {
  await e2e?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
}, 60_000);

/** What the examples must print: the newest WTI price and the newest CORN legacy COT report. */
async function expectedValues() {
  const wti = await e2e.get(
    '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2000-01-01&sort_order=desc&limit=1',
    { key: keys.business },
  );
  const corn = await e2e.get('/api/v1/commodities/CORN/cot?per_page=1', { key: keys.business });
  expect(wti.status).toBe(200);
  expect(corn.status).toBe(200);
  const point = wti.json.data[0] as { date: string; value: number };
  const report = corn.json.data[0] as {
    report_date: string;
    commercial: { net: number };
    non_commercial: { net: number };
  };
  // real numbers of the fixtures: the newest WTI spot price of the excerpt, the newest CORN report of the excerpt
  expect(point.date).toBe('2022-11-28');
  expect(report.report_date).toBe('2025-02-04');
  return { point, report };
}

describe('the README examples', () => {
  it('Python: prints the latest WTI price and the latest CORN COT net positions', async () => {
    const { point, report } = await expectedValues();
    const file = join(work, 'example.py');
    writeFileSync(file, readmeExample(join(PYTHON_CLIENT, 'README.md')));
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(5);
    const out = await run(python, [file], { cwd: work, env: clientEnv(keys.business), timeoutMs: 60_000 });
    expect(out.code, out.stderr).toBe(0);
    const m = /^WTI (\S+): (\S+) \| CORN COT (\S+) net: commercial (-?\d+), non-commercial (-?\d+)$/m.exec(out.stdout);
    expect(m, out.stdout).not.toBeNull();
    expect([m![1], Number(m![2]), m![3], Number(m![4]), Number(m![5])]).toEqual([
      point.date,
      point.value,
      report.report_date,
      report.commercial.net,
      report.non_commercial.net,
    ]);
  });

  it('TypeScript: prints the latest WTI price and the latest CORN COT net positions', async () => {
    const { point, report } = await expectedValues();
    const file = join(work, 'example.ts');
    writeFileSync(file, readmeExample(join(TS_CLIENT, 'README.md')));
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(5);
    const out = await ts(file);
    expect(out.code, out.stderr).toBe(0);
    // the point as console.log prints it: its date and value, then when it was published
    const wti = /^WTI \{\s*date: '(\S+)',\s*value: ([^,\s]+),\s*published_at: '[^']+'/m.exec(out.stdout);
    const corn = /^CORN COT (\S+) net: commercial (-?\d+), non-commercial (-?\d+)$/m.exec(out.stdout);
    expect(wti, out.stdout).not.toBeNull();
    expect(corn, out.stdout).not.toBeNull();
    expect([wti![1], Number(wti![2])]).toEqual([point.date, point.value]);
    expect([corn![1], Number(corn![2]), Number(corn![3])]).toEqual([
      report.report_date,
      report.commercial.net,
      report.non_commercial.net,
    ]);
  });
});

describe('the Python client', () => {
  it('pages through every catalog item (as many as the API counts, each once)', async () => {
    const api = await e2e.get('/api/v1/commodities?per_page=100', { key: keys.business });
    expect(api.status).toBe(200);
    const total = api.json.meta.total as number;
    const ids: string[] = [];
    for (let page = 1; page <= (api.json.meta.total_pages as number); page += 1) {
      const res = await e2e.get(`/api/v1/commodities?per_page=100&page=${page}`, { key: keys.business });
      ids.push(...res.json.data.map((c: { id: string }) => c.id));
    }
    expect(total).toBeGreaterThan(20);
    // 7 a page: several pages, the last one partial
    const out = await py(
      [
        'import json',
        'from commodity_data import Client',
        'pager = Client().commodities(per_page=7)',
        'print(json.dumps({"ids": [c.id for c in pager], "total": pager.total}))',
      ].join('\n'),
    );
    expect(out.code, out.stderr).toBe(0);
    const got = JSON.parse(out.stdout) as { ids: string[]; total: number };
    expect(got.total).toBe(total);
    expect(got.ids).toHaveLength(total);
    expect(got.ids).toEqual(ids);
  });

  it('passes its own unit tests, DataFrames included (pandas and polars installed)', async () => {
    const out = await run(python, ['-m', 'unittest', 'discover', '-s', join(PYTHON_CLIENT, 'tests')], {
      cwd: work,
      env: { PYTHONPATH: sitePackages, PYTHONDONTWRITEBYTECODE: '1' },
      timeoutMs: 120_000,
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/^Ran \d+ tests in /m);
    // OK, with no test skipped: the DataFrame tests ran
    expect(out.stderr).toMatch(/^OK$/m);
  }, 150_000);

  it('turns a series and COT reports of the system into DataFrames', async () => {
    const out = await py(
      [
        'from commodity_data import Client',
        'client = Client()',
        'wti = client.series("CRUDE_OIL_WTI", type="price", start_date="2022-01-01", end_date="2022-12-31")',
        'df = wti.to_pandas()',
        'cot = client.cot("CORN").to_polars()',
        'print(len(df), str(df["date"].dtype), df["value"].iloc[-1], cot.height, cot["commercial_net"][0])',
      ].join('\n'),
    );
    expect(out.code, out.stderr).toBe(0);
    const series = await e2e.get(
      '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01&end_date=2022-12-31',
      { key: keys.business },
    );
    const cot = await e2e.get('/api/v1/commodities/CORN/cot?per_page=100', { key: keys.business });
    const [rows, dtype, last, reports, net] = out.stdout.trim().split(' ');
    expect(Number(rows)).toBe(series.json.data.length);
    expect(dtype).toMatch(/^datetime64/);
    expect(Number(last)).toBe(series.json.data.at(-1).value);
    expect(Number(reports)).toBe(cot.json.meta.total);
    expect(Number(net)).toBe(cot.json.data[0].commercial.net);
  });
});

describe('both clients', () => {
  it("read the datasets' conditions and a dataset's releases, shifted ones included", async () => {
    const pyOut = await py(
      [
        'from commodity_data import Client',
        'client = Client()',
        'ds = client.datasets()',
        'print(len(ds.data), len(ds.data[0].days), ds.data[0].days[0].condition.value)',
        'r = client.releases("cftc_legacy", start_date="2025-11-01", end_date="2026-01-31", status="shifted")',
        'print(r.data[0].data_date, r.data[0].local_date, r.meta.total)',
      ].join('\n'),
    );
    expect(pyOut.code, pyOut.stderr).toBe(0);
    const [pyDatasets, pyReleases] = pyOut.stdout.trim().split('\n');
    expect(pyDatasets).toMatch(/^\d+ 90 (available|degraded|late|missing)$/);
    expect(pyReleases).toMatch(/^2025-09-30 2025-11-19 \d+$/);

    const file = join(work, 'datasets.ts');
    writeFileSync(
      file,
      [
        "import { Client } from '@commodity-data/client';",
        'const client = new Client();',
        'const ds = await client.datasets();',
        'const r = await client.releases({ dataset: "cftc_legacy", start_date: "2025-11-01", end_date: "2026-01-31", status: "shifted" });',
        'console.log(ds.data.length, ds.data[0].days.length, r.data[0].data_date, r.data[0].local_date);',
      ].join('\n'),
    );
    const tsOut = await ts(file);
    expect(tsOut.code, tsOut.stderr).toBe(0);
    const [n, days, dataDate, localDate] = tsOut.stdout.trim().split(' ');
    expect(pyDatasets!.split(' ')[0]).toBe(n);
    expect([days, dataDate, localDate]).toEqual(['90', '2025-09-30', '2025-11-19']);
  });

  it('expose code and param of an error', async () => {
    const pyOut = await py(
      [
        'from commodity_data import BadRequestError, Client',
        'client = Client()',
        'for kwargs in ({"per_page": 0}, {"not_a_param": "x"}):',
        '    try:',
        '        client.commodities(**kwargs).first()',
        '    except BadRequestError as err:',
        '        print(err.status, err.code, err.param, err.request_id)',
      ].join('\n'),
    );
    expect(pyOut.code, pyOut.stderr).toBe(0);
    const lines = pyOut.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^400 invalid_parameter per_page \S+$/);
    // a parameter the client does not know reaches the API as it is (as as_of will)
    expect(lines[1]).toMatch(/^400 invalid_parameter not_a_param \S+$/);

    const file = join(work, 'errors.ts');
    writeFileSync(
      file,
      [
        "import { BadRequestError, Client } from '@commodity-data/client';",
        'try {',
        '  await new Client().series("CRUDE_OIL_WTI", { type: "price", limit: 0 });',
        '} catch (err) {',
        '  if (!(err instanceof BadRequestError)) throw err;',
        '  console.log(err.status, err.code, err.param, err.requestId);',
        '}',
      ].join('\n'),
    );
    const tsOut = await ts(file);
    expect(tsOut.code, tsOut.stderr).toBe(0);
    expect(tsOut.stdout.trim()).toMatch(/^400 invalid_parameter limit \S+$/);
  });

  it('retry a 429 of the per-minute window after its Retry-After', async () => {
    // Run from the end of the set-up, beside the tests before this one (rateLimitedClients).
    const { status, retryAfter, outs } = await rateLimited;
    expect(status).toBe(429);
    expect(retryAfter).toBeGreaterThanOrEqual(5);
    expect(outs).toHaveLength(2);
    for (const out of outs) {
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout.trim()).toMatch(/^[A-Z][A-Z0-9_]*$/);
      // it waited for the window: no sooner than the Retry-After seen (less the second it rounds up)
      expect(out.ms).toBeGreaterThanOrEqual((retryAfter - 1) * 1000);
    }
  }, 120_000);
});

describe('the code samples of the reference (x-codeSamples in the OpenAPI document)', () => {
  interface Sample {
    lang: string;
    label: string;
    source: string;
  }
  const document = JSON.parse(readFileSync(join(REPO_ROOT, 'libs/contracts/openapi.json'), 'utf8')) as {
    paths: Record<string, { get: { operationId: string; 'x-codeSamples'?: Sample[] } }>;
  };
  const operations = Object.values(document.paths)
    .map((p) => p.get)
    .filter((op) => op['x-codeSamples'] !== undefined);

  it('every data operation has curl, Python and TypeScript samples, and they run against the system', async () => {
    expect(operations.map((op) => op.operationId)).toEqual(
      expect.arrayContaining(['listCommodities', 'getCommodity', 'getSeries', 'getCotReports', 'listBulkFiles']),
    );
    for (const op of operations) {
      const samples = op['x-codeSamples']!;
      if (op.operationId === 'getBulkFile') continue; // a download: curl only, shown in docs/bulk.md
      expect(
        samples.map((s) => s.lang),
        op.operationId,
      ).toEqual(['Shell', 'Python', 'TypeScript']);
      const env = clientEnv(keys.business);
      const curl = await run('bash', ['-c', `set -eo pipefail; ${samples[0]!.source} --fail --silent`], {
        cwd: work,
        env,
        timeoutMs: 30_000,
      });
      expect(curl.code, `${op.operationId} curl: ${curl.stderr}`).toBe(0);
      expect(JSON.parse(curl.stdout).data, op.operationId).toBeDefined();
      const python = await py(samples[1]!.source);
      expect(python.code, `${op.operationId} Python: ${python.stderr}`).toBe(0);
      const file = join(work, `${op.operationId}.ts`);
      writeFileSync(file, samples[2]!.source);
      const typescript = await ts(file);
      expect(typescript.code, `${op.operationId} TypeScript: ${typescript.stderr}`).toBe(0);
      // Each prints what it read (the bulk list may be empty here: no bulk job ran).
      if (op.operationId !== 'listBulkFiles') {
        expect(python.stdout.trim(), op.operationId).not.toBe('');
        expect(typescript.stdout.trim(), op.operationId).not.toBe('');
      }
    }
  }, 240_000);
});
