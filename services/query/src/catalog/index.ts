// Catalog helpers shared by the route folders (list, detail, series, cot), which never import each other.
export { catalogFreshness, provenanceOf, seriesTermsOf, toSummary } from './catalog-doc.ts';
export { requireCommodity } from './require-commodity.ts';
