import { describe, expect, it } from 'vitest';
import { DataEvent, KeyEvent, deterministicEventId, subjectFor } from '../src/index.ts';
import { envelope } from './fixtures.ts';

const seriesEvent = () =>
  envelope('series.points.recorded', {
    commodity_id: 'CRUDE_OIL_WTI',
    series_type: 'price',
    frequency: 'daily',
    unit: 'USD/bbl',
    period: '2024',
    points: [
      { date: '2024-01-02', value: 70.38, open: 71.65, high: 73.1, low: 70.0, close: 70.38, volume: 340_000 },
      { date: '2024-01-03', value: 72.7 },
    ],
  });

const cotEvent = () =>
  envelope('cot.reports.recorded', {
    commodity_id: 'CRUDE_OIL_WTI',
    format: 'legacy',
    reports: [
      {
        report_date: '2024-01-02',
        contract_code: '067651',
        open_interest: 1000,
        commercial: { long: 400, short: 500 },
        non_commercial: { long: 300, short: 200, spreading: 100 },
        non_reportable: { long: 200, short: 200 },
      },
    ],
  });

const keyHash = 'a'.repeat(64);

describe('data events', () => {
  it('accepts each data event type', () => {
    expect(DataEvent.safeParse(seriesEvent()).success).toBe(true);
    expect(DataEvent.safeParse(cotEvent()).success).toBe(true);
    expect(
      DataEvent.safeParse(
        envelope('catalog.commodity.upserted', { id: 'GOLD', name: 'Gold', category: 'metals', unit: 'USD/troy oz' }),
      ).success,
    ).toBe(true);
  });
  it('rejects an unknown type, a wrong version and a bad timestamp', () => {
    expect(DataEvent.safeParse({ ...seriesEvent(), type: 'series.deleted' }).success).toBe(false);
    expect(DataEvent.safeParse({ ...seriesEvent(), version: 2 }).success).toBe(false);
    expect(DataEvent.safeParse({ ...seriesEvent(), occurred_at: 'yesterday' }).success).toBe(false);
  });
  it('series batches: dates inside the period, unique, OHLC consistent', () => {
    const outside = seriesEvent();
    outside.data.points.push({ date: '2023-12-29', value: 1 });
    expect(DataEvent.safeParse(outside).success).toBe(false);
    const dup = seriesEvent();
    dup.data.points.push({ date: '2024-01-03', value: 1 });
    expect(DataEvent.safeParse(dup).success).toBe(false);
    const ohlc = seriesEvent();
    ohlc.data.points[0] = { date: '2024-01-02', value: 75, open: 71, high: 73, low: 70, close: 75, volume: 1 };
    expect(DataEvent.safeParse(ohlc).success).toBe(false);
    const empty = seriesEvent();
    empty.data.points = [];
    expect(DataEvent.safeParse(empty).success).toBe(false);
    expect(DataEvent.safeParse({ ...seriesEvent(), data: { ...seriesEvent().data, period: '2024-13' } }).success).toBe(
      false,
    );
  });
  it('COT batches: groups of the right format only, no net from the source', () => {
    const withNet = cotEvent() as { data: { reports: Record<string, unknown>[] } };
    withNet.data.reports[0]!.commercial = { long: 400, short: 500, net: -100 };
    expect(DataEvent.safeParse(withNet).success).toBe(false);
    const wrongGroup = cotEvent() as { data: { reports: Record<string, unknown>[] } };
    wrongGroup.data.reports[0]!.managed_money = { long: 1, short: 1, spreading: 0 };
    expect(DataEvent.safeParse(wrongGroup).success).toBe(false);
  });
  it('subjects carry the commodity id and series type or format', () => {
    expect(subjectFor(DataEvent.parse(seriesEvent()))).toBe('cds.data.series.CRUDE_OIL_WTI.price');
    expect(subjectFor(DataEvent.parse(cotEvent()))).toBe('cds.data.cot.CRUDE_OIL_WTI.legacy');
  });
});

describe('key events', () => {
  it('accepts each key event type', () => {
    const ok = [
      envelope('account.created', { account_id: 'acc_0123456789ab', name: 'Acme', plan: 'free' }),
      envelope('account.plan_changed', { account_id: 'acc_0123456789ab', plan: 'business', previous_plan: 'free' }),
      envelope('key.created', {
        key_id: 'key_0123456789ab',
        account_id: 'acc_0123456789ab',
        key_hash: keyHash,
        plan: 'free',
      }),
      envelope('key.revoked', { key_id: 'key_0123456789ab', account_id: 'acc_0123456789ab', key_hash: keyHash }),
    ];
    for (const e of ok) expect(KeyEvent.safeParse(e).success, e.type).toBe(true);
    expect(subjectFor(KeyEvent.parse(ok[2]))).toBe('cds.keys.key.key_0123456789ab');
    expect(subjectFor(KeyEvent.parse(ok[0]))).toBe('cds.keys.account.acc_0123456789ab');
  });
  it('account.closed carries the whole account, on the account subject', () => {
    const closed = envelope('account.closed', {
      account_id: 'acc_0123456789ab',
      name: 'Acme',
      plan: 'business',
      created_at: '2026-01-02T03:04:05.000Z',
      closed_at: '2026-11-27T12:00:00.000Z',
    });
    const parsed = KeyEvent.parse(closed);
    expect(parsed.type).toBe('account.closed');
    expect(subjectFor(parsed)).toBe('cds.keys.account.acc_0123456789ab');
    // Replay rebuilds the account from this one event: every field is required, nothing more is taken.
    for (const field of ['name', 'plan', 'created_at', 'closed_at'] as const) {
      const { [field]: _dropped, ...rest } = closed.data;
      expect(KeyEvent.safeParse({ ...closed, data: rest }).success, field).toBe(false);
    }
    expect(KeyEvent.safeParse({ ...closed, data: { ...closed.data, closed_at: 'yesterday' } }).success).toBe(false);
    expect(KeyEvent.safeParse({ ...closed, data: { ...closed.data, keys: [] } }).success).toBe(false);
  });
  it('never carries a plain key, only a SHA-256', () => {
    const plain = envelope('key.created', {
      key_id: 'key_0123456789ab',
      account_id: 'acc_0123456789ab',
      key_hash: 'b'.repeat(40),
      plan: 'free',
    });
    expect(KeyEvent.safeParse(plain).success).toBe(false);
    const extra = envelope('key.created', {
      key_id: 'key_0123456789ab',
      account_id: 'acc_0123456789ab',
      key_hash: keyHash,
      plan: 'free',
      key: 'b'.repeat(40),
    });
    expect(KeyEvent.safeParse(extra).success).toBe(false);
  });
  it('rejects an unknown plan', () => {
    expect(
      KeyEvent.safeParse(envelope('account.created', { account_id: 'acc_0123456789ab', name: 'A', plan: 'gold' }))
        .success,
    ).toBe(false);
  });
});

describe('deterministicEventId', () => {
  it('is stable for the same parts and differs otherwise', () => {
    const a = deterministicEventId('series.points.recorded', 'GOLD', 'price', '2024', 'digest1');
    expect(a).toBe(deterministicEventId('series.points.recorded', 'GOLD', 'price', '2024', 'digest1'));
    expect(a).not.toBe(deterministicEventId('series.points.recorded', 'GOLD', 'price', '2024', 'digest2'));
    expect(deterministicEventId('t', 'ab', 'c')).not.toBe(deterministicEventId('t', 'a', 'bc'));
    expect(a).toMatch(/^series\.points\.recorded:[0-9a-f]{40}$/);
  });
});
