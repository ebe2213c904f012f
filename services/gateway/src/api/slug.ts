import { COMMODITY_ID_PATTERN, MAX_COMMODITY_ID_LENGTH, PATH_PARAM_RULES } from '@cds/contracts';
import { InvalidParameterError } from '@cds/http';

/** Whether a path's slug can name a commodity at all; anything else is never forwarded. */
export function isCommodityId(slug: string): boolean {
  return slug.length <= MAX_COMMODITY_ID_LENGTH && COMMODITY_ID_PATTERN.test(slug);
}

/** The 400 of a slug that is no commodity id, worded as the query service words it. */
export function invalidSlug(): InvalidParameterError {
  return new InvalidParameterError('slug', `invalid 'slug': ${PATH_PARAM_RULES.slug}`);
}
