import { describe, expect, it } from 'vitest';
import {
  CommodityDetail,
  CommodityId,
  CommoditySummary,
  AVAILABLE_SERIES_TYPES,
  COT_DATASET_NAMES,
  COT_DATASETS,
  cotDataset,
  cotDatasetOfType,
  CotReport,
  cotSeriesType,
  defaultCotScope,
  ErrorBody,
  IsoDate,
  PaginationMeta,
  SeriesDescriptor,
  SeriesMeta,
  TimeSeriesPoint,
  errorBody,
} from '../src/index.ts';
import { citReport, detail, disaggregatedReport, legacyReport } from './fixtures.ts';

describe('CommodityId: UPPER_SNAKE_CASE', () => {
  it.each(['GOLD', 'CRUDE_OIL_WTI', 'WHEAT_SRW', 'RBOB_GASOLINE', 'ULSD_HO2', 'A'])('accepts %s', (id) => {
    expect(CommodityId.safeParse(id).success).toBe(true);
  });
  it.each([
    'gold',
    'Crude_Oil',
    '_GOLD',
    'GOLD_',
    'GOLD__SILVER',
    '1GOLD',
    'GOLD-SILVER',
    'GOLD SILVER',
    '',
    'A'.repeat(65),
  ])('rejects %j', (id) => {
    expect(CommodityId.safeParse(id).success).toBe(false);
  });
});

describe('IsoDate: strict YYYY-MM-DD real calendar dates', () => {
  it.each(['2024-02-29', '2000-02-29', '2023-12-31', '1990-01-01'])('accepts %s', (d) => {
    expect(IsoDate.safeParse(d).success).toBe(true);
  });
  it.each([
    '2024-02-30',
    '2023-02-29',
    '1900-02-29',
    '2024-13-01',
    '2024-00-10',
    '2024-04-31',
    '2024-1-05',
    '20240105',
    '2024-01-05T00:00:00Z',
    ' 2024-01-05',
    '',
  ])('rejects %j', (d) => {
    expect(IsoDate.safeParse(d).success).toBe(false);
  });
});

describe('CommoditySummary and CommodityDetail', () => {
  it('accepts a full detail and a minimal summary', () => {
    expect(CommodityDetail.parse(detail())).toEqual(detail());
    expect(CommoditySummary.safeParse({ id: 'GOLD', name: 'Gold', category: 'metals' }).success).toBe(true);
  });
  it('requires id, name and category', () => {
    for (const field of ['id', 'name', 'category'] as const) {
      const d: Record<string, unknown> = detail();
      delete d[field];
      expect(CommodityDetail.safeParse(d).success, field).toBe(false);
    }
  });
  it('rejects an unknown category, a malformed unit and a non-positive tick size', () => {
    expect(CommodityDetail.safeParse({ ...detail(), category: 'crypto' }).success).toBe(false);
    expect(CommodityDetail.safeParse({ ...detail(), unit: 'dollars' }).success).toBe(false);
    expect(CommodityDetail.safeParse({ ...detail(), tick_size: 0 }).success).toBe(false);
  });
  it('series descriptors need a known type, a frequency and an ordered date range', () => {
    const ok = { type: 'production', frequency: 'monthly', first_date: '2020-01-31', last_date: '2024-02-29' };
    expect(SeriesDescriptor.safeParse(ok).success).toBe(true);
    expect(SeriesDescriptor.safeParse({ ...ok, type: 'cot_disaggregated' }).success).toBe(true);
    expect(SeriesDescriptor.safeParse({ ...ok, type: 'weather' }).success).toBe(false);
    expect(SeriesDescriptor.safeParse({ ...ok, frequency: 'hourly' }).success).toBe(false);
    expect(SeriesDescriptor.safeParse({ ...ok, first_date: '2024-03-01' }).success).toBe(false);
    const { last_date: _omit, ...missing } = ok;
    expect(SeriesDescriptor.safeParse(missing).success).toBe(false);
  });
});

describe('TimeSeriesPoint and SeriesMeta', () => {
  it('accepts a price point and a transformed point', () => {
    expect(
      TimeSeriesPoint.safeParse({
        date: '2024-01-02',
        value: 70.38,
        open: 71.7,
        high: 72.3,
        low: 69.9,
        close: 70.38,
        volume: 10,
      }).success,
    ).toBe(true);
    expect(TimeSeriesPoint.safeParse({ date: '2024-01-02', value: -1.25 }).success).toBe(true);
  });
  it('rejects a missing value, a bad date and a fractional or negative volume', () => {
    expect(TimeSeriesPoint.safeParse({ date: '2024-01-02' }).success).toBe(false);
    expect(TimeSeriesPoint.safeParse({ date: '2024-02-30', value: 1 }).success).toBe(false);
    expect(TimeSeriesPoint.safeParse({ date: '2024-01-02', value: 1, volume: 1.5 }).success).toBe(false);
    expect(TimeSeriesPoint.safeParse({ date: '2024-01-02', value: 1, volume: -1 }).success).toBe(false);
  });
  it('series meta requires its six fields', () => {
    const meta = {
      commodity_id: 'GOLD',
      type: 'price',
      frequency: 'daily',
      transform: 'none',
      count: 3,
      request_id: 'r1',
    };
    expect(SeriesMeta.safeParse(meta).success).toBe(true);
    expect(SeriesMeta.safeParse({ ...meta, unit: 'percent' }).success).toBe(true);
    for (const field of Object.keys(meta)) {
      const m: Record<string, unknown> = { ...meta };
      delete m[field];
      expect(SeriesMeta.safeParse(m).success, field).toBe(false);
    }
    expect(SeriesMeta.safeParse({ ...meta, transform: 'log' }).success).toBe(false);
    expect(SeriesMeta.safeParse({ ...meta, type: 'cot_legacy' }).success).toBe(false);
  });
});

describe('CotReport', () => {
  it('accepts a legacy and a disaggregated report', () => {
    expect(CotReport.parse(legacyReport())).toEqual(legacyReport());
    expect(CotReport.parse(disaggregatedReport())).toEqual(disaggregatedReport());
  });
  it('requires net = long - short in every group', () => {
    const l = legacyReport();
    l.non_reportable.net = 0;
    expect(CotReport.safeParse(l).success).toBe(false);
    const d = disaggregatedReport();
    d.managed_money.net = 50_000;
    expect(CotReport.safeParse(d).success).toBe(false);
  });
  it('a legacy report carries only the legacy groups', () => {
    expect(CotReport.safeParse({ ...legacyReport(), managed_money: disaggregatedReport().managed_money }).success).toBe(
      false,
    );
    const { non_reportable: _n, ...missing } = legacyReport();
    expect(CotReport.safeParse(missing).success).toBe(false);
  });
  it('a disaggregated report carries only the disaggregated groups', () => {
    expect(CotReport.safeParse({ ...disaggregatedReport(), commercial: legacyReport().commercial }).success).toBe(
      false,
    );
    const { swap_dealer: _s, ...missing } = disaggregatedReport();
    expect(CotReport.safeParse(missing).success).toBe(false);
  });
  it('rejects an unknown format, negative positions and fractional open interest', () => {
    expect(CotReport.safeParse({ ...legacyReport(), format: 'financial' }).success).toBe(false);
    const l = legacyReport();
    l.commercial = { long: -1, short: 0, net: -1 };
    expect(CotReport.safeParse(l).success).toBe(false);
    expect(CotReport.safeParse({ ...legacyReport(), open_interest: 1.5 }).success).toBe(false);
  });
  it('spreading is required in groups with spreading', () => {
    const l = legacyReport() as Record<string, unknown>;
    l.non_commercial = { long: 1, short: 1, net: 0 };
    expect(CotReport.safeParse(l).success).toBe(false);
  });
  it('accepts a cit report: commercial, non_commercial (with spreading), index_traders, non_reportable', () => {
    expect(CotReport.parse(citReport())).toEqual(citReport());
    const { index_traders: _i, ...missing } = citReport();
    expect(CotReport.safeParse(missing).success).toBe(false);
    expect(CotReport.safeParse({ ...citReport(), managed_money: disaggregatedReport().managed_money }).success).toBe(
      false,
    );
    const c = citReport();
    c.index_traders.net = 0;
    expect(CotReport.safeParse(c).success).toBe(false);
    // A legacy report does not carry index_traders.
    expect(CotReport.safeParse({ ...legacyReport(), index_traders: citReport().index_traders }).success).toBe(false);
  });
  it('carries its scope, one of the two', () => {
    for (const scope of ['futures_only', 'futures_and_options']) {
      expect(CotReport.safeParse({ ...legacyReport(), scope }).success, scope).toBe(true);
      expect(CotReport.safeParse({ ...disaggregatedReport(), scope }).success, scope).toBe(true);
    }
    expect(CotReport.safeParse({ ...legacyReport(), scope: 'options' }).success).toBe(false);
  });
  it('failed_checks: the known checks, at least one, each once at most as many as there are', () => {
    const ok = { ...legacyReport(), failed_checks: ['old_plus_other_equals_all', 'legacy_oi_equals_disaggregated_oi'] };
    expect(CotReport.parse(ok)).toEqual(ok);
    expect(CotReport.safeParse({ ...citReport(), failed_checks: ['combined_oi_at_least_futures_only'] }).success).toBe(
      true,
    );
    expect(CotReport.safeParse({ ...legacyReport(), failed_checks: [] }).success).toBe(false);
    expect(CotReport.safeParse({ ...legacyReport(), failed_checks: ['oi_is_positive'] }).success).toBe(false);
    expect(
      CotReport.safeParse({
        ...legacyReport(),
        failed_checks: [
          'old_plus_other_equals_all',
          'old_plus_other_equals_all',
          'old_plus_other_equals_all',
          'old_plus_other_equals_all',
        ],
      }).success,
    ).toBe(false);
  });
});

describe('COT datasets', () => {
  it('a futures-only dataset keeps its format name; combined ones and cit are named apart', () => {
    expect(cotDataset('legacy')).toBe('legacy');
    expect(cotDataset('legacy', 'futures_only')).toBe('legacy');
    expect(cotDataset('disaggregated', 'futures_and_options')).toBe('disaggregated_combined');
    expect(cotDataset('legacy', 'futures_and_options')).toBe('legacy_combined');
    expect(cotDataset('cit')).toBe('cit');
    expect(cotDataset('cit', 'futures_and_options')).toBe('cit');
    expect(cotDataset('cit', 'futures_only')).toBeUndefined();
    expect(defaultCotScope('cit')).toBe('futures_and_options');
    expect(defaultCotScope('legacy')).toBe('futures_only');
  });
  it('each dataset is an available_series type cot_<dataset>, and back', () => {
    for (const d of COT_DATASET_NAMES) {
      expect(AVAILABLE_SERIES_TYPES).toContain(cotSeriesType(d));
      expect(cotDatasetOfType(cotSeriesType(d))).toBe(d);
      expect(cotDataset(COT_DATASETS[d].format, COT_DATASETS[d].scope)).toBe(d);
    }
    expect(cotDatasetOfType('price')).toBeUndefined();
    expect(cotDatasetOfType('cot_financial')).toBeUndefined();
    expect(
      SeriesDescriptor.safeParse({
        type: 'cot_cit',
        frequency: 'weekly',
        first_date: '2006-01-03',
        last_date: '2025-06-10',
      }).success,
    ).toBe(true);
  });
});

describe('PaginationMeta', () => {
  it('total_pages is ceil(total / per_page), 0 when total is 0', () => {
    expect(
      PaginationMeta.safeParse({ page: 1, per_page: 25, total: 51, total_pages: 3, request_id: 'r' }).success,
    ).toBe(true);
    expect(PaginationMeta.safeParse({ page: 1, per_page: 25, total: 0, total_pages: 0, request_id: 'r' }).success).toBe(
      true,
    );
    expect(
      PaginationMeta.safeParse({ page: 9, per_page: 25, total: 50, total_pages: 2, request_id: 'r' }).success,
    ).toBe(true);
    expect(
      PaginationMeta.safeParse({ page: 1, per_page: 25, total: 51, total_pages: 2, request_id: 'r' }).success,
    ).toBe(false);
  });
  it('per_page is 1..100 and page at least 1', () => {
    expect(
      PaginationMeta.safeParse({ page: 1, per_page: 101, total: 0, total_pages: 0, request_id: 'r' }).success,
    ).toBe(false);
    expect(PaginationMeta.safeParse({ page: 0, per_page: 10, total: 0, total_pages: 0, request_id: 'r' }).success).toBe(
      false,
    );
  });
});

describe('ErrorBody', () => {
  it('builds and accepts the contract shape, param only when given', () => {
    const body = errorBody('invalid_parameter', 'bad date', {
      requestId: 'req-1',
      publicBaseUrl: 'https://api.example.com/',
      param: 'start_date',
    });
    expect(body).toEqual({
      error: {
        code: 'invalid_parameter',
        message: 'bad date',
        doc_url: 'https://api.example.com/docs/errors#invalid_parameter',
        param: 'start_date',
        request_id: 'req-1',
      },
    });
    expect(ErrorBody.safeParse(body).success).toBe(true);
    const noParam = errorBody('rate_limited', 'slow down', {
      requestId: 'req-2',
      publicBaseUrl: 'http://localhost:8080',
    });
    expect('param' in noParam.error).toBe(false);
    expect(ErrorBody.safeParse(noParam).success).toBe(true);
  });
  it('rejects a code outside the decided list and a missing doc_url', () => {
    expect(
      ErrorBody.safeParse({ error: { code: 'invalid_api_key', message: 'x', doc_url: 'http://a/b', request_id: 'r' } })
        .success,
    ).toBe(false);
    expect(ErrorBody.safeParse({ error: { code: 'unauthorized', message: 'x', request_id: 'r' } }).success).toBe(false);
  });
});
