import { connectStore, type Store } from '@cds/store';
import { getTestInfra, uniqueName } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserStore, type UserStore } from './user-store.ts';

let store: Store;
let users: UserStore;

beforeAll(async () => {
  store = await connectStore({ url: getTestInfra().mongoUrl, appName: 'user-store-int' });
  users = await createUserStore({ db: store.db(uniqueName('users')), clock: () => Date.now() });
}, 60_000);

afterAll(async () => {
  await store?.close();
});

describe('mail-link tokens against a real database', () => {
  it('ends every other reset link of the user when one is used, and leaves other users and purposes alone', async () => {
    const older = await users.issueToken('usr_a', 'reset', 3_600_000);
    const used = await users.issueToken('usr_a', 'reset', 3_600_000);
    const verify = await users.issueToken('usr_a', 'verify', 3_600_000);
    const other = await users.issueToken('usr_b', 'reset', 3_600_000);
    expect(await users.consumeToken(used, 'reset')).toBe('usr_a');
    expect(await users.consumeToken(used, 'reset')).toBeNull();
    expect(await users.peekToken(older, 'reset')).toBeNull();
    expect(await users.consumeToken(older, 'reset')).toBeNull();
    expect(await users.peekToken(verify, 'verify')).toBe('usr_a');
    expect(await users.peekToken(other, 'reset')).toBe('usr_b');
  });

  it('gives a token to exactly one of 20 parallel uses, each of 10 times (security review #4)', async () => {
    // Ten rounds: a claim that trusts the document it read, not its delete's count, lets two of 20
    // through now and then.
    for (let round = 0; round < 10; round++) {
      const token = await users.issueToken('usr_c', 'verify', 3_600_000);
      const results = await Promise.all(Array.from({ length: 20 }, () => users.consumeToken(token, 'verify')));
      expect(results.filter((r) => r === 'usr_c')).toHaveLength(1);
      expect(results.filter((r) => r === null)).toHaveLength(19);
    }
  });
});

describe('password hashes', () => {
  it('replaces a hash only while it is still the one read (a re-hash never undoes a change)', async () => {
    const user = await users.create({ email: 'rehash@example.test', passwordHash: 'old' });
    if (user === 'duplicate') throw new Error('duplicate');
    await users.update(user._id, { password_hash: 'changed meanwhile' });
    expect(await users.replacePasswordHash(user._id, 'old', 're-hashed old')).toBe(false);
    expect((await users.byId(user._id))?.password_hash).toBe('changed meanwhile');
    expect(await users.replacePasswordHash(user._id, 'changed meanwhile', 're-hashed')).toBe(true);
    expect((await users.byId(user._id))?.password_hash).toBe('re-hashed');
  });
});

describe('key hints (I3)', () => {
  it("keeps at most the plan's cap, dropping the oldest, and drops a revoked key's hint", async () => {
    const user = await users.create({ email: 'hints@example.test', passwordHash: 'x' });
    if (user === 'duplicate') throw new Error('duplicate');
    for (let i = 1; i <= 5; i++) await users.addKeyHint(user._id, `key_0000000${i}`, `000${i}`, 3);
    expect((await users.byId(user._id))?.key_hints).toEqual({
      key_00000003: '0003',
      key_00000004: '0004',
      key_00000005: '0005',
    });
    // Adding an existing key again neither duplicates nor drops another.
    await users.addKeyHint(user._id, 'key_00000005', '0005', 3);
    expect(Object.keys((await users.byId(user._id))!.key_hints)).toHaveLength(3);
    await users.dropKeyHint(user._id, 'key_00000004');
    await users.dropKeyHint(user._id, 'key_99999999');
    expect((await users.byId(user._id))?.key_hints).toEqual({ key_00000003: '0003', key_00000005: '0005' });
    // A lower cap (a plan changed down) trims to it at the next creation.
    await users.addKeyHint(user._id, 'key_00000006', '0006', 1);
    expect((await users.byId(user._id))?.key_hints).toEqual({ key_00000006: '0006' });
  });
});
