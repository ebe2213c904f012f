import { DAY, MINUTE, decide, type RateDecision, type RateLimits } from './windows.ts';

/**
 * Blocks (docs/decisions.md "Rate windows: blocks"): an account of a plan of BLOCK_MIN_PER_MINUTE
 * or more a minute that asks again on a replica within BLOCK_TTL_MS gets BLOCK_SIZE admissions of
 * both its windows at once, counted in Redis as they are handed out, while both windows keep at
 * least half their limit after them and its minute has more than BLOCK_SAFE_SECONDS left (by
 * Redis's clock). The replica spends them on the account's next requests for at most BLOCK_TTL_MS,
 * then gives back the unspent rest, so the counts are exact once it is back, and never more are
 * admitted than the limit. A block ends well inside its minute: BLOCK_TTL_MS is under
 * BLOCK_SAFE_SECONDS, counted from before Redis read its clock for it.
 */
export const BLOCK_SIZE = 8;
export const BLOCK_MIN_PER_MINUTE = 300;
export const BLOCK_TTL_MS = 1000;
export const BLOCK_SAFE_SECONDS = 2;
/** Longest a request that finds a window full waits for the blocks out to come back. */
export const BLOCK_WAIT_MS = 2000;

/** What goes back to Redis when a block ends (the give-back script's item). */
export interface BlockEnd {
  accountId: string;
  limits: RateLimits;
  minute: number;
  day: number;
  /** Admissions not spent (given back to the counts). */
  units: number;
  /** Its admissions beyond the first, as handed out (its share of the hash's `o`). */
  held: number;
}

/** Admissions of an account's windows that Redis counted and this replica spends. */
interface Block {
  limits: RateLimits;
  minute: number;
  day: number;
  held: number;
  /** Not spent yet. */
  left: number;
  /** The minute and day counts after the last request it admitted, as this replica knows them. */
  mc: number;
  dc: number;
  /**
   * Redis's time when it was handed out (Unix seconds), and this process's when it was asked for
   * (performance.now(), earlier): it is spent until BLOCK_TTL_MS after `at`, so by Redis's clock
   * never more than BLOCK_TTL_MS after it was handed out, whatever delayed the reply.
   */
  now: number;
  at: number;
}

export type Blocks = ReturnType<typeof createBlocks>;

/**
 * The blocks one limiter holds, one per account at most. `end` sends a block's end to Redis (a
 * failed one leaves its admissions counted until the minute resets: never more admitted than the
 * limit); `keyDay` is the day the limiter last recorded a key's use (a key is spent from a block
 * only once recorded today, so its last-used day is never missed). Blocks are ended by a timer
 * every BLOCK_TTL_MS / 4, so a rest is back at most 1.25 BLOCK_TTL_MS after its block.
 */
export function createBlocks(opts: {
  end: (end: BlockEnd) => void;
  keyDay: (keyId: string) => number | undefined;
  /** Most accounts whose last take is remembered; past it, it starts again. */
  maxAccounts: number;
}) {
  const blocks = new Map<string, Block>();
  /** When each account last asked this replica to take (performance.now()). */
  const lastTake = new Map<string, number>();
  /** Accounts whose block is being asked for: their other requests meanwhile ask for none. */
  const asking = new Set<string>();

  const live = (b: Block, t: number): boolean => t - b.at < BLOCK_TTL_MS;
  const spendable = (b: Block | undefined, limits: RateLimits, keyId: string, t: number): b is Block =>
    b !== undefined &&
    b.left > 0 &&
    b.limits === limits &&
    live(b, t) &&
    (keyId === '' || opts.keyDay(keyId) === b.day);
  const shown = (b: Block, limits: RateLimits): RateDecision => decide(true, b.mc, b.dc, b.now, limits, 'redis');

  function settle(accountId: string, b: Block): void {
    if (blocks.get(accountId) === b) blocks.delete(accountId);
    const units = b.left;
    b.left = 0;
    opts.end({ accountId, limits: b.limits, minute: b.minute, day: b.day, units, held: b.held });
  }
  setInterval(() => {
    const t = performance.now();
    for (const [accountId, b] of blocks) if (b.left === 0 || !live(b, t)) settle(accountId, b);
  }, BLOCK_TTL_MS / 4).unref();

  return {
    /** An admission from the account's block here, spent; undefined when it has none for this request. */
    spend(accountId: string, limits: RateLimits, keyId: string, t: number): RateDecision | undefined {
      const b = blocks.get(accountId);
      if (!spendable(b, limits, keyId, t)) return undefined;
      b.left -= 1;
      b.mc += 1;
      b.dc += 1;
      return shown(b, limits);
    },
    /** A 304's check: while the account's block here has admissions left, the windows have room. */
    check(accountId: string, limits: RateLimits, keyId: string, t: number): RateDecision | undefined {
      const b = blocks.get(accountId);
      return spendable(b, limits, keyId, t) ? shown(b, limits) : undefined;
    },
    /**
     * A 304's give-back, into the block the account holds here for the same minute (so the same
     * day): its rest, this one included, goes back to Redis when it ends. Undefined without one.
     */
    giveBack(accountId: string, limits: RateLimits, taken: RateDecision, t: number): RateDecision | undefined {
      const b = blocks.get(accountId);
      if (b === undefined || b.minute !== Math.floor(taken.now / MINUTE) || b.limits !== limits || !live(b, t)) {
        return undefined;
      }
      b.left += 1;
      b.mc -= 1;
      b.dc -= 1;
      return shown(b, limits);
    },
    /** The block a take asks for (BLOCK_SIZE, or 1 for none); an account asking again within BLOCK_TTL_MS gets one. */
    want(accountId: string, limits: RateLimits, t: number): number {
      const previous = lastTake.get(accountId);
      if (lastTake.size >= opts.maxAccounts) lastTake.clear();
      lastTake.set(accountId, t);
      const block =
        limits.perMinute >= BLOCK_MIN_PER_MINUTE &&
        previous !== undefined &&
        t - previous < BLOCK_TTL_MS &&
        !asking.has(accountId);
      if (!block) return 1;
      asking.add(accountId);
      return BLOCK_SIZE;
    },
    /** A take that asked for a block failed. */
    failed(accountId: string): void {
      asking.delete(accountId);
    },
    /**
     * A take's answer: `granted` admissions (0: refused) and the minute and day counts after them.
     * The take's own decision; the admissions beyond its first become the account's block here
     * (ending the one it held), spent from `at` (when the take was asked).
     */
    answered(
      take: { accountId: string; limits: RateLimits; want: number; at: number },
      granted: number,
      counts: { mc: number; dc: number; now: number },
    ): RateDecision {
      const { accountId, limits } = take;
      if (take.want > 1) asking.delete(accountId);
      // The counts as this request leaves them: a block's other admissions are not spent yet.
      const rest = Math.max(0, granted - 1);
      const [mc, dc, now] = [counts.mc - rest, counts.dc - rest, counts.now];
      if (rest === 0) return decide(granted > 0, mc, dc, now, limits, 'redis');
      const old = blocks.get(accountId);
      if (old !== undefined) settle(accountId, old);
      const block = { limits, minute: Math.floor(now / MINUTE), day: Math.floor(now / DAY), held: rest, left: rest };
      blocks.set(accountId, { ...block, mc, dc, now, at: take.at });
      return decide(true, mc, dc, now, limits, 'redis');
    },
  };
}
