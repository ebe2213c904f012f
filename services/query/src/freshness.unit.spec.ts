// The freshness headers of the query's answers against an injected clock: Cache-Control's max-age
// never outlives the next scheduled release of the answer's data (libs/schedule), Last-Modified
// is the data's newest ingest, and the CSV form carries the same freshness as the JSON one.
import { createResponseCache } from '@cds/response-cache';
import {
  MAX_AGE_CAP_SECONDS,
  nextRelease,
  SYNC_WINDOW_MAX_AGE_SECONDS,
  UNSCHEDULED_MAX_AGE_SECONDS,
} from '@cds/schedule';
import { describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import { catalogDoc, cotDoc, createFakeRepository, descriptorOf, seriesBuckets } from './testing/index.ts';

const COT_DATES = ['2025-05-27', '2025-06-03', '2025-06-10'];
const PRICES = [
  { d: '2025-06-09', v: 10 },
  { d: '2025-06-10', v: 11 },
];

function appAt(now: Date) {
  const repository = createFakeRepository({
    catalog: [
      catalogDoc('GOLD', {
        series: [
          {
            ...descriptorOf(
              'cot_legacy',
              COT_DATES.map((d) => ({ d })),
              'weekly',
            ),
            source: 'cftc:legacy:088691',
            last_updated: '2025-06-13T20:35:12.640Z',
          },
          { ...descriptorOf('price', PRICES), source: 'demo', last_updated: '2025-06-11T08:00:00.000Z' },
        ],
      }),
    ],
    series: seriesBuckets('GOLD', 'price', PRICES),
    cot: COT_DATES.map((d, i) => cotDoc('GOLD', 'legacy', d, i + 1)),
  });
  const cache = createResponseCache({ maxEntries: 100, maxBytes: 1_000_000, ttlMs: 60_000 });
  return buildApp({
    repository,
    cache,
    publicBaseUrl: 'https://api.example.com',
    clock: () => now,
    checkResponses: true,
  });
}

const maxAge = (headers: Record<string, unknown>) => {
  const m = /^private, max-age=(\d+)$/.exec(String(headers['cache-control']));
  if (m === null) throw new Error(`no max-age in ${String(headers['cache-control'])}`);
  return Number(m[1]);
};

const COT = '/api/v1/commodities/GOLD/cot?format=legacy';

describe('Cache-Control and Last-Modified from the injected clock', () => {
  it('max-age runs until the next CFTC release, never past it, and is capped at an hour', async () => {
    const release = nextRelease('cftc', new Date('2025-06-16T00:00:00Z')).at;
    const tenMinutesBefore = new Date(release.getTime() - 600_000);
    const app = appAt(tenMinutesBefore);
    const json = await app.inject(COT);
    expect(json.statusCode).toBe(200);
    expect(maxAge(json.headers)).toBe(600);
    const csv = await app.inject({ url: COT, headers: { accept: 'text/csv' } });
    expect(maxAge(csv.headers)).toBe(600);
    expect(csv.headers['last-modified']).toBe('Fri, 13 Jun 2025 20:35:12 GMT');
    expect(json.headers['last-modified']).toBe('Fri, 13 Jun 2025 20:35:12 GMT');
    // A day before the release: the hour's cap.
    const dayBefore = await appAt(new Date(release.getTime() - 86_400_000)).inject(COT);
    expect(maxAge(dayBefore.headers)).toBe(MAX_AGE_CAP_SECONDS);
    // Just after it, while its sync may still be landing: the short sync-window age.
    const after = await appAt(new Date(release.getTime() + 60_000)).inject(COT);
    expect(maxAge(after.headers)).toBe(SYNC_WINDOW_MAX_AGE_SECONDS);
  });

  it('an answer mixing sources gets the smallest max-age; unscheduled data 60 s; errors are no-store', async () => {
    const release = nextRelease('cftc', new Date('2025-06-16T00:00:00Z')).at;
    const app = appAt(new Date(release.getTime() - 30_000));
    // The detail holds the COT (30 s to its release) and demo prices (unscheduled, 60 s).
    const detail = await app.inject('/api/v1/commodities/GOLD');
    expect(maxAge(detail.headers)).toBe(30);
    expect(detail.headers['last-modified']).toBe('Fri, 13 Jun 2025 20:35:12 GMT');
    const series = await app.inject('/api/v1/commodities/GOLD/series?type=price&start_date=2025-06-01');
    expect(maxAge(series.headers)).toBe(UNSCHEDULED_MAX_AGE_SECONDS);
    expect(series.headers['last-modified']).toBe('Wed, 11 Jun 2025 08:00:00 GMT');
    const missing = await app.inject('/api/v1/commodities/NOPE');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
    expect(missing.headers.etag).toBeUndefined();
  });
});
