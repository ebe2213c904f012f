import { describe, expect, it } from 'vitest';
import { parseIngestArgs } from '../cli/args.ts';
import type { SeriesItem, SourceItem } from '../sources/types.ts';
import { filterAgainstCursor } from './cursor.ts';
import { parseJsonBody, requireFields, IncompletePageError, SchemaChangeError } from '../sources/common/sync/pages.ts';
import { syncFrom } from '../sources/common/sync/plans.ts';
import { expectedEiaRows } from '../sources/eia/plans.ts';
import { nassFromYear, planYearRanges } from '../sources/nass/plans.ts';
import { cursorKey, createMemorySyncStore, raisedErrorDay } from './state.ts';
import { runSync } from './run-sync.ts';
import type { Publisher } from '../publish/publisher.ts';
import { seriesTasks } from '../sources/registry.ts';
import { CATALOG } from '../sources/registry.ts';

const price = (date: string, value: number): SeriesItem => ({
  kind: 'series',
  commodity_id: 'CRUDE_OIL_WTI',
  series_type: 'price',
  frequency: 'daily',
  unit: 'USD/bbl',
  point: { date, value },
});
const now = new Date('2026-11-24T00:00:00Z');

describe('sync ranges', () => {
  it('asks from since, else newest - overlap, else today - lookback', () => {
    const base = { overlapDays: 30, lookbackDays: 1095, today: '2026-11-24' };
    expect(syncFrom({ ...base, newest: '2026-11-20' })).toBe('2026-10-21');
    expect(syncFrom({ ...base, newest: undefined })).toBe('2023-11-25');
    expect(syncFrom({ ...base, newest: '2026-11-20', since: '2020-01-01' })).toBe('2020-01-01');
    expect(nassFromYear('2025-12-31', '2026-11-24')).toBe(2024);
    expect(nassFromYear(undefined, '2026-11-24')).toBe(2021);
  });
  it('plans EIA pages: a page holds the page size or what is left of the total', () => {
    expect(expectedEiaRows(12_345, 0, 5000)).toBe(5000);
    expect(expectedEiaRows(12_345, 10_000, 5000)).toBe(2345);
    expect(expectedEiaRows(0, 0, 5000)).toBe(0);
  });
  it('splits NASS year ranges until each fits the record limit', async () => {
    const perYear: Record<number, number> = { 2020: 30_000, 2021: 30_000, 2022: 10_000, 2023: 0, 2024: 45_000 };
    const count = (a: number, b: number) => {
      let n = 0;
      for (let y = a; y <= b; y++) n += perYear[y] ?? 0;
      return Promise.resolve(n);
    };
    expect(await planYearRanges(2020, 2024, count)).toEqual([
      { from: 2020, to: 2020, count: 30_000 },
      { from: 2021, to: 2021, count: 30_000 },
      { from: 2022, to: 2022, count: 10_000 },
      { from: 2023, to: 2024, count: 45_000 },
    ]);
    await expect(planYearRanges(2020, 2020, () => Promise.resolve(60_000))).rejects.toThrow(/60000 records in 2020/);
  });
  it('lists each commodity and each of its mapped series', () => {
    const wti = seriesTasks('eia', CATALOG, ['CRUDE_OIL_WTI']).map((t) => t.series);
    expect(wti).toEqual(['RWTC', 'WCESTUS1', 'WCRRIUS2', 'WCRFPUS2']);
    expect(seriesTasks('cftc', CATALOG, ['GOLD']).map((t) => t.series)).toEqual([
      'legacy.GOLD',
      'disaggregated.GOLD',
      'legacy_combined.GOLD',
      'disaggregated_combined.GOLD',
    ]);
    // the CIT supplement only for its 13 agricultural markets
    expect(seriesTasks('cftc', CATALOG, ['CORN']).map((t) => t.series)).toContain('cit.CORN');
    expect(seriesTasks('cftc', CATALOG).filter((t) => t.series.startsWith('cit.'))).toHaveLength(13);
    expect(seriesTasks('nass', CATALOG, ['CORN']).length).toBe(6); // five fundamentals and the price received
    expect(seriesTasks('ams', CATALOG).map((t) => [t.commodityId, t.series, t.overlapDays])).toEqual([
      ['LEAN_HOGS', 'LM_HG201', 30],
      ['MILK_CLASS_III', 'FMMO_CLASS', 183],
    ]);
  });
});

describe('the cursor filter', () => {
  it('keeps new and revised records, drops unchanged ones, and prunes digests outside the overlap', () => {
    const first = filterAgainstCursor([price('2026-10-01', 70), price('2026-11-20', 75)], undefined, 30, now);
    expect(first.fresh).toHaveLength(2);
    expect(first.next.newest_date).toBe('2026-11-20');
    expect(Object.keys(first.next.seen)).toEqual(['CRUDE_OIL_WTI|price|daily|2026-11-20']); // 10-01 is outside
    const items: SourceItem[] = [
      price('2026-11-20', 75.5),
      price('2026-11-23', 76),
      { kind: 'rejected', file: 'eia:RWTC', line: 3, reason: 'bad' },
    ];
    const second = filterAgainstCursor(items, first.next, 30, now);
    expect(second.fresh).toEqual(items);
    expect(second.revised).toBe(1);
    const third = filterAgainstCursor([price('2026-11-20', 75.5), price('2026-11-23', 76)], second.next, 30, now);
    expect(third).toMatchObject({ fresh: [], unchanged: 2, revised: 0 });
  });
});

describe('page checks', () => {
  it('calls a truncated body incomplete and a renamed field a schema change naming it', () => {
    expect(() => parseJsonBody('{"response":{"data":[{"period":"2026', 'eia RWTC')).toThrow(IncompletePageError);
    expect(() => requireFields([{ period: 'x', val: 1 }], ['period', 'value'], 'eia RWTC')).toThrow(
      new SchemaChangeError(
        `eia RWTC: the source's schema changed: row 1 has no "value" field (fields: period, val); nothing was published for this series`,
      ),
    );
    expect(() => requireFields([{ a: 1 }], [['b', 'c']], 'x')).toThrow(/no "b or c" field/);
  });
});

describe('sync state keys', () => {
  it('keeps KV keys to the allowed characters', async () => {
    expect(cursorKey('nass', 'CORN, GRAIN - YIELD, MEASURED IN BU / ACRE')).toBe(
      'cursor.nass.CORN__GRAIN_-_YIELD__MEASURED_IN_BU___ACRE',
    );
    const store = createMemorySyncStore();
    await store.putStatus({ source: 'eia', last_success_at: null, newest_data_date: null, last_run_at: 't' });
    expect(await store.getStatus('eia')).toMatchObject({ source: 'eia' });
  });
});

describe('sync error days', () => {
  const failure = { source: 'eia' as const, date: '2025-02-10', error: 'HTTP 500', at: now };

  it('counts each failed run of the day and keeps the last error, cut to 2,000 characters', () => {
    const first = raisedErrorDay(undefined, failure);
    expect(first).toEqual({
      source: 'eia',
      date: '2025-02-10',
      failed_runs: 1,
      last_error: 'HTTP 500',
      last_failed_at: '2026-11-24T00:00:00.000Z',
    });
    const second = raisedErrorDay(first, { ...failure, error: 'x'.repeat(5_000) });
    expect(second.failed_runs).toBe(2);
    expect(second.last_error).toHaveLength(2_000);
  });

  // A missing key fails the source before any request: runSync needs no server here.
  const failingRun = (store: ReturnType<typeof createMemorySyncStore>, onWarning?: (m: string) => void) =>
    runSync({
      sources: ['eia'],
      publisher: () => ({}) as Publisher,
      store,
      keys: {},
      // 22:30 in New York on Feb 10 is already Feb 11 in UTC: the day is New York's.
      clock: () => new Date('2025-02-11T03:30:00Z'),
      ...(onWarning !== undefined ? { onWarning } : {}),
    });

  it('a failed run raises the error day of its source under errors.<source>.<New York date>', async () => {
    const store = createMemorySyncStore();
    await failingRun(store);
    const [result] = await failingRun(store);
    expect(result!.ok).toBe(false);
    expect(JSON.parse(store.data.get('errors.eia.2025-02-10')!)).toEqual({
      source: 'eia',
      date: '2025-02-10',
      failed_runs: 2,
      last_error: result!.error,
      last_failed_at: '2025-02-11T03:30:00.000Z',
    });
    expect([...store.data.keys()].filter((k) => k.startsWith('errors.'))).toEqual(['errors.eia.2025-02-10']);
  });

  it('an error day that cannot be stored is a warning, not a failure of the sync', async () => {
    const store = createMemorySyncStore();
    store.raiseErrorDay = () => Promise.reject(new Error('TIMEOUT'));
    const warnings: string[] = [];
    const [result] = await failingRun(store, (m) => warnings.push(m));
    expect(result!.status.last_error).toMatch(/EIA_API_KEY is not set/);
    expect(await store.getStatus('eia')).toMatchObject({ last_error: result!.error });
    expect(warnings).toEqual(['eia: the failed run was not counted on its error day 2025-02-10: TIMEOUT']);
  });
});

describe('sync arguments', () => {
  it('reads sync with a source, all by default, and --since', () => {
    expect(parseIngestArgs(['sync'])).toEqual({
      command: 'sync',
      sources: ['cftc', 'eia', 'nass', 'ams', 'worldbank', 'wasde', 'ecb'],
      common: { ledger: true, quiet: false },
    });
    expect(parseIngestArgs(['sync', '--source', 'eia', '--since', '2024-01-01'])).toMatchObject({
      sources: ['eia'],
      since: '2024-01-01',
    });
    expect(() => parseIngestArgs(['sync', '--source', 'cftc-legacy'])).toThrow(/unknown sync source cftc-legacy/);
    expect(() => parseIngestArgs(['sync', '--file', 'x'])).toThrow(/sync takes no --file/);
  });
});
