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
    expect(await users.consumeToken(used, 'reset')).toBe(true);
    expect(await users.consumeToken(used, 'reset')).toBe(false);
    expect(await users.peekToken(older, 'reset')).toBeNull();
    expect(await users.consumeToken(older, 'reset')).toBe(false);
    expect(await users.peekToken(verify, 'verify')).toBe('usr_a');
    expect(await users.peekToken(other, 'reset')).toBe('usr_b');
  });
});
