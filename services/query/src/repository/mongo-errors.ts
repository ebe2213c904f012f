import { ServiceUnavailableError, type ApiError } from '@cds/http';
import { isDatabaseUnavailable } from '@cds/store';

/**
 * Maps MongoDB unavailability and time-outs to 503 service_unavailable; anything else is left
 * alone. What counts as unavailable is decided in one place, `isDatabaseUnavailable` (libs/store).
 */
export function classifyMongoError(error: unknown): ApiError | undefined {
  if (!isDatabaseUnavailable(error)) return undefined;
  return new ServiceUnavailableError('The database is unavailable or too slow to answer; retry shortly.', error);
}
