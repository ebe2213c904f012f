import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** Asked before every try: an error it returns ends the wait at once (the server died, say). */
  readonly giveUp?: () => Error | undefined;
  /** The error thrown when the time is up, from the last probe error's message and the error itself. */
  readonly timeoutError?: (reason: string, lastError: unknown) => Error;
}

/** Retries `probe` with capped exponential backoff until it resolves or `timeoutMs` passes. */
export async function waitUntil(
  label: string,
  probe: () => Promise<void>,
  timeoutMs: number,
  options: WaitOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 50;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const fatal = options.giveUp?.();
    if (fatal !== undefined) throw fatal;
    try {
      await probe();
      return;
    } catch (err) {
      lastError = err;
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 500);
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw (
    options.timeoutError?.(reason, lastError) ??
    new Error(`${label} did not become ready within ${timeoutMs} ms: ${reason}`, { cause: lastError })
  );
}
