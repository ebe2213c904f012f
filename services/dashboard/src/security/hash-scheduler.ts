/**
 * Who a password hash is for. `anonymous`: anything a visitor can trigger before a password is
 * verified (log-in, sign-up). `user`: a signed-in user (password change, deletion), the re-hash
 * after a verified log-in, and a reset whose mailed link was checked first.
 */
export type HashPriority = 'anonymous' | 'user';

export interface HashSchedulerLimits {
  /** Hashes computed at once: each holds 128·N·r·p bytes (128 MiB at the defaults). */
  concurrent: number;
  /** `user` hashes waiting for their turn; past this one fails at once with PasswordHasherBusyError. */
  waiting: number;
  /** `anonymous` hashes waiting (admitted by the budget); past this, PasswordHasherBusyError too. */
  anonymousWaiting: number;
  /**
   * The budget of anonymous hashes, a token bucket per replica (the hasher is the replica's): at
   * most `burst` at once, refilled at `perSecond`. Spent: AnonymousHashBudgetError, nothing queued.
   */
  anonymous: { burst: number; perSecond: number };
}

/** More password checks are waiting than the dashboard will queue: a 503, try again shortly. */
export class PasswordHasherBusyError extends Error {
  override readonly name = 'PasswordHasherBusyError';
}

/** The anonymous hashing budget is spent: a 503 with Retry-After, the request never queued. */
export class AnonymousHashBudgetError extends Error {
  override readonly name = 'AnonymousHashBudgetError';
  /** Whole seconds until the budget holds one hash again. */
  readonly retryAfter: number;
  constructor(retryAfter: number) {
    super('the anonymous password-hashing budget is spent');
    this.retryAfter = retryAfter;
  }
}

export interface HashScheduler {
  /** Runs `work` when a slot is free: `user` work before any waiting `anonymous` work. */
  run<T>(priority: HashPriority, work: () => Promise<T>): Promise<T>;
  /** Anonymous hashes the budget would admit now (for tests and metrics). */
  anonymousTokens(): number;
}

/**
 * The password hasher's scheduler: `concurrent` slots, two FIFO queues with the `user` one served
 * first, and a token bucket in front of the `anonymous` one. An anonymous flood therefore costs a
 * signed-in user at most the hashes already running when it arrives (one, at the defaults), and
 * the flood itself is answered at once, not queued behind itself. `clock` is in milliseconds.
 */
export function createHashScheduler(limits: HashSchedulerLimits, clock: () => number): HashScheduler {
  let running = 0;
  const queues: Record<HashPriority, (() => void)[]> = { user: [], anonymous: [] };
  let tokens = limits.anonymous.burst;
  let refilledAt = clock();

  const refill = () => {
    const now = clock();
    tokens = Math.min(limits.anonymous.burst, tokens + ((now - refilledAt) / 1000) * limits.anonymous.perSecond);
    refilledAt = now;
  };
  const next = (): (() => void) | undefined => queues.user.shift() ?? queues.anonymous.shift();

  return {
    anonymousTokens: () => {
      refill();
      return tokens;
    },
    async run(priority, work) {
      if (priority === 'anonymous') {
        refill();
        if (tokens < 1) {
          throw new AnonymousHashBudgetError(Math.max(1, Math.ceil((1 - tokens) / limits.anonymous.perSecond)));
        }
      }
      const queue = queues[priority];
      const max = priority === 'user' ? limits.waiting : limits.anonymousWaiting;
      if (running >= limits.concurrent && queue.length >= max) {
        throw new PasswordHasherBusyError('too many password checks waiting');
      }
      if (priority === 'anonymous') tokens -= 1;
      if (running < limits.concurrent) {
        running++;
      } else {
        // The slot is handed over by the one finishing (`running` stays as it is).
        await new Promise<void>((resolve) => queue.push(resolve));
      }
      try {
        return await work();
      } finally {
        const handOver = next();
        if (handOver === undefined) running--;
        else handOver();
      }
    },
  };
}
