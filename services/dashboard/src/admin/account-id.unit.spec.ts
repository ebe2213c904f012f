import { AccountId } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { accountIdOf } from './account-id.ts';

describe('the account id of a user', () => {
  it('is acc_ + 20 lowercase hex characters of SHA-256 of the user id, the same every time', () => {
    const id = accountIdOf('usr_0123456789abcdef0123');
    // sha256('usr_0123456789abcdef0123') = 613c4b749c60afa7926c…
    expect(id).toBe('acc_613c4b749c60afa7926c');
    expect(AccountId.safeParse(id).success).toBe(true);
    expect(accountIdOf('usr_0123456789abcdef0123')).toBe(id);
    expect(accountIdOf('usr_0123456789abcdef0124')).not.toBe(id);
  });
});
