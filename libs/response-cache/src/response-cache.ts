import type { CachedBody } from './cached-body.ts';

/** Tag of every list response: any catalog change may change any list page. */
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

/** Where an entry may be found and what drops it. */
export interface CacheEntryOptions {
  /** Commodity ids (and LIST_TAG) whose data events drop the entry. */
  tags: readonly string[];
  /** Today (UTC) when the entry was computed: request-URL aliases are valid that day only, as defaults depend on it. */
  day: string;
  /** The request URL as received, an alias looked up before the params are even parsed. */
  alias?: string | undefined;
}

interface Entry {
  key: string;
  body: CachedBody;
  tags: readonly string[];
  day: string;
  expiresAt: number;
  valid: boolean;
}

export interface ResponseCache {
  /** Fast path: the body cached for this exact request URL today, if still valid. */
  lookupAlias(url: string, day: string): CachedBody | undefined;
  /**
   * The cached body under the normalized key, or the result of `compute` (stored unless a data
   * event arrived while it ran). Concurrent misses of one key share one computation.
   */
  getOrCompute(key: string, opts: CacheEntryOptions, compute: () => Promise<CachedBody>): Promise<CachedBody>;
  /**
   * A token taken before fetching a body elsewhere (e.g. from an upstream service); `put` stores
   * the body only if no invalidation happened since, so a response fetched across a data event is
   * never kept.
   */
  epoch(): number;
  /** Stores a body computed outside `getOrCompute` (see `epoch`); returns whether it was stored. */
  put(key: string, body: CachedBody, opts: CacheEntryOptions, sinceEpoch: number): boolean;
  /** Drops every entry of a commodity and every list entry; returns how many were dropped. */
  invalidate(commodityId: string): number;
  clear(): void;
  stats(): ResponseCacheStats;
}

/**
 * In-memory LRU of serialized response bodies, bounded by entries and bytes, with a TTL as a
 * safety net. One per process (created in main.ts and passed in deps, never module-level).
 */
export function createResponseCache(opts: ResponseCacheOptions): ResponseCache {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const aliases = new Map<string, Entry>();
  const byTag = new Map<string, Set<Entry>>();
  const inflight = new Map<string, Promise<CachedBody>>();
  const maxAliases = opts.maxEntries * 2;
  let bytes = 0;
  let epoch = 0;
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

  function usable(entry: Entry | undefined): entry is Entry {
    if (entry === undefined || !entry.valid) return false;
    if (entry.expiresAt <= now()) {
      remove(entry);
      return false;
    }
    return true;
  }

  function setAlias(url: string, entry: Entry): void {
    aliases.delete(url);
    aliases.set(url, entry);
    if (aliases.size > maxAliases) {
      const oldest = aliases.keys().next().value;
      if (oldest !== undefined) aliases.delete(oldest);
    }
  }

  function store(key: string, body: CachedBody, o: CacheEntryOptions): void {
    if (body.bytes > opts.maxBytes / 4) return;
    const old = entries.get(key);
    if (old !== undefined) remove(old);
    const entry: Entry = { key, body, tags: o.tags, day: o.day, expiresAt: now() + opts.ttlMs, valid: true };
    entries.set(key, entry);
    bytes += body.bytes;
    for (const tag of o.tags) {
      let set = byTag.get(tag);
      if (set === undefined) byTag.set(tag, (set = new Set()));
      set.add(entry);
    }
    if (o.alias !== undefined) setAlias(o.alias, entry);
    while (entries.size > opts.maxEntries || bytes > opts.maxBytes) {
      const oldest = entries.values().next().value;
      if (oldest === undefined) break;
      remove(oldest);
    }
  }

  return {
    lookupAlias(url, day) {
      const entry = aliases.get(url);
      if (entry === undefined) return undefined;
      if (!usable(entry) || entry.day !== day) {
        aliases.delete(url);
        return undefined;
      }
      counters.hits++;
      return entry.body;
    },

    async getOrCompute(key, o, compute) {
      const entry = entries.get(key);
      if (usable(entry)) {
        counters.hits++;
        entries.delete(key);
        entries.set(key, entry);
        if (o.alias !== undefined && entry.day === o.day) setAlias(o.alias, entry);
        return entry.body;
      }
      const running = inflight.get(key);
      if (running !== undefined) return running;
      counters.misses++;
      const started = epoch;
      const promise = compute().then((body) => {
        if (epoch === started) store(key, body, o);
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

    put(key, body, o, sinceEpoch) {
      if (sinceEpoch !== epoch) return false;
      store(key, body, o);
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
      aliases.clear();
    },

    stats() {
      return { entries: entries.size, bytes, ...counters };
    },
  };
}
