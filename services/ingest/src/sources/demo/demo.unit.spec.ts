import { describe, expect, it } from 'vitest';
import { DisaggregatedCotRecord, LegacyCotRecord, SeriesPointRecord } from '@cds/contracts';
import { COMMODITIES } from '../registry.ts';
import type { SourceItem } from '../types.ts';
import { demoRange, generateDemo, generateDemoItems } from './generate.ts';

const TODAY = '2026-03-12'; // a Thursday

describe('demo generator', () => {
  const items: SourceItem[] = [...generateDemoItems({ today: TODAY, years: 1 })];

  it('is deterministic for the same seed and end date, and differs for another seed', () => {
    const again = [...generateDemoItems({ today: TODAY, years: 1, commodities: ['GOLD'] })];
    const gold = items.filter((i) => i.kind !== 'rejected' && i.commodity_id === 'GOLD');
    expect(again).toEqual(gold);
    const other = [...generateDemoItems({ today: TODAY, years: 1, commodities: ['GOLD'], seed: 'other' })];
    expect(other).not.toEqual(gold);
  });

  it('produces only records the contracts accept', () => {
    for (const item of items) {
      if (item.kind === 'rejected') throw new Error(item.reason);
      if (item.kind === 'series') expect(SeriesPointRecord.safeParse(item.point).success).toBe(true);
      else if (item.kind === 'supply_demand') throw new Error('the demo makes no balance sheets');
      else if (item.format === 'legacy') expect(LegacyCotRecord.safeParse(item.record).success).toBe(true);
      else expect(DisaggregatedCotRecord.safeParse(item.record).success).toBe(true);
    }
  });

  it('gives every commodity weekday daily prices ending today, volume, open interest and weekly COT', () => {
    for (const { entry } of COMMODITIES) {
      const mine = items.filter((i) => i.kind !== 'rejected' && i.commodity_id === entry.id);
      const prices = mine.flatMap((i) => (i.kind === 'series' && i.series_type === 'price' ? [i] : []));
      expect(prices.length).toBeGreaterThan(250);
      expect(prices.at(-1)!.point.date).toBe(TODAY);
      for (const { point: p } of prices) {
        const dow = new Date(`${p.date}T00:00:00Z`).getUTCDay();
        expect(dow).not.toBe(0);
        expect(dow).not.toBe(6);
        expect(p.low!).toBeLessThanOrEqual(Math.min(p.open!, p.close!));
        expect(p.high!).toBeGreaterThanOrEqual(Math.max(p.open!, p.close!));
        expect(p.value).toBe(p.close);
        expect(p.low!).toBeGreaterThan(0);
      }
      expect(mine.filter((i) => i.kind === 'series' && i.series_type === 'volume')).toHaveLength(prices.length);
      expect(mine.filter((i) => i.kind === 'series' && i.series_type === 'open_interest')).toHaveLength(prices.length);
      const cot = mine.filter((i) => i.kind === 'cot');
      // 2025-03-18 .. 2026-03-03 (the Tuesday of the last release before Thursday 2026-03-12), both formats
      expect(cot.length).toBe(2 * 51);
      for (const c of cot) {
        if (c.kind !== 'cot') continue;
        // Tuesdays, but Monday 2025-11-10: Veterans Day fell on the Tuesday
        const expected = c.record.report_date === '2025-11-10' ? 1 : 2;
        expect(new Date(`${c.record.report_date}T00:00:00Z`).getUTCDay()).toBe(expected);
      }
    }
  });

  it('makes COT groups add up to the open interest of the same day, in both formats', () => {
    const oi = new Map<string, number>();
    for (const i of items) {
      if (i.kind === 'series' && i.series_type === 'open_interest')
        oi.set(`${i.commodity_id}/${i.point.date}`, i.point.value);
    }
    let checked = 0;
    for (const i of items) {
      if (i.kind !== 'cot') continue;
      const r = i.record;
      expect(r.open_interest).toBe(oi.get(`${i.commodity_id}/${r.report_date}`));
      if (i.format === 'legacy') {
        const l = i.record;
        expect(l.commercial.long + l.non_commercial.long + l.non_commercial.spreading + l.non_reportable.long).toBe(
          l.open_interest,
        );
        expect(l.commercial.short + l.non_commercial.short + l.non_commercial.spreading + l.non_reportable.short).toBe(
          l.open_interest,
        );
      } else if (i.format === 'disaggregated') {
        const d = i.record;
        const longSide =
          d.producer_merchant.long +
          d.swap_dealer.long +
          d.swap_dealer.spreading +
          d.managed_money.long +
          d.managed_money.spreading +
          d.other_reportable.long +
          d.other_reportable.spreading;
        const shortSide =
          d.producer_merchant.short +
          d.swap_dealer.short +
          d.swap_dealer.spreading +
          d.managed_money.short +
          d.managed_money.spreading +
          d.other_reportable.short +
          d.other_reportable.spreading;
        // the remainder is the non-reportable position, which the disaggregated record does not carry
        expect(longSide).toBeLessThan(d.open_interest);
        expect(shortSide).toBeLessThan(d.open_interest);
        expect(d.open_interest - longSide).toBeGreaterThan(0);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('adds fundamentals at their natural frequencies', () => {
    const of = (id: string, type: string) =>
      items.flatMap((i) => (i.kind === 'series' && i.commodity_id === id && i.series_type === type ? [i] : []));
    const stocks = of('CRUDE_OIL_WTI', 'stocks');
    expect(stocks.length).toBeGreaterThanOrEqual(52);
    expect(
      stocks.every((s) => s.frequency === 'weekly' && new Date(`${s.point.date}T00:00:00Z`).getUTCDay() === 5),
    ).toBe(true);
    expect(of('CRUDE_OIL_WTI', 'refinery_inputs').length).toBeGreaterThanOrEqual(52);
    const ending = of('CORN', 'ending_stocks');
    expect(ending.length).toBe(12);
    expect(ending.every((s) => s.frequency === 'monthly')).toBe(true);
    expect(ending.map((s) => s.point.date)).toContain('2026-02-28');
    const production = of('CORN', 'production');
    expect(production.map((p) => [p.frequency, p.point.date])).toEqual([['monthly', '2025-12-31']]);
    expect(of('GOLD', 'stocks')).toEqual([]);
  });

  it("moves with the clock: the default end date is the clock's UTC date", async () => {
    const now = () => new Date('2025-07-04T23:30:00Z');
    expect(demoRange({ now })).toEqual({ start: '2022-07-04', end: '2025-07-04' });
    const last: SourceItem[] = [];
    for await (const i of generateDemo({ now, years: 1, commodities: ['COPPER'] })) last.push(i);
    const prices = last.filter((i) => i.kind === 'series' && i.series_type === 'price');
    expect(prices.at(-1)).toMatchObject({ point: { date: '2025-07-04' } });
  });

  it('validates with zod when asked and yields the same records', () => {
    const a = [...generateDemoItems({ today: TODAY, years: 1, commodities: ['CORN'], validate: true })];
    const b = [...generateDemoItems({ today: TODAY, years: 1, commodities: ['CORN'] })];
    expect(a).toEqual(b);
  });

  it('leaves out what real data replaces: --without cot, eia (an EIA spot price replaces the demo price), nass', () => {
    const all = [...generateDemoItems({ today: TODAY, years: 1, commodities: ['CRUDE_OIL_WTI', 'CORN'] })];
    const types = (items: SourceItem[], id: string) =>
      new Set(items.flatMap((i) => (i.kind === 'series' && i.commodity_id === id ? [i.series_type] : [])));
    const without = [
      ...generateDemoItems({
        today: TODAY,
        years: 1,
        commodities: ['CRUDE_OIL_WTI', 'CORN', 'PALLADIUM', 'GOLD'],
        without: ['cot', 'eia', 'nass', 'worldbank', 'ams'],
      }),
    ];
    expect(without.some((i) => i.kind === 'cot')).toBe(false);
    expect(all.some((i) => i.kind === 'cot')).toBe(true);
    expect(types(all, 'CRUDE_OIL_WTI').has('price')).toBe(true);
    // the CFTC's open interest replaces the demo's too
    expect([...types(without, 'CRUDE_OIL_WTI')].sort()).toEqual(
      [...types(all, 'CRUDE_OIL_WTI')]
        .filter((t) => !['price', 'stocks', 'refinery_inputs', 'production', 'open_interest'].includes(t))
        .sort(),
    );
    // CORN's NASS price received and fundamentals replace the demo's; GOLD's Pink Sheet price too
    expect(types(without, 'CORN').has('price')).toBe(false);
    expect(types(without, 'CORN').has('production')).toBe(false);
    expect(types(all, 'CORN').has('production')).toBe(true);
    expect(types(without, 'GOLD').has('price')).toBe(false);
    // PALLADIUM has no free price source: a demo price, marked as such, fills the gap on request
    const palladium = without.find(
      (i) => i.kind === 'series' && i.commodity_id === 'PALLADIUM' && i.series_type === 'price',
    );
    expect(palladium).toMatchObject({ source: 'demo', price_basis: 'demo' });
  });
});
