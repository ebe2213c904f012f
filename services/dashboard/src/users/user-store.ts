import { createHash, randomBytes } from 'node:crypto';
import { ensureIndexes, isDuplicateKeyError } from '@cds/store';
import type { Collection, Db } from 'mongodb';

/** A dashboard user. The only personal data the service holds: e-mail and password hash. */
export interface User {
  _id: string;
  /** Normalized (trimmed, lower case); unique. */
  email: string;
  password_hash: string;
  verified: boolean;
  /** The admin API account, created at verification; named by the user id, never the e-mail. */
  account_id: string | null;
  created_at: Date;
  /**
   * Last 4 characters of keys created here, by key id (the plain key is never stored), oldest
   * first: a revoked key's hint is dropped, and at most the plan's cap on active keys is kept.
   */
  key_hints: Record<string, string>;
}

export type TokenPurpose = 'verify' | 'reset';

interface TokenDoc {
  /** SHA-256 of the token sent by mail: the token itself is never stored. */
  _id: string;
  user_id: string;
  purpose: TokenPurpose;
  expires_at: Date;
}

export interface UserStore {
  create(input: { email: string; passwordHash: string; verified?: boolean }): Promise<User | 'duplicate'>;
  byEmail(email: string): Promise<User | null>;
  byId(id: string): Promise<User | null>;
  update(id: string, set: Partial<Pick<User, 'verified' | 'account_id' | 'password_hash'>>): Promise<void>;
  /**
   * Swaps the password hash only while it is still `from` (a re-hash at log-in must not undo a
   * reset or change that landed meanwhile): true when it was swapped.
   */
  replacePasswordHash(id: string, from: string, to: string): Promise<boolean>;
  /** Keeps a new key's hint, dropping the oldest ones past `max` (the plan's cap on active keys). */
  addKeyHint(id: string, keyId: string, last4: string, max: number): Promise<void>;
  /** Drops a key's hint (at its revocation). */
  dropKeyHint(id: string, keyId: string): Promise<void>;
  /** Erases the user and its tokens. */
  delete(id: string): Promise<void>;
  count(): Promise<number>;
  /** A single-use token for a mail link; returns the plain token. */
  issueToken(userId: string, purpose: TokenPurpose, ttlMs: number): Promise<string>;
  /** The user id of a live token (without using it up). */
  peekToken(token: string, purpose: TokenPurpose): Promise<string | null>;
  /**
   * Uses a token up, and every other token of its user and purpose, in one atomic step for the
   * token itself: of parallel calls with one token, only one gets its user id; the others null.
   */
  consumeToken(token: string, purpose: TokenPurpose): Promise<string | null>;
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** Users and mail-link tokens in the dashboard's own MongoDB database. */
export async function createUserStore(deps: { db: Db; clock: () => number; maxTimeMs?: number }): Promise<UserStore> {
  const users: Collection<User> = deps.db.collection<User>('users');
  const tokens: Collection<TokenDoc> = deps.db.collection<TokenDoc>('tokens');
  const maxTimeMS = deps.maxTimeMs ?? 3_000;
  await ensureIndexes(users, [{ name: 'email_unique', key: { email: 1 }, unique: true }]);
  await ensureIndexes(tokens, [{ name: 'user', key: { user_id: 1 } }]);
  const now = () => new Date(deps.clock());

  return {
    async create(input) {
      const user: User = {
        _id: `usr_${randomBytes(10).toString('hex')}`,
        email: normalizeEmail(input.email),
        password_hash: input.passwordHash,
        verified: input.verified ?? false,
        account_id: null,
        created_at: now(),
        key_hints: {},
      };
      try {
        await users.insertOne(user);
      } catch (err) {
        if (isDuplicateKeyError(err)) return 'duplicate';
        throw err;
      }
      return user;
    },
    byEmail: (email) => users.findOne({ email: normalizeEmail(email) }, { maxTimeMS }),
    byId: (id) => users.findOne({ _id: id }, { maxTimeMS }),
    async update(id, set) {
      await users.updateOne({ _id: id }, { $set: set });
    },
    async replacePasswordHash(id, from, to) {
      const result = await users.updateOne({ _id: id, password_hash: from }, { $set: { password_hash: to } });
      return result.modifiedCount === 1;
    },
    async addKeyHint(id, keyId, last4, max) {
      const user = await users.findOne({ _id: id }, { projection: { key_hints: 1 }, maxTimeMS });
      const older = Object.keys(user?.key_hints ?? {}).filter((k) => k !== keyId);
      const drop = older.slice(0, Math.max(0, older.length + 1 - max));
      // Field by field ($set one, $unset the dropped), so a hint another tab adds meanwhile stays.
      await users.updateOne(
        { _id: id },
        {
          $set: { [`key_hints.${keyId}`]: last4 },
          ...(drop.length === 0 ? {} : { $unset: Object.fromEntries(drop.map((k) => [`key_hints.${k}`, ''])) }),
        },
      );
    },
    async dropKeyHint(id, keyId) {
      await users.updateOne({ _id: id }, { $unset: { [`key_hints.${keyId}`]: '' } });
    },
    async delete(id) {
      await tokens.deleteMany({ user_id: id });
      await users.deleteOne({ _id: id });
    },
    count: () => users.countDocuments({}, { maxTimeMS }),
    async issueToken(userId, purpose, ttlMs) {
      const token = randomBytes(32).toString('base64url');
      await tokens.insertOne({
        _id: tokenHash(token),
        user_id: userId,
        purpose,
        expires_at: new Date(deps.clock() + ttlMs),
      });
      return token;
    },
    async peekToken(token, purpose) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
      const doc = await tokens.findOne({ _id: tokenHash(token), purpose }, { maxTimeMS });
      if (doc === null || doc.expires_at.getTime() <= deps.clock()) return null;
      return doc.user_id;
    },
    async consumeToken(token, purpose) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
      const used = await tokens.findOne({ _id: tokenHash(token), purpose, expires_at: { $gt: now() } }, { maxTimeMS });
      if (used === null) return null;
      // The delete's count is the claim: of parallel deletes of one document, one alone counts it.
      // (A findOneAndDelete is no claim on every server of the protocol: FerretDB 1.x hands the
      // document it read to each of two parallel calls.)
      const claimed = await tokens.deleteOne({ _id: used._id }, { maxTimeMS });
      if (claimed.deletedCount !== 1) return null;
      // The user's other links of this purpose die with it: an older reset link is no way back in.
      await tokens.deleteMany({ user_id: used.user_id, purpose });
      return used.user_id;
    },
  };
}
