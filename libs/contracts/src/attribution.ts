import { sourceFactsOf } from './sources.ts';

/**
 * How each source asks to be cited, by the prefix of a provenance `source` (`worldbank:GOLD`,
 * `eia:RWTC`...): its row's `attribution` in SOURCES. The World Bank's CC BY 4.0 requires the
 * attribution with every use; the U.S. government sources are public domain and ask for a citation
 * (docs/sources.md "Licences").
 */
export function attributionOf(source: string | undefined): string | undefined {
  return sourceFactsOf(source)?.attribution;
}
