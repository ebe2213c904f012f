import { describe, expect, it } from 'vitest';
import { COMMODITIES } from './registry.ts';
import type { CommodityDefinition } from '../catalog/types.ts';
import { checkCatalogMappings, REGISTRY } from './registry.ts';

const gold = COMMODITIES.find((c) => c.entry.id === 'GOLD')!;
const withSources = (sources: Record<string, unknown>): CommodityDefinition => ({
  ...gold,
  sources: { ...gold.sources, ...sources },
});

describe("the catalog's source mappings", () => {
  it('each fit the mapping schema of the source they are keyed by', () => {
    expect(() => checkCatalogMappings(COMMODITIES)).not.toThrow();
    const keys = new Set(COMMODITIES.flatMap((c) => Object.keys(c.sources)));
    for (const key of keys)
      if (key !== 'price_note') expect(REGISTRY.find((s) => s.name === key)?.mapping, key).toBeDefined();
  });

  it('refuses a mapping keyed by no source, or one its schema refuses, naming the commodity', () => {
    expect(() => checkCatalogMappings([withSources({ lme: { codes: ['GC'] } })])).toThrow(
      /GOLD maps sources\.lme, which no registered source reads/,
    );
    expect(() => checkCatalogMappings([withSources({ cftc: { codes: 'GC' } })])).toThrow(/GOLD sources\.cftc/);
    expect(() =>
      checkCatalogMappings([withSources({ worldbank: { series: [{ code: 'GOLD', unit: 'USD/troy oz' }] } })]),
    ).toThrow(/GOLD sources\.worldbank does not fit/);
    expect(() => checkCatalogMappings([withSources({ demo: { ...(gold.sources.demo as object), drift: 1 } })])).toThrow(
      /GOLD sources\.demo/,
    );
  });
});
