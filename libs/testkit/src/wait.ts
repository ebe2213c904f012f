import { setTimeout as sleep } from 'node:timers/promises';

/** Retries `probe` with capped exponential backoff until it resolves or `timeoutMs` passes. */
export async function waitUntil(label: string, probe: () => Promise<void>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 50;
  let lastError: unknown;
  while (Date.now() < deadline) {
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
  throw new Error(`${label} did not become ready within ${timeoutMs} ms: ${reason}`, { cause: lastError });
}
