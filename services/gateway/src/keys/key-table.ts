import { hash } from 'node:crypto';
import { PLAN_NAMES, type KeyEvent, type Plan } from '@cds/contracts';

export interface Principal {
  keyId: string;
  accountId: string;
  plan: Plan;
}

/** SHA-256 hex of a key, as key events carry it. */
export function hashKey(key: string): string {
  // The one-shot hash: no Hash object per request (this runs on every authenticated request).
  return hash('sha256', key, 'hex');
}

// Records live in chunks of CHUNK entries: growing adds one chunk and never copies, so a table
// never holds two copies of itself, and at most one chunk is allocated ahead of its entries.
const CHUNK_BITS = 14;
const CHUNK = 1 << CHUNK_BITS;
const IN_CHUNK = CHUNK - 1;

/** Ids as the admin API makes them (`key_`/`acc_` + 20 hex: 10 random bytes) are held as those 10 bytes. */
const ID_BYTES = 10;
const COMPACT_KEY_ID = /^key_[0-9a-f]{20}$/;
const COMPACT_ACCOUNT_ID = /^acc_[0-9a-f]{20}$/;
/** The account word of a key whose id is not compact (held in a Map beside, see KeyTable). */
const ODD_ID = 0x8000_0000;
/** The plan code of a closed account: its keys are refused until their revocations remove them. */
const CLOSED = 255;
const PLAN_CODE = new Map<Plan, number>(PLAN_NAMES.map((p, i) => [p, i]));
/** Principals kept for the keys looked up last, one per slot by entry number (hot keys skip decoding). */
const MEMO_SLOTS = 4096;

/**
 * An open-addressing index from a 32-bit hash to entry numbers (linear probing over an Int32Array:
 * 0 empty, -1 a tombstone, e + 1 entry e). The caller says how an entry hashes and whether it is the
 * one sought (its fields live in the caller's chunks). At most 3/4 of the slots are used (live or
 * tombstone); past that it rehashes into a table sized for half, which also drops the tombstones.
 */
class OpenIndex {
  #slots = new Int32Array(1024);
  #mask = 1023;
  #live = 0;
  #used = 0;

  readonly hashOf: (entry: number) => number;
  readonly matches: (entry: number) => boolean;

  constructor(hashOf: (entry: number) => number, matches: (entry: number) => boolean) {
    this.hashOf = hashOf;
    this.matches = matches;
  }

  get size(): number {
    return this.#live;
  }

  get bytes(): number {
    return this.#slots.byteLength;
  }

  /** The entry `matches` accepts among those hashed `h`, or -1. */
  find(h: number): number {
    const slots = this.#slots;
    const mask = this.#mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === 0) return -1;
      if (s > 0 && this.matches(s - 1)) return s - 1;
    }
  }

  /** Adds an entry that is not in the index (the caller checked with `find`). */
  insert(h: number, entry: number): void {
    if (this.#used + 1 > (this.#slots.length * 3) >>> 2) this.#rehash(this.#live + 1);
    const slots = this.#slots;
    const mask = this.#mask;
    let i = h & mask;
    while (slots[i]! > 0) i = (i + 1) & mask;
    if (slots[i] === 0) this.#used += 1;
    slots[i] = entry + 1;
    this.#live += 1;
  }

  /** Removes the entry `matches` accepts among those hashed `h`; returns it, or -1. */
  remove(h: number): number {
    const slots = this.#slots;
    const mask = this.#mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === 0) return -1;
      if (s > 0 && this.matches(s - 1)) {
        slots[i] = -1;
        this.#live -= 1;
        return s - 1;
      }
    }
  }

  #rehash(live: number): void {
    let capacity = 1024;
    while (capacity < live * 2) capacity *= 2;
    const old = this.#slots;
    this.#slots = new Int32Array(capacity);
    this.#mask = capacity - 1;
    this.#used = 0;
    this.#live = 0;
    for (const s of old) if (s > 0) this.insert(this.hashOf(s - 1), s - 1);
  }
}

/** Fixed-width records of one typed-array kind, CHUNK records per chunk. */
class Chunks<T extends Uint8Array | Uint32Array> {
  readonly list: T[] = [];
  readonly make: (length: number) => T;
  readonly width: number;
  constructor(make: (length: number) => T, width: number) {
    this.make = make;
    this.width = width;
  }
  /** Makes room for record `n`. */
  ensure(n: number): void {
    while (this.list.length * CHUNK <= n) this.list.push(this.make(CHUNK * this.width));
  }
  get bytes(): number {
    let n = 0;
    for (const c of this.list) n += c.byteLength;
    return n;
  }
}

/** Entry numbers handed out densely, freed ones reused first. */
class Slots {
  #next = 0;
  readonly #free: number[] = [];
  take(): number {
    return this.#free.pop() ?? this.#next++;
  }
  give(entry: number): void {
    this.#free.push(entry);
  }
}

/** FNV-1a over 10 bytes: where a compact account id starts probing. */
function fnv10(bytes: Uint8Array, at: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < ID_BYTES; i++) h = Math.imul(h ^ bytes[at + i]!, 0x01000193);
  return h >>> 0;
}

/**
 * The gateway's in-memory view of accounts and keys, folded from the key-lifecycle events, compact
 * enough for a replica to hold a million active keys (docs/reliability.md "Key table"): per key its
 * 32-byte SHA-256, its id as 10 bytes and its account's number, in typed-array chunks, found through
 * an open-addressing index on the hash; per account its id as 10 bytes, its plan and its count of
 * active keys. Ids of another shape than the admin API's (`key_`/`acc_` + 20 hex) are held in Maps
 * beside. Nothing per key is a JavaScript object, so the garbage collector never walks the table.
 *
 * Only active keys are held: a revocation removes its key at once and leaves a tombstone in the
 * index only (reused, and dropped at the next rehash). No revoked key can come back: the keys stream
 * keeps one message per key subject, so a revocation replaces its key's creation and a replay never
 * sees the two out of order. The plan is read from the account at lookup time, so a plan change
 * applies to every key of the account at once. A closed account refuses its keys from its
 * `account.closed` on, and leaves the table with its last key (the admin API revokes them all right
 * after the closure); a closed account without keys leaves at once.
 */
export class KeyTable {
  // Keys: hash (8 words), id (10 bytes), account number (| ODD_ID when the id is in #oddKeyIds).
  readonly #keyHashes = new Chunks((n) => new Uint32Array(n), 8);
  readonly #keyIds = new Chunks((n) => Buffer.alloc(n), ID_BYTES);
  readonly #keyAccounts = new Chunks((n) => new Uint32Array(n), 1);
  readonly #keySlots = new Slots();
  readonly #oddKeyIds = new Map<number, string>();
  // Accounts: id (10 bytes, compact ids only), plan code, active keys.
  readonly #accountIds = new Chunks((n) => Buffer.alloc(n), ID_BYTES);
  readonly #plans = new Chunks((n) => new Uint8Array(n), 1);
  readonly #keyCounts = new Chunks((n) => new Uint32Array(n), 1);
  readonly #accountSlots = new Slots();
  readonly #oddAccounts = new Map<string, number>();
  readonly #oddAccountIds = new Map<number, string>();

  // The hash or account id sought, set before each index call (no closure per call).
  readonly #soughtHash = new Uint32Array(8);
  readonly #soughtHashBytes = Buffer.from(this.#soughtHash.buffer);
  readonly #soughtId = Buffer.alloc(ID_BYTES);
  // The memo: the entry each slot's principal was made for (-1: none). A removed entry clears its slot;
  // a principal whose plan is no longer its account's is made again.
  readonly #memoEntry = new Int32Array(MEMO_SLOTS).fill(-1);
  readonly #memo: (Principal | undefined)[] = new Array<Principal | undefined>(MEMO_SLOTS).fill(undefined);

  readonly #keys = new OpenIndex(
    (e) => this.#keyHashes.list[e >>> CHUNK_BITS]![(e & IN_CHUNK) * 8]!,
    (e) => {
      const words = this.#keyHashes.list[e >>> CHUNK_BITS]!;
      const at = (e & IN_CHUNK) * 8;
      const h = this.#soughtHash;
      return (
        words[at] === h[0] &&
        words[at + 1] === h[1] &&
        words[at + 2] === h[2] &&
        words[at + 3] === h[3] &&
        words[at + 4] === h[4] &&
        words[at + 5] === h[5] &&
        words[at + 6] === h[6] &&
        words[at + 7] === h[7]
      );
    },
  );
  readonly #accounts = new OpenIndex(
    (a) => fnv10(this.#accountIds.list[a >>> CHUNK_BITS]!, (a & IN_CHUNK) * ID_BYTES),
    (a) => {
      const at = (a & IN_CHUNK) * ID_BYTES;
      return this.#accountIds.list[a >>> CHUNK_BITS]!.compare(this.#soughtId, 0, ID_BYTES, at, at + ID_BYTES) === 0;
    },
  );

  apply(event: KeyEvent): void {
    switch (event.type) {
      case 'account.created':
      case 'account.plan_changed': {
        const a = this.#account(event.data.account_id, event.data.plan);
        const plans = this.#plans.list[a >>> CHUNK_BITS]!;
        // Closing is final: a closed account's plan never changes again.
        if (plans[a & IN_CHUNK] !== CLOSED) plans[a & IN_CHUNK] = PLAN_CODE.get(event.data.plan)!;
        return;
      }
      case 'account.closed': {
        const a = this.#findAccount(event.data.account_id);
        if (a < 0) return;
        this.#plans.list[a >>> CHUNK_BITS]![a & IN_CHUNK] = CLOSED;
        this.#leaveIfDone(a, event.data.account_id);
        return;
      }
      case 'key.created': {
        this.#seekHash(event.data.key_hash);
        const existing = this.#keys.find(this.#soughtHash[0]!);
        if (existing >= 0) this.#removeKey(existing, this.#soughtHash[0]!);
        this.#addKey(event.data.key_id, this.#account(event.data.account_id, event.data.plan));
        return;
      }
      case 'key.revoked': {
        this.#seekHash(event.data.key_hash);
        const e = this.#keys.find(this.#soughtHash[0]!);
        if (e >= 0) this.#removeKey(e, this.#soughtHash[0]!);
        return;
      }
    }
  }

  /** The principal of a well-formed key, or undefined when unknown, revoked or of a closed account. */
  lookup(key: string): Principal | undefined {
    this.#soughtHashBytes.set(hash('sha256', key, 'buffer'));
    const e = this.#keys.find(this.#soughtHash[0]!);
    if (e < 0) return undefined;
    const word = this.#keyAccounts.list[e >>> CHUNK_BITS]![e & IN_CHUNK]!;
    const a = word & ~ODD_ID;
    const code = this.#plans.list[a >>> CHUNK_BITS]![a & IN_CHUNK]!;
    if (code === CLOSED) return undefined;
    const slot = e & (MEMO_SLOTS - 1);
    const plan = PLAN_NAMES[code]!;
    const kept = this.#memo[slot];
    if (this.#memoEntry[slot] === e && kept !== undefined && kept.plan === plan) return kept;
    const principal = Object.freeze({
      keyId: word & ODD_ID ? this.#oddKeyIds.get(e)! : `key_${this.#idHex(this.#keyIds, e)}`,
      accountId: this.#oddAccountIds.get(a) ?? `acc_${this.#idHex(this.#accountIds, a)}`,
      plan,
    });
    this.#memoEntry[slot] = e;
    this.#memo[slot] = principal;
    return principal;
  }

  get activeKeys(): number {
    return this.#keys.size;
  }

  /** Accounts the table holds: every open account known, and closed ones until their last key goes. */
  get accounts(): number {
    return this.#accounts.size + this.#oddAccounts.size;
  }

  /** Bytes of the typed arrays the table holds (ids of another shape, in Maps, not counted). */
  get bytes(): number {
    return (
      this.#keys.bytes +
      this.#accounts.bytes +
      this.#keyHashes.bytes +
      this.#keyIds.bytes +
      this.#keyAccounts.bytes +
      this.#accountIds.bytes +
      this.#plans.bytes +
      this.#keyCounts.bytes
    );
  }

  #idHex(chunks: Chunks<Buffer>, e: number): string {
    const at = (e & IN_CHUNK) * ID_BYTES;
    return chunks.list[e >>> CHUNK_BITS]!.toString('hex', at, at + ID_BYTES);
  }

  #seekHash(hex: string): void {
    this.#soughtHashBytes.write(hex, 0, 32, 'hex');
  }

  /** The number of an account held, or -1. */
  #findAccount(accountId: string): number {
    if (!COMPACT_ACCOUNT_ID.test(accountId)) return this.#oddAccounts.get(accountId) ?? -1;
    this.#soughtId.write(accountId.slice(4), 0, ID_BYTES, 'hex');
    return this.#accounts.find(fnv10(this.#soughtId, 0));
  }

  /** The number of an account, added with `plan` when not held. */
  #account(accountId: string, plan: Plan): number {
    const found = this.#findAccount(accountId);
    if (found >= 0) return found;
    const a = this.#accountSlots.take();
    this.#accountIds.ensure(a);
    this.#plans.ensure(a);
    this.#keyCounts.ensure(a);
    this.#plans.list[a >>> CHUNK_BITS]![a & IN_CHUNK] = PLAN_CODE.get(plan)!;
    this.#keyCounts.list[a >>> CHUNK_BITS]![a & IN_CHUNK] = 0;
    if (COMPACT_ACCOUNT_ID.test(accountId)) {
      // #findAccount left the id's bytes in #soughtId.
      this.#soughtId.copy(this.#accountIds.list[a >>> CHUNK_BITS]!, (a & IN_CHUNK) * ID_BYTES);
      this.#accounts.insert(fnv10(this.#soughtId, 0), a);
    } else {
      this.#oddAccounts.set(accountId, a);
      this.#oddAccountIds.set(a, accountId);
    }
    return a;
  }

  /** A closed account leaves with its last key. */
  #leaveIfDone(a: number, accountId: string): void {
    if (this.#plans.list[a >>> CHUNK_BITS]![a & IN_CHUNK] !== CLOSED) return;
    if (this.#keyCounts.list[a >>> CHUNK_BITS]![a & IN_CHUNK] !== 0) return;
    if (this.#oddAccounts.delete(accountId)) {
      this.#oddAccountIds.delete(a);
    } else {
      this.#soughtId.write(accountId.slice(4), 0, ID_BYTES, 'hex');
      this.#accounts.remove(fnv10(this.#soughtId, 0));
    }
    this.#accountSlots.give(a);
  }

  /** Adds the key whose hash is in #soughtHash. */
  #addKey(keyId: string, a: number): void {
    const e = this.#keySlots.take();
    this.#keyHashes.ensure(e);
    this.#keyIds.ensure(e);
    this.#keyAccounts.ensure(e);
    this.#keyHashes.list[e >>> CHUNK_BITS]!.set(this.#soughtHash, (e & IN_CHUNK) * 8);
    let word = a;
    if (COMPACT_KEY_ID.test(keyId)) {
      this.#keyIds.list[e >>> CHUNK_BITS]!.write(keyId.slice(4), (e & IN_CHUNK) * ID_BYTES, ID_BYTES, 'hex');
    } else {
      this.#oddKeyIds.set(e, keyId);
      word |= ODD_ID;
    }
    this.#keyAccounts.list[e >>> CHUNK_BITS]![e & IN_CHUNK] = word >>> 0;
    this.#keyCounts.list[a >>> CHUNK_BITS]![a & IN_CHUNK]! += 1;
    this.#keys.insert(this.#soughtHash[0]!, e);
  }

  /** Removes key entry `e`, whose hash is in #soughtHash (its first word `h`). */
  #removeKey(e: number, h: number): void {
    this.#keys.remove(h);
    if (this.#memoEntry[e & (MEMO_SLOTS - 1)] === e) {
      this.#memoEntry[e & (MEMO_SLOTS - 1)] = -1;
      this.#memo[e & (MEMO_SLOTS - 1)] = undefined;
    }
    const word = this.#keyAccounts.list[e >>> CHUNK_BITS]![e & IN_CHUNK]!;
    if (word & ODD_ID) this.#oddKeyIds.delete(e);
    const a = word & ~ODD_ID;
    this.#keyCounts.list[a >>> CHUNK_BITS]![a & IN_CHUNK]! -= 1;
    this.#keySlots.give(e);
    if (this.#plans.list[a >>> CHUNK_BITS]![a & IN_CHUNK] === CLOSED) {
      this.#leaveIfDone(a, this.#oddAccountIds.get(a) ?? `acc_${this.#idHex(this.#accountIds, a)}`);
    }
  }
}
