import {
  checkOhlc,
  checkSeriesBatch,
  checkUniqueReportDates,
  CitCotRecord,
  CotReportsBatch,
  DisaggregatedCotRecord,
  LegacyCotRecord,
  SeriesPointRecord,
  SeriesPointsBatch,
} from '@cds/contracts';
import { compileSchema } from './compiled-schema.ts';

// The contracts' record and batch schemas compiled for the per-record hot path. Each pairs the
// schema with exactly the refinements its zod definition attaches (written once, in
// libs/contracts/src/events.ts); compiled-schema.property.unit.spec.ts proves both accept the same values.

export const fastSeriesPointRecord = compileSchema(SeriesPointRecord, checkOhlc);
export const fastLegacyCotRecord = compileSchema(LegacyCotRecord);
export const fastDisaggregatedCotRecord = compileSchema(DisaggregatedCotRecord);
export const fastCitCotRecord = compileSchema(CitCotRecord);
export const fastSeriesPointsBatch = compileSchema(SeriesPointsBatch, (batch, sink) => {
  for (const p of batch.points) checkOhlc(p, sink);
  checkSeriesBatch(batch, sink);
});
export const fastCotReportsBatch = compileSchema(CotReportsBatch, checkUniqueReportDates);
