/**
 * How each source asks to be cited, by the prefix of a provenance `source` (`worldbank:GOLD`,
 * `eia:RWTC`...). The World Bank's CC BY 4.0 requires the attribution with every use; the U.S.
 * government sources are public domain and ask for a citation (docs/sources.md "Licences").
 */
const ATTRIBUTIONS: Readonly<Record<string, string>> = {
  cftc: 'U.S. Commodity Futures Trading Commission: Commitments of Traders (public domain)',
  eia: 'Source: U.S. Energy Information Administration (public domain)',
  nass: 'USDA National Agricultural Statistics Service: Quick Stats (public domain)',
  ams: 'USDA Agricultural Marketing Service: Market News (public domain)',
  worldbank: 'The World Bank: Commodity Price Data (The Pink Sheet), CC BY 4.0',
  demo: 'Generated demonstration data: not from any official source',
};

/** The attribution of a provenance `source`, or undefined for an unknown or absent one. */
export function attributionOf(source: string | undefined): string | undefined {
  if (source === undefined) return undefined;
  const colon = source.indexOf(':');
  return ATTRIBUTIONS[colon === -1 ? source : source.slice(0, colon)];
}
