import { COMMODITY_ID_PATTERN, PATH_PARAM_RULES } from '@cds/contracts';
import { InvalidParameterError } from '@cds/http';

/**
 * Whether a path's slug can name a commodity at all (its shape); anything else is a 400 and never
 * forwarded. No length bound here beyond the URL's (414 past `maxUrlLength`): a well-formed id of
 * any length is the query service's to answer, 404 when the catalog does not list it (it answers a
 * longer id than any catalog id 404 without a database read).
 */
export function isCommodityId(slug: string): boolean {
  return COMMODITY_ID_PATTERN.test(slug);
}

/** The 400 of a slug that is no commodity id, worded as the query service words it. */
export function invalidSlug(): InvalidParameterError {
  return new InvalidParameterError('slug', `invalid 'slug': ${PATH_PARAM_RULES.slug}`);
}
