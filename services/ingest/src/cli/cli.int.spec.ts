import { findFreePort, startCliSandbox, type CliSandbox, type NatsHandle } from '@cds/testkit';
import { truncate, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticCftcLegacyFile } from '../testing/synthetic-cftc.ts';
import { buildZip, workbookWith } from '../../test/helpers/zip.ts';

// The CLI runs as a child process, as `npm run ingest` runs it, against a
// private NATS server (the event streams have fixed subjects).
const here = dirname(fileURLToPath(import.meta.url));
const ingestCli = join(here, '..', 'cli.ts');

let sandbox: CliSandbox;
let nats: NatsHandle;
let dir: string;
const run = (script: string, args: string[], env: Record<string, string>) => sandbox.run(script, args, env);

beforeAll(async () => {
  sandbox = await startCliSandbox('ingest-cli-');
  ({ nats, dir } = sandbox);
});

afterAll(async () => {
  await sandbox?.stop();
});

/** A legacy COT file in the real column layout, with a bad open interest on lines 101, 201 and 301. */
async function fileWithBadRows(): Promise<{ path: string; rows: number }> {
  const path = join(dir, 'annual_with_bad_rows.txt');
  await writeSyntheticCftcLegacyFile(path, { rows: 300, badEvery: 100 });
  return { path, rows: 300 };
}

describe('ingest CLI', () => {
  it('publishes a file with bad rows, reports each rejected row with file:line, and exits 0', async () => {
    const { path, rows } = await fileWithBadRows();
    const first = await run(ingestCli, ['backfill', '--source', 'cftc-legacy', '--file', path], {
      NATS_URL: nats.identities.ingest,
    });
    expect(first.stderr).not.toMatch(/error:/);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Summary: cftc-legacy:annual_with_bad_rows.txt');
    // each good legacy row gives its report and a point of the weekly open interest series
    expect(first.stdout).toMatch(new RegExp(`records read: +${rows + (rows - 3)}\\b`));
    expect(first.stdout).toMatch(/rejected: +3\b/);
    expect(first.stdout).toMatch(/annual_with_bad_rows\.txt:101: open_interest: .+/);
    expect(first.stdout).toMatch(/annual_with_bad_rows\.txt:201: open_interest: .+/);
    expect(first.stdout).toMatch(/annual_with_bad_rows\.txt:301: open_interest: .+/);
    const published = /events published: +(\d+)/.exec(first.stdout);
    expect(Number(published?.[1])).toBeGreaterThan(0);
    expect(first.stdout).toMatch(/duplicates skipped: +0\b/);

    const second = await run(ingestCli, ['backfill', '--source', 'cftc-legacy', '--file', path, '--quiet'], {
      NATS_URL: nats.identities.ingest,
    });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/events published: +0\b/);
    expect(second.stdout).toMatch(new RegExp(`duplicates skipped: +${published?.[1]}\\b`));
  });

  it('fails clearly on bad usage, a missing file and an unreachable NATS', async () => {
    const usage = await run(ingestCli, ['backfill', '--source', 'nope', '--file', 'x'], {
      NATS_URL: nats.identities.ingest,
    });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('error: unknown source nope');
    expect(usage.stderr).toContain('Usage: npm run ingest');

    const missing = await run(ingestCli, ['backfill', '--source', 'eia', '--file', join(dir, 'absent.csv')], {
      NATS_URL: nats.identities.ingest,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/error: cannot read .*absent\.csv: no such file/);

    const port = await findFreePort();
    const { path } = await fileWithBadRows();
    const down = await run(ingestCli, ['backfill', '--source', 'cftc-legacy', '--file', path], {
      NATS_URL: `nats://127.0.0.1:${port}`,
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`error: cannot reach NATS at nats://127.0.0.1:${port}`);

    const noAddress = await run(ingestCli, ['backfill', '--source', 'cftc-legacy', '--file', path], {});
    expect(noAddress.code).toBe(1);
    expect(noAddress.stderr).toContain('no NATS address');
  });

  it('refuses hostile or oversized files with a clear message and exit 1, before publishing', async () => {
    const env = { NATS_URL: nats.identities.ingest };
    const backfill = async (source: string, name: string, bytes: Buffer | string) => {
      const path = join(dir, name);
      await writeFile(path, bytes);
      return run(ingestCli, ['backfill', '--source', source, '--file', path, '--quiet'], env);
    };
    // a merged range of 1.7e10 cells in a 1 KB workbook, and a zip hiding a second entry
    const merged = await backfill(
      'worldbank',
      'merge-bomb.xlsx',
      buildZip(workbookWith('<sheetData/><mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>')),
    );
    expect(merged.code).toBe(1);
    expect(merged.stderr).toContain(
      'error: worldbank: merge-bomb.xlsx cannot be read as an .xlsx workbook (the "Monthly Prices" sheet merges the range A1:XFD1048576, beyond the 5000 rows by 500 columns read); nothing was read',
    );
    const entries = workbookWith('<sheetData/>');
    const hidden = await backfill('worldbank', 'hidden.xlsx', buildZip(entries, { declaredCount: 2 }));
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toContain(
      'error: worldbank: hidden.xlsx is not an .xlsx workbook we read: the zip central directory holds more records than the 2 its end record declares',
    );
    // a line of 100,000 characters in an EIA CSV
    const longLine = await backfill('eia', 'long-line.csv', `Date,Price\n${'9'.repeat(100_000)}\n`);
    expect(longLine.code).toBe(1);
    expect(longLine.stderr).toMatch(/error: ingest failed: line 2 is longer than the 65536 characters read/);
    // a file past its source's size bound is refused before it is read (a sparse file: no bytes written)
    const big = join(dir, 'huge.csv');
    await writeFile(big, '');
    await truncate(big, 64 * 1024 * 1024 + 1);
    const huge = await run(ingestCli, ['backfill', '--source', 'eia', '--file', big, '--quiet'], env);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toContain(`error: ${big} is 67108865 bytes, more than the 67108864 read for --source eia`);
    for (const r of [merged, hidden, longLine, huge]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('takes the NATS address from the local environment file npm start leaves behind', async () => {
    const localPath = join(dir, 'local.json');
    await writeFile(
      localPath,
      JSON.stringify({
        natsUrl: nats.identities.ingest,
        mongoUrl: 'mongodb://x',
        redisUrl: 'redis://x',
        adminUrl: 'http://x',
        adminToken: 't',
        gatewayUrl: 'http://x',
      }),
    );
    const { path } = await fileWithBadRows();
    const r = await run(ingestCli, ['backfill', '--source', 'cftc-legacy', '--file', path, '--quiet'], {
      CDS_LOCAL_ENV: localPath,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/events published: +0\b/);
  });
});
