import { RateHash, UsageHash, currentRateCounts, rateHashKey, usageByDay, usageHashKey } from '@cds/contracts';
import type { RedisClient } from '@cds/redis';

/** A counters hash of the gateway's, as libs/contracts `usage-hash.ts` describes it. */
export type UsageHashName = 'rate' | 'usage';

export interface Usage {
  /** Admitted requests in the current minute and UTC day (the gateway's rate windows). */
  minute: number;
  day: number;
  /** The last `days` UTC days, oldest first (today last). */
  daily: { day: number; date: string; count: number }[];
  /** Day index of each key's last admitted request. */
  lastUsedDay: Map<string, number>;
  /** Today's day index (Redis TIME). */
  today: number;
  /**
   * The hashes that did not match their contract: read as empty (no request counted), and the
   * pages say the figures may be incomplete.
   */
  unreadable: UsageHashName[];
}

export interface UsageReader {
  read(accountId: string, days?: number): Promise<Usage>;
}

export const dayToDate = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);

/**
 * Reads what the gateway counts (docs/architecture.md) through the contract the gateway writes them
 * by (libs/contracts `usage-hash.ts`): the rate hash (current minute and day windows, the count of
 * its day) and the usage hash (count per day once the day is over, each key's last day). A window
 * whose index is not the current one counts 0; "now" is Redis TIME, the gateway's clock. A hash
 * that does not match its schema is read as empty and named in `unreadable`, so the pages show
 * what they can instead of failing.
 */
export function createUsageReader(deps: { redis: RedisClient; ratePrefix: string; usagePrefix: string }): UsageReader {
  return {
    async read(accountId, days = 30) {
      const results = await deps.redis
        .multi()
        .time()
        .hgetall(rateHashKey(deps.ratePrefix, accountId))
        .hgetall(usageHashKey(deps.usagePrefix, accountId))
        .exec();
      if (results === null) throw new Error('usage read was aborted');
      for (const [err] of results) if (err) throw err;
      const [seconds] = results[0]?.[1] as [string, string];
      const nowS = Number(seconds);
      const today = Math.floor(nowS / 86_400);
      const unreadable: UsageHashName[] = [];
      const rate = RateHash.safeParse(results[1]?.[1] ?? {});
      if (!rate.success) unreadable.push('rate');
      const usage = UsageHash.safeParse(results[2]?.[1] ?? {});
      if (!usage.success) unreadable.push('usage');
      const { minute, day } = currentRateCounts(rate.data ?? {}, nowS);
      const counts = usageByDay(rate.data ?? {}, usage.data?.days ?? new Map<number, number>());
      const daily = [];
      for (let d = today - days + 1; d <= today; d++) {
        daily.push({ day: d, date: dayToDate(d), count: counts.get(d) ?? 0 });
      }
      const lastUsedDay = usage.data?.keys ?? new Map<string, number>();
      return { minute, day, daily, lastUsedDay, today, unreadable };
    },
  };
}
