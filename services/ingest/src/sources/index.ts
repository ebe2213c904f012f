export * from './types.ts';
export { readLines, type TextInput } from './common/text.ts';
export { parseCsvRecord, readCsvRecords, normalizeHeader } from './common/csv.ts';
export { createParseStats, type ParseStats } from './common/stats.ts';
export type { ParseOptions } from './common/records.ts';
export {
  createHttpClient,
  redactUrl,
  SourceFetchError,
  type HttpClient,
  type HttpClientOptions,
} from './common/http.ts';
export { generateDemo, generateDemoItems, demoRange, type DemoOptions } from './demo/generate.ts';
export {
  REGISTRY,
  SYNCED,
  DEMO_PARTS,
  checkCatalogMappings,
  priceSourcesOf,
  COMMODITIES,
  CATALOG,
  getCommodity,
} from './registry.ts';
