import { describe, expect, it } from 'vitest';
import { parseAdminArgs } from './admin-cli.ts';

describe('parseAdminArgs', () => {
  it('maps commands to admin API requests', () => {
    expect(parseAdminArgs(['create-account', '--name', 'Acme', '--plan', 'free'])).toMatchObject({
      request: { method: 'POST', path: '/admin/v1/accounts', body: { name: 'Acme', plan: 'free' } },
    });
    expect(parseAdminArgs(['revoke-key', '--key', 'key_abc'])).toMatchObject({
      request: { method: 'POST', path: '/admin/v1/keys/key_abc/revoke' },
    });
    expect(parseAdminArgs(['set-plan', '--account', 'acc_1', '--plan', 'business'])).toMatchObject({
      request: { method: 'PUT', path: '/admin/v1/accounts/acc_1/plan', body: { plan: 'business' } },
    });
    expect(() => parseAdminArgs(['create-key'])).toThrow(/--account is required/);
    expect(() => parseAdminArgs(['drop-account'])).toThrow(/unknown command/);
  });
});
