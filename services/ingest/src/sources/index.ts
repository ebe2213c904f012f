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
export {
  parseCftcCotCsv,
  parseCftcLegacyCsv,
  parseCftcDisaggregatedCsv,
  type CotCsvOptions,
} from './cftc/parse-annual.ts';
export { parseCftcSocrataJson, type CotSocrataOptions } from './cftc/parse-socrata.ts';
export { fetchCftcCot, cftcQueryUrl, CFTC_DATASETS, type CftcFetchOptions } from './cftc/fetch.ts';
export { parseEiaCsv, type EiaCsvOptions } from './eia/parse-csv.ts';
export { parseEiaApiJson, type EiaApiOptions } from './eia/parse-api.ts';
export { fetchEiaSeries, eiaQueryUrl, type EiaFetchOptions } from './eia/fetch.ts';
export { parseNassCsv, parseNassJson, type NassOptions } from './nass/parse.ts';
export { nassPeriodDate, type NassFilter } from './nass/map-row.ts';
export { fetchNassQuickStats, nassQueryUrl, type NassFetchOptions } from './nass/fetch.ts';
export { parseOhlcvCsv, type OhlcvOptions } from './ohlcv/parse.ts';
export {
  parseWorldBankXlsx,
  readWorldBankWorkbook,
  readPinkSheetVintage,
  pinkSheetPeriodDate,
  WorldBankFileError,
  PINK_SHEET_LIMITS,
  type WorldBankOptions,
  type WorldBankFileInfo,
  type WorldBankWorkbook,
  type XlsxInput,
} from './worldbank/parse.ts';
export { parseAmsJson, amsSectionRows, AmsSchemaError, type AmsOptions } from './ams/parse.ts';
export { AMS_REPORTS, amsReport, type AmsReportSpec } from './ams/reports.ts';
export { fetchAmsReports, amsQueryUrls, AMS_MAX_WINDOW_DAYS, type AmsFetchOptions } from './ams/fetch.ts';
export { generateDemo, generateDemoItems, demoRange, type DemoOptions } from './demo/generate.ts';
export { REGISTRY, SYNCED, DEMO_PARTS, checkCatalogMappings, priceSourcesOf } from './registry.ts';
