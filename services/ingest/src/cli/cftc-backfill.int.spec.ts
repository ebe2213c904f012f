import { startCliSandbox, type CliSandbox } from '@cds/testkit';
import { readFileSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownFixturePath, realFixturePath } from '../../test/helpers/source-fixtures.ts';

// `npm run ingest -- backfill --source cftc-cit|cftc-legacy-combined` as a child process against a
// private NATS server, on the real excerpts saved under the CFTC's own file names.
const ingestCli = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli.ts');
let sandbox: CliSandbox;

beforeAll(async () => {
  sandbox = await startCliSandbox('ingest-cftc-cli-');
});
afterAll(async () => {
  await sandbox?.stop();
});

const backfill = async (source: string, fixture: string, name: string) => {
  const path = join(sandbox.dir, name);
  await copyFile(fixture, path);
  return sandbox.run(ingestCli, ['backfill', '--source', source, '--file', path], {
    NATS_URL: sandbox.nats.identities.ingest,
  });
};

describe('ingest backfill of the combined COT reports and the CIT supplement', () => {
  it('publishes annualci.txt and annualof.txt; refuses annual.txt given as the combined report, naming the file expected', async () => {
    const cit = await backfill('cftc-cit', ownFixturePath('cftc_cit_2024_excerpt.txt'), 'annualci.txt');
    expect(cit.stderr).not.toMatch(/error:/);
    expect(cit.code).toBe(0);
    expect(cit.stdout).toContain('Summary: cftc-cit:annualci.txt');
    expect(cit.stdout).toMatch(/records read: +20\b/);
    expect(cit.stdout).toMatch(/rejected: +0\b/);
    expect(Number(/events published: +(\d+)/.exec(cit.stdout)?.[1])).toBeGreaterThan(0);

    const combined = await backfill(
      'cftc-legacy-combined',
      ownFixturePath('cftc_legacy_combined_2026_excerpt.txt'),
      'annualof.txt',
    );
    expect(combined.code).toBe(0);
    // 29 reports (two rows of a market outside the catalog skipped), and no open interest points
    expect(combined.stdout).toMatch(/events published: +\d+ \(\d+ with 29 records/);
    expect(combined.stdout).toMatch(/skipped: +2 \(unknown_commodity: 2\)/);
    expect(combined.stdout).toMatch(/rejected: +0\b/);

    // a row whose Old + Other misses All by 2 (open interest Old of ORANGE JUICE 2026-02-03 lowered by 1): published, flagged
    const edited = join(sandbox.dir, 'annualof_edited.txt');
    await writeFile(
      edited,
      readFileSync(ownFixturePath('cftc_legacy_combined_2026_excerpt.txt'), 'utf8').replace(
        /(,2026-02-03,040701,(?:[^,]*,){13} *)10081,/,
        '$110080,',
      ),
    );
    const flagged = await sandbox.run(ingestCli, ['backfill', '--source', 'cftc-legacy-combined', '--file', edited], {
      NATS_URL: sandbox.nats.identities.ingest,
    });
    expect(flagged.code).toBe(0);
    expect(flagged.stdout).toMatch(/rejected: +0\b/);
    expect(flagged.stdout).toMatch(/flagged \(published\): +1 \(old_plus_other_equals_all: 1\)/);

    const wrong = await backfill(
      'cftc-legacy-combined',
      realFixturePath('cftc_legacy_fut_annual_2025_excerpt.txt'),
      'annual.txt',
    );
    expect(wrong.stdout + wrong.stderr).toContain(
      "annual.txt:1: annual.txt is the CFTC's name of a futures-only file; expected the legacy futures-and-options combined report (annualof.txt of deahistfo<year>.zip)",
    );
    expect(wrong.stdout).toMatch(/events published: +0\b/);
  });
});
