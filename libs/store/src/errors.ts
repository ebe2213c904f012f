import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type WriteError,
} from 'mongodb';

/** Server codes meaning "this node cannot serve right now", not "your request is wrong". */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired: the query hit its time limit
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * Node socket errors meaning the connection to the server broke. The driver usually wraps them in
 * MongoNetworkError, but not always: a command written to a socket the server had just closed has
 * surfaced as a plain `Error` with code EPIPE ("This socket has been ended by the other party").
 */
const SOCKET_ERROR_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ENOTCONN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Duplicate key: a unique index refused the write. */
export const DUPLICATE_KEY = 11000;

/** The server codes of the individual write errors of a failed bulk write. */
export function writeErrorCodes(err: MongoBulkWriteError): number[] {
  const raw = err.writeErrors as WriteError | WriteError[];
  return (Array.isArray(raw) ? raw : [raw]).map((e) => e.code);
}

/**
 * Thrown (via `mapStoreError`) when MongoDB cannot answer: no server selectable, the network
 * failed, the client is closed, or a query hit its `maxTimeMS`. Services answer 503 with the
 * error code it carries.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'service_unavailable';
}

/** True when `err` means the database is unreachable or too slow, rather than a bad request. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  if (
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError || // includes MongoNetworkTimeoutError
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoClientClosedError ||
    err instanceof MongoServerClosedError ||
    err instanceof MongoOperationTimeoutError
  ) {
    return true;
  }
  if (err instanceof MongoServerError && typeof err.code === 'number' && UNAVAILABLE_CODES.has(err.code)) return true;
  // Pool cleared / wait-queue timeouts and similar driver-side failures are labelled retryable.
  if (err instanceof MongoError && !(err instanceof MongoServerError)) {
    return err.hasErrorLabel('RetryableWriteError') || err.hasErrorLabel('ResetPool') || /timed out/i.test(err.message);
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return err instanceof Error && typeof code === 'string' && SOCKET_ERROR_CODES.has(code);
}

/** True when a write failed only because a unique index already holds the key. */
export function isDuplicateKeyError(err: unknown): boolean {
  if (err instanceof MongoBulkWriteError) {
    const codes = writeErrorCodes(err);
    return codes.length > 0 && codes.every((code) => code === DUPLICATE_KEY);
  }
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/** Wraps "database unavailable" errors in StoreUnavailableError; returns anything else unchanged. */
export function mapStoreError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isDatabaseUnavailable(err)) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new StoreUnavailableError(`database unavailable: ${detail}`, { cause: err });
}
