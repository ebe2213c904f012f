import { describe, expect, it } from 'vitest';
import type { IngestSummary } from '../publish/pipeline.ts';
import { resolveAddresses } from './addresses.ts';
import { parseIngestArgs, UsageError } from './args.ts';
import { createProgressReporter } from './progress.ts';
import { formatSummary } from './summary.ts';

describe('parseIngestArgs', () => {
  it('reads a file backfill', () => {
    expect(parseIngestArgs(['backfill', '--source', 'cftc-legacy', '--file', 'annual.txt'])).toEqual({
      command: 'backfill',
      source: 'cftc-legacy',
      file: 'annual.txt',
      common: { ledger: true, quiet: false },
    });
    expect(parseIngestArgs(['backfill', '--source', 'ams', '--report', 'LM_CT150', '--file', 'x.json'])).toEqual({
      command: 'backfill',
      source: 'ams',
      file: 'x.json',
      report: 'LM_CT150',
      common: { ledger: true, quiet: false },
    });
    expect(parseIngestArgs(['sync', '--source', 'ams'])).toMatchObject({ command: 'sync', sources: ['ams'] });
    const repost = ['--file', 'wasde0526v2.xml', '--published-at', '2026-05-13T12:00:00-04:00'];
    expect(parseIngestArgs(['backfill', '--source', 'wasde', ...repost])).toEqual({
      command: 'backfill',
      source: 'wasde',
      file: 'wasde0526v2.xml',
      publishedAt: '2026-05-13T12:00:00-04:00',
      common: { ledger: true, quiet: false },
    });
  });

  it('reads demo, fetch and the shared options', () => {
    expect(parseIngestArgs(['backfill', '--demo', '--years', '2', '--nats-url', 'nats://h:1', '--no-ledger'])).toEqual({
      command: 'demo',
      years: 2,
      common: { natsUrl: 'nats://h:1', ledger: false, quiet: false },
    });
    expect(parseIngestArgs(['fetch', '--source', 'eia', '--since', '2024-01-01'])).toMatchObject({
      command: 'fetch',
      source: 'eia',
      since: '2024-01-01',
    });
    expect(parseIngestArgs(['backfill', '--source', 'nass', '--since', '2020-01-01'])).toMatchObject({
      command: 'fetch',
    });
    expect(parseIngestArgs(['--help'])).toEqual({ command: 'help' });
    expect(parseIngestArgs(['backfill', '--demo', '--without', 'cot,nass'])).toMatchObject({
      command: 'demo',
      without: ['cot', 'nass'],
    });
  });

  it.each([
    [[], /missing command/],
    [['import'], /unknown command import/],
    [['backfill'], /--source is required/],
    [['backfill', '--source', 'bloomberg', '--file', 'x'], /unknown source bloomberg/],
    [['backfill', '--source', 'eia'], /--file is required/],
    [['backfill', '--source', 'ohlcv', '--file', 'x.csv'], /--commodity is required/],
    [['backfill', '--source', 'ams', '--file', 'x.json'], /--report is required for --source ams/],
    [['backfill', '--source', 'eia', '--file', 'x', '--report', 'LM_CT150'], /--report goes with --source ams/],
    [['backfill', '--demo', '--years', 'many'], /--years/],
    [['backfill', '--demo', '--without', 'cot,ohlcv'], /--without takes cot, eia, nass, worldbank, ams .*ohlcv/],
    [['backfill', '--source', 'eia', '--file', 'x', '--without', 'cot'], /--without goes with --demo/],
    [['sync', '--without', 'cot'], /sync takes no --without/],
    [['sync', '--published-at', '2026-06-11T12:00:00Z'], /sync takes no --published-at/],
    [
      ['backfill', '--source', 'eia', '--file', 'x', '--published-at', '2026-06-11T12:00:00Z'],
      /--published-at goes with --source wasde/,
    ],
    [['backfill', '--snapshot', 'd', '--published-at', '2026-06-11T12:00:00Z'], /--snapshot takes no --published-at/],
    [['backfill', '--snapshot', 'd', '--editions-since', '2025-13'], /--editions-since must be YYYY-MM, got 2025-13/],
    [
      ['backfill', '--snapshot', 'd', '--editions-since', '2025-12', '--history-before', '2025-12'],
      /two halves of one load: give one/,
    ],
    [['backfill', '--snapshot', 'd', '--rates-since', '2025-1'], /--rates-since must be YYYY-MM, got 2025-1/],
    [
      ['backfill', '--snapshot', 'd', '--rates-since', '2025-12', '--rates-before', '2025-12'],
      /--rates-since and --rates-before are two halves of one load: give one/,
    ],
    [
      ['backfill', '--snapshot', 'd', '--rates-before', '2025-12', '--editions-since', '2025-12'],
      /--rates-before loads only the older exchange rates/,
    ],
    [
      ['backfill', '--source', 'eia', '--file', 'x', '--history-before', '2025-12'],
      /--history-before goes with --snapshot/,
    ],
    [['sync', '--editions-since', '2025-12'], /--editions-since goes with --snapshot/],
    [['fetch', '--source', 'eia', '--since', '1/2/2024'], /--since must be YYYY-MM-DD/],
    [['backfill', '--source', 'eia', '--file', 'x', '--bogus'], /bogus/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseIngestArgs(argv)).toThrow(UsageError);
    expect(() => parseIngestArgs(argv)).toThrow(message);
  });
});

describe('parseIngestArgs --snapshot', () => {
  it('reads the supply and demand editions a snapshot load takes: from a month, or only those before it', () => {
    expect(parseIngestArgs(['backfill', '--snapshot', 'd'])).toMatchObject({ command: 'snapshot', dir: 'd' });
    expect(parseIngestArgs(['backfill', '--snapshot', 'd'])).not.toHaveProperty('editions');
    expect(parseIngestArgs(['backfill', '--snapshot', 'd', '--editions-since', '2025-12'])).toMatchObject({
      editions: { since: '2025-12' },
    });
    expect(parseIngestArgs(['backfill', '--snapshot', 'd', '--history-before', '2025-12'])).toMatchObject({
      editions: { before: '2025-12' },
    });
  });
});

describe('resolveAddresses', () => {
  const local = {
    natsUrl: 'nats://local:4222',
    mongoUrl: 'm',
    redisUrl: 'r',
    adminUrl: 'http://local:8083',
    adminToken: 'local-token',
    gatewayUrl: 'g',
  };
  it('takes flags over environment over the local file', () => {
    const r = resolveAddresses({ natsUrl: 'nats://flag:1' }, { ADMIN_URL: 'http://env:2' }, () => local);
    expect(r).toMatchObject({ natsUrl: 'nats://flag:1', adminUrl: 'http://env:2', adminToken: 'local-token' });
    expect(r.from).toEqual({ natsUrl: 'flag', adminUrl: 'env', adminToken: 'local' });
    expect(resolveAddresses({}, {}, () => undefined)).toMatchObject({ from: { natsUrl: 'none' } });
  });
});

function summary(over: Partial<IngestSummary> = {}): IngestSummary {
  return {
    recordsRead: 12_345,
    rejected: 0,
    eventsPublished: 40,
    duplicatesSkipped: 2,
    recordsPublished: 12_000,
    buffered: 0,
    rejections: [],
    replaced: 0,
    catalogEntries: 30,
    catalogPublished: 30,
    catalogDuplicates: 0,
    elapsedMs: 2_000,
    ...over,
  };
}

describe('formatSummary', () => {
  it('prints the counts', () => {
    const text = formatSummary(summary(), { title: 'cftc-legacy:annual.txt' });
    expect(text).toContain('Summary: cftc-legacy:annual.txt');
    expect(text).toMatch(/records read: +12,345/);
    expect(text).toMatch(/rejected: +0/);
    expect(text).toMatch(/events published: +40 \(10 with 11,970 records, 30 catalog\)/);
    expect(text).toMatch(/duplicates skipped: +2 \(2 data, 0 catalog\)/);
    expect(text).not.toContain('Rejected rows');
  });

  it('lists the first rejections as file:line: reason and says how many more', () => {
    const rejections = Array.from({ length: 25 }, (_, i) => ({
      kind: 'rejected' as const,
      file: 'f.txt',
      line: i + 2,
      reason: `bad ${i}`,
    }));
    const text = formatSummary(summary({ rejected: 25, rejections }), { title: 't', maxListed: 20 });
    expect(text).toContain('Rejected rows (first 20 of 25):');
    expect(text).toContain('  f.txt:2: bad 0');
    expect(text).toContain('  f.txt:21: bad 19');
    expect(text).not.toContain('f.txt:22:');
    expect(text).toContain('... and 5 more');
  });

  it('counts the rows a parser skipped', () => {
    const text = formatSummary(summary({ recordsRead: 10 }), {
      title: 't',
      parse: { rows: 12, emitted: 10, skipped: 2, rejected: 0, skippedByReason: { unknown_commodity: 2 } },
    });
    expect(text).toMatch(/records read: +12/);
    expect(text).toMatch(/skipped: +2 \(unknown_commodity: 2\)/);
  });
});

describe('createProgressReporter', () => {
  const p = {
    recordsRead: 5_000,
    rejected: 1,
    eventsPublished: 3,
    duplicatesSkipped: 0,
    recordsPublished: 900,
    buffered: 10,
  };
  it('draws a bar on a terminal and clears it at the end', () => {
    let out = '';
    let t = 0;
    const r = createProgressReporter(
      { write: (s: string) => (out += s), isTTY: true, columns: 200 },
      { fraction: () => 0.5, now: () => (t += 1_000) },
    );
    r.update(p);
    expect(out).toContain('[############------------]  50%');
    expect(out).toContain('5,000 read, 1 rejected, 3 events');
    r.done();
    expect(out.endsWith('\r\u001b[2K')).toBe(true);
  });

  it('prints plain lines, at most one per interval, elsewhere', () => {
    const lines: string[] = [];
    let t = 10_000;
    const r = createProgressReporter({ write: (s: string) => lines.push(s) }, { now: () => t, intervalMs: 5_000 });
    r.update(p);
    t += 1_000;
    r.update(p);
    t += 5_000;
    r.update(p);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^progress: 5,000 read/);
  });
});
