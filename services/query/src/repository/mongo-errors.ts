import { ServiceUnavailableError, type ApiError } from '@cds/http';
import {
  MongoClientClosedError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';

/**
 * Server error codes that mean "not available right now" rather than a bad query: time limit
 * exceeded (50 MaxTimeMSExpired, 262 ExceededTimeLimit), shutdown and failover (91, 189, 10107,
 * 11600, 11602, 13435, 13436), network trouble (6, 7, 89, 9001).
 */
const UNAVAILABLE_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

/** Maps MongoDB unavailability and time-outs to 503 service_unavailable; anything else is left alone. */
export function classifyMongoError(error: unknown): ApiError | undefined {
  const unavailable =
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNetworkError || // includes pool-cleared and network time-outs
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoOperationTimeoutError ||
    (error instanceof MongoServerError &&
      (UNAVAILABLE_CODES.has(Number(error.code)) || error.codeName === 'MaxTimeMSExpired'));
  if (!unavailable) return undefined;
  return new ServiceUnavailableError('The database is unavailable or too slow to answer; retry shortly.', error);
}
