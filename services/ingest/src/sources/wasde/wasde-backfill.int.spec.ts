import { readFileSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATA_STREAM } from '@cds/contracts';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { startCliSandbox, type CliSandbox } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataEventReader, type StoredDataEvent } from '../../../test/helpers/data-events.ts';
import { ownFixturePath } from '../../../test/helpers/source-fixtures.ts';

// `npm run ingest -- backfill --source wasde --file wasde0626.xml` as a child process against a
// private NATS server, on the real June 2026 XML saved under USDA's file name; the events read back
// from the data stream.
const ingestCli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli.ts');
const JUNE_2026 = ownFixturePath('wasde_0626_trimmed.xml');
let sandbox: CliSandbox;
let messaging: Messaging | undefined;
let newEvents: () => Promise<StoredDataEvent[]>;

beforeAll(async () => {
  sandbox = await startCliSandbox('ingest-wasde-cli-');
});
afterAll(async () => {
  await messaging?.close().catch(() => undefined);
  await sandbox?.stop();
});

async function backfill(name: string, extra: string[] = [], content?: string) {
  const path = join(sandbox.dir, name);
  if (content === undefined) await copyFile(JUNE_2026, path);
  else await writeFile(path, content);
  return sandbox.run(ingestCli, ['backfill', '--source', 'wasde', '--file', path, ...extra], {
    NATS_URL: sandbox.nats.identities.ingest,
  });
}

interface Sheet {
  commodity_id: string;
  region: string;
  marketing_year: string;
  edition: string;
  status: string;
  published_at: string;
  published_at_estimated?: boolean;
  figures: { attribute: string; unit: string; value: number }[];
}
const sheets = (events: StoredDataEvent[]) =>
  events.filter((e) => e.type === 'supply_demand.figures.recorded').map((e) => e.data as unknown as Sheet);

describe('ingest backfill --source wasde', () => {
  it('publishes every balance sheet of the June 2026 file once, each release of a sheet its own event', async () => {
    const first = await backfill('wasde0626.xml');
    expect(first.stderr).not.toMatch(/error:/);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Summary: wasde:wasde0626.xml');
    expect(first.stdout).toMatch(/rejected: +0\b/);
    expect(first.stdout).toMatch(/events published: +\d+ \(88 with \d+ records/);
    expect(first.stdout).toMatch(
      /skipped: +52 \(U\.S\. Feed Grain and Corn Supply and Use: feed grains \(no catalog commodity\): 52\)/,
    );

    messaging = await connectMessaging({ servers: sandbox.nats.url, name: 'wasde-backfill-int-spec' });
    newEvents = createDataEventReader(messaging);
    const june = sheets(await newEvents());
    expect(june).toHaveLength(88);
    const corn = june.find(
      (s) =>
        s.commodity_id === 'CORN' &&
        s.region === 'united_states' &&
        s.marketing_year === '2026/27' &&
        s.edition === '2026-06',
    )!;
    expect(corn.status).toBe('projection');
    expect(corn.published_at).toBe('2026-06-11T16:00:00.000Z');
    expect(corn.figures).toContainEqual({ attribute: 'ending_stocks', unit: 'Million Bushels', value: 1960 });
    expect(corn.figures).toContainEqual({ attribute: 'ending_stocks', unit: 'Million Metric Tons', value: 49.78 });
    const may = june.find(
      (s) =>
        s.commodity_id === 'CORN' &&
        s.region === 'united_states' &&
        s.marketing_year === '2026/27' &&
        s.edition === '2026-05',
    )!;
    expect(may.published_at).toBe('2026-05-12T16:00:00.000Z');
    expect(may.figures).toContainEqual({ attribute: 'ending_stocks', unit: 'Million Bushels', value: 1957 });

    // each on its sheet's subject
    const last = await messaging.jsm.streams.getMessage(DATA_STREAM, {
      last_by_subj: 'cds.data.supply_demand.SOYBEAN_MEAL.united_states',
    });
    expect(last?.json<{ data: Sheet }>().data.commodity_id).toBe('SOYBEAN_MEAL');

    // the same file again: the same ids, nothing new
    const again = await backfill('wasde0626.xml');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/events published: +\d+ \(0 with 0 records/);
    expect(again.stdout).toMatch(/duplicates skipped: +\d+ \(88 data/);
    expect(sheets(await newEvents())).toEqual([]);
  });

  it('publishes a re-post (v2) of the edition at --published-at: a new release of its own sheets, the May column unchanged', async () => {
    const run = await backfill('wasde0626v2.xml', ['--published-at', '2026-06-12T10:00:00-04:00']);
    expect(run.code).toBe(0);
    const repost = sheets(await newEvents());
    // US corn (its table and the world table's United States row), the three soybean sheets, 18 other world regions
    const mayColumn = 1 + 3 + 18;
    expect(repost).toHaveLength(88 - mayColumn);
    for (const s of repost) expect([s.edition, s.published_at]).toEqual(['2026-06', '2026-06-12T14:00:00.000Z']);
    expect(run.stdout).toMatch(new RegExp(`duplicates skipped: +\\d+ \\(${mayColumn} data`));
  });

  it('publishes a sheet that fails its balance with failed_checks, counted in the summary', async () => {
    // US corn 2024/25 ending stocks 1,551 raised to 1,561: supply 16,677 against use 15,126 + 1,561
    const xml = readFileSync(JUNE_2026, 'utf8').replace(
      /(attribute2="Ending Stocks"><m2_year_group_Collection><m2_year_group market_year2="2024\/25">.*?cell_value2=")1,551"/,
      '$11,561"',
    );
    expect(xml).not.toBe(readFileSync(JUNE_2026, 'utf8'));
    const run = await backfill('wasde0626v3.xml', ['--published-at', '2026-06-13T09:00:00-04:00'], xml);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/flagged \(published\): +1 \(supply_equals_use_plus_ending_stocks: 1\)/);
    const flagged = sheets(await newEvents()).filter((s) => 'failed_checks' in s);
    expect(flagged.map((s) => [s.commodity_id, s.region, s.marketing_year])).toEqual([
      ['CORN', 'united_states', '2024/25'],
    ]);
  });

  it('refuses a truncated file and a bad --published-at, publishing nothing', async () => {
    const truncated = await backfill('wasde0626.xml', [], readFileSync(JUNE_2026, 'utf8').slice(0, 50_000));
    expect(truncated.code).toBe(1);
    expect(truncated.stderr).toMatch(/wasde: wasde0626\.xml: malformed XML: .*; nothing was published/);
    expect(truncated.stderr).not.toMatch(/\n\s+at /);
    const badTime = await backfill('wasde0626.xml', ['--published-at', 'yesterday']);
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain('--published-at must be an RFC 3339 instant');
    const otherSource = await sandbox.run(
      ingestCli,
      [
        'backfill',
        '--source',
        'ohlcv',
        '--file',
        JUNE_2026,
        '--commodity',
        'CORN',
        '--published-at',
        '2026-06-11T12:00:00Z',
      ],
      { NATS_URL: sandbox.nats.identities.ingest },
    );
    expect(otherSource.code).toBe(2);
    expect(otherSource.stderr).toContain('--published-at goes with --source wasde');
    expect(sheets(await newEvents())).toEqual([]);
  });
});
