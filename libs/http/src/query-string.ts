import { parse } from 'fast-querystring';

/** Most distinct query strings remembered per parser (the memo is emptied when full). */
const REMEMBERED = 1024;
/** Longer query strings are parsed every time. */
const MAX_REMEMBERED_LENGTH = 256;
/**
 * Whether a query string or URL may carry a credential (`api_key`, or anything percent-encoded,
 * which may spell it): such a text is never remembered by a memo, so no key stays in memory past
 * its request.
 */
export function mayHoldAKey(text: string): boolean {
  return /key|%/i.test(text);
}

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
    if (raw.length <= MAX_REMEMBERED_LENGTH && !mayHoldAKey(raw)) {
      for (const name in parsed) if (Array.isArray(parsed[name])) Object.freeze(parsed[name]);
      Object.freeze(parsed);
      if (memo.size >= REMEMBERED) memo.clear();
      memo.set(raw, parsed);
    }
    return parsed;
  };
}
