import { datasetOfCot, datasetOfSeries, datasetOfSupplyDemand } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { commodityUpserted, cotRecorded, JUNE_2026, seriesRecorded, supplyDemandRecorded } from '../testing/events.ts';
import { createReleaseFinder } from './event-releases.ts';

const F = '2026-12-06T17:00:00.000Z';
const spot = datasetOfSeries({ source: 'eia:RWTC', frequency: 'daily', series_type: 'price' })!.id;
const weekly = datasetOfSeries({ source: 'eia:WCESTUS1', frequency: 'weekly', series_type: 'stocks' })!.id;

describe('createReleaseFinder: what a data event adds to the ledger', () => {
  it('a series batch: its dataset by provenance and frequency, its first to last point date, its release', () => {
    const releasesOf = createReleaseFinder();
    const event = seriesRecorded(
      'CRUDE_OIL_WTI',
      [
        ['2026-03-03', 70],
        ['2026-02-27', 71],
        ['2026-03-02', 72],
      ],
      { source: 'eia:RWTC', publishedAt: '2026-03-04T10:30:00-05:00' },
    );
    expect(releasesOf(event, F)).toEqual([
      { dataset: spot, entry: { lo: '2026-02-27', hi: '2026-03-03', f: F, p: '2026-03-04T15:30:00.000Z' } },
    ]);
    const stocks = seriesRecorded('CRUDE_OIL_WTI', [['2026-02-27', 420_000]], {
      source: 'eia:WCESTUS1',
      type: 'stocks',
      frequency: 'weekly',
      publishedAt: '2026-03-04T15:30:00Z',
      publishedAtEstimated: true,
    });
    expect(releasesOf(stocks, F)).toEqual([
      { dataset: weekly, entry: { lo: '2026-02-27', hi: '2026-02-27', f: F, p: '2026-03-04T15:30:00.000Z', e: true } },
    ]);
  });

  it('without a stated release: the occurred_at, estimated', () => {
    const event = seriesRecorded('CRUDE_OIL_WTI', [['2026-03-03', 70]], {
      source: 'eia:RWTC',
      occurredAt: '2026-03-04T16:00:00Z',
    });
    expect(createReleaseFinder()(event, F)).toEqual([
      { dataset: spot, entry: { lo: '2026-03-03', hi: '2026-03-03', f: F, p: '2026-03-04T16:00:00.000Z', e: true } },
    ]);
  });

  it('data of no dataset (generated, an OHLCV import, no provenance, the catalog) adds nothing', () => {
    const releasesOf = createReleaseFinder();
    expect(releasesOf(seriesRecorded('CORN', [['2026-03-03', 4]], { source: 'demo' }), F)).toEqual([]);
    expect(releasesOf(seriesRecorded('CORN', [['2026-03-03', 4]], { source: 'ohlcv:corn.csv' }), F)).toEqual([]);
    expect(releasesOf(seriesRecorded('CORN', [['2026-03-03', 4]]), F)).toEqual([]);
    expect(releasesOf(commodityUpserted('CORN'), F)).toEqual([]);
  });

  it('a COT batch: each report its report date and its own release, in the dataset of its format and scope', () => {
    const event = cotRecorded(
      'CORN',
      [
        ['2026-02-24', 100],
        ['2026-03-03', 110],
      ],
      { scope: 'futures_and_options', publishedAt: '2026-03-06T20:30:00Z' },
    );
    const dataset = datasetOfCot('legacy_combined')!.id;
    expect(createReleaseFinder()(event, F)).toEqual([
      { dataset, entry: { lo: '2026-02-24', hi: '2026-02-24', f: F, p: '2026-03-06T20:30:00.000Z' } },
      { dataset, entry: { lo: '2026-03-03', hi: '2026-03-03', f: F, p: '2026-03-06T20:30:00.000Z' } },
    ]);
    const cit = cotRecorded('CORN', [['2026-03-03', 110]], { format: 'cit', publishedAt: '2026-03-06T20:30:00Z' });
    expect(createReleaseFinder()(cit, F).map((r) => r.dataset)).toEqual([datasetOfCot('cit')!.id]);
  });

  it("a balance sheet: the 1st of its edition's month, the edition's release", () => {
    const event = supplyDemandRecorded([['Production', 15_000]]);
    expect(createReleaseFinder()(event, F)).toEqual([
      {
        dataset: datasetOfSupplyDemand()!.id,
        entry: { lo: '2026-06-01', hi: '2026-06-01', f: F, p: JUNE_2026 },
      },
    ]);
  });
});
