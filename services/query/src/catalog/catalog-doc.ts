import { attributionOf, type CommoditySummary, type PriceBasis } from '@cds/contracts';
import type { CatalogDoc } from '@cds/read-models';

/** The summary fields of a catalog document, in the contract's order. */
export function toSummary(doc: CatalogDoc): CommoditySummary {
  return {
    id: doc.id,
    name: doc.name,
    ...(doc.symbol === undefined ? {} : { symbol: doc.symbol }),
    category: doc.category,
    ...(doc.exchange === undefined ? {} : { exchange: doc.exchange }),
    ...(doc.unit === undefined ? {} : { unit: doc.unit }),
  };
}

/**
 * What a series' numbers are and how to cite them: its price basis (price series) and the
 * attribution its source's licence asks for (the World Bank's CC BY 4.0, the U.S. agencies').
 */
export function seriesTermsOf(d: { price_basis?: PriceBasis | undefined; source?: string | undefined }): {
  price_basis?: PriceBasis;
  attribution?: string;
} {
  const attribution = attributionOf(d.source);
  return {
    ...(d.price_basis === undefined ? {} : { price_basis: d.price_basis }),
    ...(attribution === undefined ? {} : { attribution }),
  };
}

/** The optional provenance fields of a stored descriptor or report, as served. */
export function provenanceOf(d: { source?: string | undefined; last_updated?: string | undefined }): {
  source?: string;
  last_updated?: string;
} {
  return {
    ...(d.source === undefined ? {} : { source: d.source }),
    ...(d.last_updated === undefined ? {} : { last_updated: d.last_updated }),
  };
}

/**
 * What the freshness headers of an answer about these catalog entries come from: the newest
 * last_updated of their series (Last-Modified) and the sources of their series (max-age).
 */
export function catalogFreshness(docs: readonly Pick<CatalogDoc, 'series'>[]): {
  lastModified: string | undefined;
  sources: (string | undefined)[];
} {
  let lastModified: string | undefined;
  const sources: (string | undefined)[] = [];
  for (const doc of docs) {
    for (const d of Object.values(doc.series ?? {})) {
      if (d.last_updated !== undefined && (lastModified === undefined || d.last_updated > lastModified)) {
        lastModified = d.last_updated;
      }
      if (!sources.includes(d.source)) sources.push(d.source);
    }
  }
  return { lastModified, sources };
}
