import { StoreUnavailableError } from './errors.ts';

/** A deadline for one database operation, and an optional signal that ends it sooner. */
export interface OperationDeadline {
  timeoutMs: number;
  /** Aborting it fails the operation at once with the signal's reason. */
  signal?: AbortSignal;
}

/** What a deadline-bound operation passes on to the driver. */
export interface DeadlineOptions {
  /** Server-side limit (servers that honour it stop the command there). */
  maxTimeMS: number;
  /**
   * Client-side abort for the driver's reads (`find`, `findOne`, `command`, ...: it closes the
   * connection of an operation aborted while waiting for its answer).
   */
  signal: AbortSignal;
}

/**
 * Runs one database operation with a deadline: `op` gets `maxTimeMS` and an abort signal to pass
 * to the driver, and the returned promise settles by `timeoutMs` (or when `deadline.signal`
 * aborts) whatever the operation does. Write operations of the driver take no signal, and a server
 * may ignore `maxTimeMS` (FerretDB 1.24 does for updates), so the promise is raced against the
 * deadline too: an operation that never answers is left behind (the client's `socketTimeoutMS`
 * then closes its connection) and the caller gets a StoreUnavailableError naming `what`, which
 * `isDatabaseUnavailable` counts as transient. A write left behind may still land later: callers
 * must be able to retry idempotently.
 */
export async function withDeadline<T>(
  what: string,
  deadline: OperationDeadline,
  op: (options: DeadlineOptions) => Promise<T>,
): Promise<T> {
  const { timeoutMs, signal: parent } = deadline;
  parent?.throwIfAborted();
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new StoreUnavailableError(`${what}: no answer from the database within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const onParentAbort = () => controller.abort(parent!.reason);
  parent?.addEventListener('abort', onParentAbort, { once: true });
  let rejectAborted!: (reason: unknown) => void;
  const aborted = new Promise<never>((_, reject) => (rejectAborted = reject));
  const onAbort = () => rejectAborted(controller.signal.reason);
  controller.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const running = op({ maxTimeMS: timeoutMs, signal: controller.signal });
    // Settles after the race was lost: keep its rejection from going unhandled.
    running.catch(() => undefined);
    return await Promise.race([running, aborted]);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
    controller.signal.removeEventListener('abort', onAbort);
  }
}
