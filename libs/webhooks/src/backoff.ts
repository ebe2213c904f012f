/** The retry schedule of a delivery (WEBHOOK_RETRY_BASE_MS, WEBHOOK_RETRY_MAX_MS). */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
}

/**
 * The wait after the `attempt`-th failed attempt (1-based): `baseMs` doubling with each attempt,
 * capped at `maxMs`, plus up to a quarter more of jitter (`random` in [0, 1)) so endpoints that
 * failed together do not retry together. The jitter only adds, so each wait below the cap is at
 * least the one before it doubled and the gaps grow.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 40);
  const plain = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  return Math.min(policy.maxMs, Math.round(plain * (1 + random() / 4)));
}
