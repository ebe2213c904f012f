import { runNodeScript, startNats, type NatsHandle } from '@cds/testkit';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceServer } from '../../test/helpers/source-server.ts';
import { COMMODITIES } from '../sources/registry.ts';

// `npm run ingest -- sync` as a child process, against a private NATS server and the local
// server replaying the recorded CFTC, EIA and NASS answers (the whole catalog is asked).
/** Every commodity with CFTC codes, in four datasets (both formats, futures only and combined), plus the 13 CIT markets. */
const cftcSeries =
  COMMODITIES.filter((c) => (c.entry.identifiers?.cftc_contract_codes.length ?? 0) > 0).length * 4 + 13;
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli.ts');
let nats: NatsHandle;
const sources = new SourceServer();

function sync(args: string[], env: Record<string, string> = {}) {
  return runNodeScript(cli, ['sync', ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      CDS_LOCAL_ENV: '/nonexistent/local.json',
      NATS_URL: nats.identities.ingest,
      CFTC_API_URL: sources.baseUrl,
      EIA_API_URL: sources.baseUrl,
      NASS_API_URL: sources.baseUrl,
      AMS_API_URL: sources.baseUrl,
      WORLDBANK_PAGE_URL: sources.worldbankPageUrl,
      WASDE_API_URL: sources.baseUrl,
      ECB_API_URL: sources.ecbRatesUrl,
      EIA_API_KEY: 'eia-test-key',
      NASS_API_KEY: 'nass-test-key',
      SOURCE_REQUEST_INTERVAL_MS: '0',
      ...env,
    },
  });
}

beforeAll(async () => {
  nats = await startNats();
  await sources.start();
});
afterAll(async () => {
  await nats?.stop();
  await sources.stop();
});

describe('ingest sync (CLI)', () => {
  it('publishes, then publishes nothing; a failing source exits 1 naming it, the others still run, no stack trace', async () => {
    const first = await sync([]);
    expect(first.stderr).toContain('progress: ');
    expect(first.code, first.stderr).toBe(0);
    for (const s of ['cftc', 'eia', 'nass', 'ams', 'worldbank', 'wasde', 'ecb'])
      expect(first.stdout).toContain(`Summary: sync ${s}`);
    // the five legacy reports in one event, and the five open interest points they give, each in the
    // event of its report's release (a series event has one published_at)
    expect(first.stdout).toMatch(
      /Summary: sync cftc\n(.*\n)*? {2}events published: +\d+ \(6 with 10 records, \d+ catalog\)/,
    );
    expect(first.stdout).toContain(`series:              ${cftcSeries} synced, 0 failed`);
    expect(first.stdout).toMatch(/newest data: +2024-08-30/);

    const second = await sync(['--quiet']);
    expect(second.code).toBe(0);
    expect(second.stderr).toBe('');
    expect([...second.stdout.matchAll(/events published: +(\d+)/g)].map((m) => m[1])).toEqual([
      '0',
      '0',
      '0',
      '0',
      '0',
      '0',
      '0',
    ]);

    for (const row of sources.nass) {
      row.value_text = row.Value;
      delete row.Value;
    }
    const broken = await sync(['--quiet'], { EIA_API_KEY: '' });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /^error: sync failed for eia \(EIA_API_KEY is not set.*\); nass \(1 of \d+ series failed; first: CORN, GRAIN - YIELD.*has no "Value" field/m,
    );
    expect(broken.stdout).toContain(`has no "Value" field`);
    expect(broken.stdout).toContain(`series:              ${cftcSeries} synced, 0 failed`);
    expect(broken.stderr).not.toMatch(/^\s+at /m);
    sources.reset();
  });

  it('reads --source and refuses a bad one with the usage text', async () => {
    const cftc = await sync(['--source', 'cftc', '--quiet']);
    expect(cftc.code).toBe(0);
    expect(cftc.stdout).toContain('Summary: sync cftc');
    expect(cftc.stdout).not.toContain('Summary: sync eia');
    const bad = await sync(['--source', 'bloomberg']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown sync source bloomberg');
  });
});
