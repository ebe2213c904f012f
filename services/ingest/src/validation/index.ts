export { compileSchema, type CompiledResult, type CompiledSchema } from './compiled-schema.ts';
export {
  fastCitCotRecord,
  fastCotReportsBatch,
  fastDisaggregatedCotRecord,
  fastLegacyCotRecord,
  fastSeriesPointRecord,
  fastSeriesPointsBatch,
} from './contracts.ts';
