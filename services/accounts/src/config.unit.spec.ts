// The admin API refuses the admin token the local development overlay once published
// (k8s/overlays/local now generates a random one), whatever NODE_ENV says.
import { ConfigError, loadConfig } from '@cds/config';
import { describe, expect, it } from 'vitest';
import { AccountsConfig, KNOWN_DEV_ADMIN_TOKEN } from './config.ts';

const base = { NATS_URL: 'nats://127.0.0.1:4222' };

describe('AccountsConfig ADMIN_TOKEN', () => {
  it.each(['production', 'development', undefined])('refuses the well-known development token (NODE_ENV %s)', (env) => {
    expect(() => loadConfig(AccountsConfig, { ...base, NODE_ENV: env, ADMIN_TOKEN: KNOWN_DEV_ADMIN_TOKEN })).toThrow(
      /ADMIN_TOKEN: is the well-known development token/,
    );
    expect(KNOWN_DEV_ADMIN_TOKEN).toBe('local-dev-admin-token-change-me');
  });

  it('accepts any other token of 16 characters or more, and refuses a shorter one', () => {
    expect(loadConfig(AccountsConfig, { ...base, ADMIN_TOKEN: 'a'.repeat(16) }).ADMIN_TOKEN).toBe('a'.repeat(16));
    // One character away from the known token is just another token.
    expect(loadConfig(AccountsConfig, { ...base, ADMIN_TOKEN: `${KNOWN_DEV_ADMIN_TOKEN}!` }).ADMIN_TOKEN).toBe(
      `${KNOWN_DEV_ADMIN_TOKEN}!`,
    );
    expect(() => loadConfig(AccountsConfig, { ...base, ADMIN_TOKEN: 'short' })).toThrow(ConfigError);
  });
});
