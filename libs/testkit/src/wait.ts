import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** Asked before every try: an error it returns ends the wait at once (the server died, say). */
  readonly giveUp?: () => Error | undefined;
  /** The error thrown when the time is up, from the last probe error's message and the error itself. */
  readonly timeoutError?: (reason: string, lastError: unknown) => Error;
  /** The longest pause between tries (500 ms): lower it where the time to success is measured. */
  readonly maxDelayMs?: number;
}

/**
 * Retries `probe` with capped exponential backoff until it resolves (its value is returned) or
 * `timeoutMs` passes. A probe that can hang needs a deadline of its own, shorter than `timeoutMs`.
 */
export async function waitUntil<T = void>(
  label: string,
  probe: () => Promise<T>,
  timeoutMs: number,
  options: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const maxDelay = options.maxDelayMs ?? 500;
  let delay = Math.min(50, maxDelay);
  let lastError: unknown;
  while (Date.now() < deadline) {
    const fatal = options.giveUp?.();
    if (fatal !== undefined) throw fatal;
    try {
      return await probe();
    } catch (err) {
      lastError = err;
    }
    await sleep(delay);
    delay = Math.min(delay * 2, maxDelay);
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw (
    options.timeoutError?.(reason, lastError) ??
    new Error(`${label} did not become ready within ${timeoutMs} ms: ${reason}`, { cause: lastError })
  );
}
