import { z } from 'zod';

/**
 * The gateway's counters of an account in Redis: its rate script writes them (services/gateway
 * `rate/redis-limiter.ts`), the dashboard reads them for its usage and keys pages. Two hashes per
 * account, both under the `{<account id>}` hash tag so that one script call reaches both (same
 * cluster slot):
 *
 * - the rate hash `<rate prefix>{<account id>}` (gateway and dashboard `RATE_KEY_PREFIX`, default
 *   `cds:rl:`): the current minute and UTC day windows and the requests admitted in each, written
 *   on every admitted request. Its day count is also that day's usage until a later day begins.
 * - the usage hash `<usage prefix>{<account id>}` (`USAGE_KEY_PREFIX`, default `cds:usage:`): the
 *   requests admitted per UTC day, each written once the day is over (by the account's first
 *   admitted request of a later day, from the rate hash), and the day each key was last used.
 *
 * So an account's usage per day is the usage hash's days with the rate hash's day over them
 * (`usageByDay`). Both hashes expire 35 days after the end of the account's last active day.
 *
 * Every value is a whole decimal number, as Redis stores the numbers the script writes. Windows are
 * indexes of Redis TIME (Unix seconds), the gateway's clock.
 */

/** The rate hash's fields. */
export const RATE_HASH_FIELDS = {
  /** Index of the minute window `mc` counts: Unix seconds / 60, floored. */
  minute: 'm',
  /** Requests admitted in minute `m`. */
  minuteCount: 'mc',
  /** Index of the UTC day `dc` counts: Unix seconds / 86 400, floored. */
  day: 'd',
  /** Requests admitted on day `d`: that day's usage (the usage hash's field `d` once a later day begins). */
  dayCount: 'dc',
} as const;

/** Usage hash field `k:<key id>`: the day index of that key's last admitted request. */
export const USAGE_HASH_KEY_FIELD_PREFIX = 'k:';

export function rateHashKey(prefix: string, accountId: string): string {
  return `${prefix}{${accountId}}`;
}

export function usageHashKey(prefix: string, accountId: string): string {
  return `${prefix}{${accountId}}`;
}

// At most 15 digits: every such number is exact as a JavaScript number (and as a Lua one).
const WHOLE_PATTERN = /^(?:0|[1-9][0-9]{0,14})$/;
const Whole = z.string().regex(WHOLE_PATTERN, 'expected a whole decimal number').transform(Number);

/**
 * The rate hash as HGETALL returns it. Every field may be missing: an account with no admitted
 * request in the last 35 days has no hash, and a hash written before has no field of a window it
 * never counted in. Fields this contract does not name are ignored.
 */
export const RateHash = z.object({
  [RATE_HASH_FIELDS.minute]: Whole.optional(),
  [RATE_HASH_FIELDS.minuteCount]: Whole.optional(),
  [RATE_HASH_FIELDS.day]: Whole.optional(),
  [RATE_HASH_FIELDS.dayCount]: Whole.optional(),
});
export type RateHash = z.infer<typeof RateHash>;

/**
 * The counts of the current minute and day, from a rate hash and the time (Unix seconds, Redis
 * TIME): a window whose index is not the current one is over, so it counts 0.
 */
export function currentRateCounts(hash: RateHash, nowSeconds: number): { minute: number; day: number } {
  const minute = hash[RATE_HASH_FIELDS.minute] === Math.floor(nowSeconds / 60);
  const day = hash[RATE_HASH_FIELDS.day] === Math.floor(nowSeconds / 86_400);
  return {
    minute: minute ? (hash[RATE_HASH_FIELDS.minuteCount] ?? 0) : 0,
    day: day ? (hash[RATE_HASH_FIELDS.dayCount] ?? 0) : 0,
  };
}

const KEY_FIELD_PATTERN = new RegExp(`^${USAGE_HASH_KEY_FIELD_PREFIX}[A-Za-z0-9_-]{1,64}$`);

/**
 * The usage hash as HGETALL returns it: field `<day index>` → requests admitted that UTC day, once
 * it is over (the gateway prunes days older than 31), field `k:<key id>` → the day index of the
 * key's last admitted request. Parsed into `days` (day index → count) and `keys` (key id → last
 * day); any other field, or a value that is not a whole number, fails the parse.
 */
export const UsageHash = z
  .record(z.string().regex(WHOLE_PATTERN).or(z.string().regex(KEY_FIELD_PATTERN)), Whole)
  .transform((fields) => {
    const days = new Map<number, number>();
    const keys = new Map<string, number>();
    for (const [field, value] of Object.entries(fields)) {
      if (field.startsWith(USAGE_HASH_KEY_FIELD_PREFIX))
        keys.set(field.slice(USAGE_HASH_KEY_FIELD_PREFIX.length), value);
      else days.set(Number(field), value);
    }
    return { days, keys };
  });
export type UsageHash = z.infer<typeof UsageHash>;

/**
 * An account's requests admitted per UTC day (day index → count): the days the usage hash holds,
 * and the rate hash's day `d` with its count `dc`, which is current for that day where the usage
 * hash has no field yet (today, or the last active day until a later one begins) or an older one.
 */
export function usageByDay(rate: RateHash, usage: UsageHash['days']): Map<number, number> {
  const days = new Map(usage);
  const day = rate[RATE_HASH_FIELDS.day];
  const count = rate[RATE_HASH_FIELDS.dayCount];
  if (day !== undefined && count !== undefined) days.set(day, count);
  return days;
}
