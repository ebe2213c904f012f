import type { CachedBody } from './cached-body.ts';

/** Tag of every list answer: any catalog change may change any list page. */
export const LIST_TAG = '*list';

export interface ResponseCacheOptions {
  /** Most entries kept (least recently used go first). */
  maxEntries: number;
  /** Most body bytes kept. A body larger than a quarter of this is not cached. */
  maxBytes: number;
  /** Safety-net lifetime of an entry; data events invalidate sooner. */
  ttlMs: number;
  now?: () => number;
}

export interface ResponseCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  invalidations: number;
}

/** Tags of an entry: the commodity ids (and LIST_TAG) whose data events drop it. */
export type CacheTags = readonly string[];

interface Entry {
  key: string;
  /** Position in the recency order (a counter): entries are kept in a Map in that order. */
  seq: number;
  body: CachedBody;
  tags: CacheTags;
  expiresAt: number;
  valid: boolean;
}

/**
 * Serialized answers by key. The key names everything the answer depends on: the query service
 * keys on the validated request (route and effective parameters, defaults applied), the gateway on
 * the day and the forwarded path (forwardedKey).
 */
export interface ResponseCache {
  /** The body under this key, if still valid. */
  get(key: string): CachedBody | undefined;
  /**
   * The body under the key, or the result of `compute` (stored unless a data event arrived while it
   * ran). Concurrent misses of one key share one computation.
   */
  getOrCompute(key: string, tags: CacheTags, compute: () => Promise<CachedBody>): Promise<CachedBody>;
  /**
   * A token taken before fetching a body elsewhere (e.g. from an upstream service); `put` stores
   * the body only if no invalidation happened since, so an answer fetched across a data event is
   * never kept.
   */
  epoch(): number;
  /** Stores a body computed outside `getOrCompute` (see `epoch`); returns whether it was stored. */
  put(key: string, body: CachedBody, tags: CacheTags, sinceEpoch: number): boolean;
  /** Drops every entry of a commodity and every list entry; returns how many were dropped. */
  invalidate(commodityId: string): number;
  clear(): void;
  stats(): ResponseCacheStats;
}

/**
 * The key of an answer fetched by path (the gateway's): the path as forwarded and today's date
 * (UTC), as the query's date defaults depend on the day.
 */
export function forwardedKey(path: string, day: string): string {
  return `${day} ${path}`;
}

/**
 * In-memory LRU of serialized answers, bounded by entries and bytes, with a TTL as a safety net.
 * One per process (created in main.ts and passed in deps, never module-level).
 */
export function createResponseCache(opts: ResponseCacheOptions): ResponseCache {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const byTag = new Map<string, Set<Entry>>();
  const inflight = new Map<string, Promise<CachedBody>>();
  let bytes = 0;
  let epoch = 0;
  let seq = 0;
  // A hit moves its entry to the recent end only when it is in the older half: the ones in the
  // newer half are far from eviction, and a hit (the hot path) then costs one map lookup.
  const moveAfter = Math.max(1, Math.floor(opts.maxEntries / 2));
  const counters = { hits: 0, misses: 0, invalidations: 0 };

  function remove(entry: Entry): void {
    if (!entry.valid) return;
    entry.valid = false;
    if (entries.get(entry.key) === entry) entries.delete(entry.key);
    bytes -= entry.body.bytes;
    for (const tag of entry.tags) {
      const set = byTag.get(tag);
      set?.delete(entry);
      if (set?.size === 0) byTag.delete(tag);
    }
  }

  function store(key: string, body: CachedBody, tags: CacheTags): void {
    if (body.bytes > opts.maxBytes / 4) return;
    const old = entries.get(key);
    if (old !== undefined) remove(old);
    const entry: Entry = { key, seq: ++seq, body, tags, expiresAt: now() + opts.ttlMs, valid: true };
    entries.set(key, entry);
    bytes += body.bytes;
    for (const tag of tags) {
      let set = byTag.get(tag);
      if (set === undefined) byTag.set(tag, (set = new Set()));
      set.add(entry);
    }
    while (entries.size > opts.maxEntries || bytes > opts.maxBytes) {
      const oldest = entries.values().next().value;
      if (oldest === undefined) break;
      remove(oldest);
    }
  }

  function get(key: string): CachedBody | undefined {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now()) {
      remove(entry);
      return undefined;
    }
    counters.hits++;
    if (seq - entry.seq >= moveAfter) {
      entries.delete(key);
      entries.set(key, entry);
      entry.seq = ++seq;
    }
    return entry.body;
  }

  return {
    get,

    async getOrCompute(key, tags, compute) {
      const hit = get(key);
      if (hit !== undefined) return hit;
      const running = inflight.get(key);
      if (running !== undefined) return running;
      counters.misses++;
      const started = epoch;
      const promise = compute().then((body) => {
        if (epoch === started) store(key, body, tags);
        return body;
      });
      inflight.set(key, promise);
      try {
        return await promise;
      } finally {
        if (inflight.get(key) === promise) inflight.delete(key);
      }
    },

    epoch: () => epoch,

    put(key, body, tags, sinceEpoch) {
      if (sinceEpoch !== epoch) return false;
      store(key, body, tags);
      return true;
    },

    invalidate(commodityId) {
      epoch++;
      inflight.clear();
      let dropped = 0;
      for (const tag of [commodityId, LIST_TAG]) {
        for (const entry of [...(byTag.get(tag) ?? [])]) {
          remove(entry);
          dropped++;
        }
      }
      counters.invalidations++;
      return dropped;
    },

    clear() {
      epoch++;
      inflight.clear();
      for (const entry of [...entries.values()]) remove(entry);
    },

    stats() {
      return { entries: entries.size, bytes, ...counters };
    },
  };
}
