import type { Redis } from '@cds/redis';

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
}

export interface UsageReader {
  read(accountId: string, days?: number): Promise<Usage>;
}

export const dayToDate = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);

/**
 * Reads what the gateway counts (docs/architecture.md): the rate hash `<rate prefix>{account}`
 * (m, mc, d, dc) and the usage hash `<usage prefix>{account}` (day index → count, k:<key id> →
 * last day). A window whose index is not the current one counts 0; "now" is Redis TIME, the
 * gateway's clock.
 */
export function createUsageReader(deps: { redis: Redis; ratePrefix: string; usagePrefix: string }): UsageReader {
  return {
    async read(accountId, days = 30) {
      const results = await deps.redis
        .multi()
        .time()
        .hgetall(`${deps.ratePrefix}{${accountId}}`)
        .hgetall(`${deps.usagePrefix}{${accountId}}`)
        .exec();
      if (results === null) throw new Error('usage read was aborted');
      for (const [err] of results) if (err) throw err;
      const [seconds] = results[0]?.[1] as [string, string];
      const nowS = Number(seconds);
      const minuteIndex = Math.floor(nowS / 60);
      const today = Math.floor(nowS / 86_400);
      const rate = (results[1]?.[1] ?? {}) as Record<string, string>;
      const usage = (results[2]?.[1] ?? {}) as Record<string, string>;
      const minute = Number(rate.m) === minuteIndex ? Number(rate.mc ?? 0) : 0;
      const day = Number(rate.d) === today ? Number(rate.dc ?? 0) : 0;
      const daily = [];
      for (let d = today - days + 1; d <= today; d++) {
        daily.push({ day: d, date: dayToDate(d), count: Number(usage[String(d)] ?? 0) || 0 });
      }
      const lastUsedDay = new Map<string, number>();
      for (const [field, value] of Object.entries(usage)) {
        if (field.startsWith('k:')) lastUsedDay.set(field.slice(2), Number(value));
      }
      return { minute, day, daily, lastUsedDay, today };
    },
  };
}
