export { catalogCftcCodes, cftcLegacyRow, CFTC_LEGACY_HEADER, writeSyntheticCftcLegacyFile } from './synthetic-cftc.ts';
// The local stand-in for the CFTC, EIA and NASS APIs (recorded answers), for the sync e2e.
export { SourceServer, type Fault } from '../../test/helpers/source-server.ts';
