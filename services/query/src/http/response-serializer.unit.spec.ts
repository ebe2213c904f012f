import { CotResponse, ROUTES_BY_NAME, SeriesResponse } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { responseSerializer } from './response-serializer.ts';

// Members in the order a handler builds them, which is not the schema's (meta.request_id last).
const series = {
  data: [
    {
      date: '2025-01-02',
      value: 1.5,
      published_at: '2025-01-03T21:00:00.000Z',
      first_seen_at: '2025-01-03T21:01:00.000Z',
    },
  ],
  meta: {
    commodity_id: 'GOLD',
    type: 'price',
    frequency: 'daily',
    unit: 'USD/ozt',
    transform: 'none',
    count: 1,
    source: 'demo',
    request_id: '',
  },
};

describe('responseSerializer', () => {
  it('writes the bytes JSON.stringify writes, checked or not', () => {
    for (const check of [false, true]) {
      expect(responseSerializer(SeriesResponse, check)(series)).toBe(JSON.stringify(series));
    }
  });

  it('refuses, when checking, a body outside the schema, naming the member; unchecked it writes it', () => {
    const bad = { ...series, data: [{ ...series.data[0], value: 'high' }] };
    expect(() => responseSerializer(SeriesResponse, true)(bad)).toThrow(/does not fit its contract schema[\s\S]*value/);
    expect(responseSerializer(SeriesResponse, false)(bad)).toBe(JSON.stringify(bad));
  });

  it('checks a kept body (empty request_id, added at send time) and a sent one alike', () => {
    const page = { data: [], meta: { page: 1, per_page: 25, total: 0, total_pages: 0, request_id: '' } };
    expect(responseSerializer(CotResponse, true)(page)).toBe(JSON.stringify(page));
    const sent = { ...page, meta: { ...page.meta, request_id: 'req_1' } };
    expect(responseSerializer(CotResponse, true)(sent)).toBe(JSON.stringify(sent));
    // The contract's own refinements hold too (total_pages = ceil(total / per_page)).
    const wrong = { ...page, meta: { ...page.meta, total: 3 } };
    expect(() => responseSerializer(CotResponse, true)(wrong)).toThrow(/total_pages/);
  });

  it('is what the route table declares for each JSON route', () => {
    expect(ROUTES_BY_NAME.series.body.schema).toBe(SeriesResponse);
  });
});
