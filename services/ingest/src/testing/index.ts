export { catalogCftcCodes, cftcLegacyRow, CFTC_LEGACY_HEADER, writeSyntheticCftcLegacyFile } from './synthetic-cftc.ts';
