import { parse } from 'fast-querystring';

/** Most distinct query strings remembered per parser (the memo is emptied when full). */
const REMEMBERED = 1024;
/** Longer query strings are parsed every time. */
const MAX_REMEMBERED_LENGTH = 256;
/**
 * A query string that may carry a credential (`api_key`, or anything percent-encoded, which may
 * spell it) is never remembered: no key stays in memory past its request.
 */
const MAY_HOLD_A_KEY = /key|%/i;

/**
 * Fastify's query-string parser (`routerOptions.querystringParser`) for the gateway, whose plan
 * rules read every request's query: fast-querystring's parse (fastify's default), with each
 * distinct short query string's result remembered and frozen, so a repeated URL is parsed once.
 * Clients repeat a few query strings most of the time; the memo is bounded. Handlers must not
 * mutate `request.query` (frozen for remembered ones: a write throws).
 */
export function createQueryStringParser(): (raw: string) => Record<string, unknown> {
  const memo = new Map<string, Record<string, unknown>>();
  return (raw) => {
    const known = memo.get(raw);
    if (known !== undefined) return known;
    const parsed = parse(raw) as Record<string, unknown>;
    if (raw.length <= MAX_REMEMBERED_LENGTH && !MAY_HOLD_A_KEY.test(raw)) {
      for (const name in parsed) if (Array.isArray(parsed[name])) Object.freeze(parsed[name]);
      Object.freeze(parsed);
      if (memo.size >= REMEMBERED) memo.clear();
      memo.set(raw, parsed);
    }
    return parsed;
  };
}
